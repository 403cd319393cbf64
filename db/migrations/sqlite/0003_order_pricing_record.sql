ALTER TABLE `order_items` ADD `list_price` integer;--> statement-breakpoint
ALTER TABLE `order_items` ADD `bulk_rule` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `discount_code` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `discount_kind` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `discount_amount` integer;