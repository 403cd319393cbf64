ALTER TABLE "order_items" ADD COLUMN "list_price" bigint;--> statement-breakpoint
ALTER TABLE "order_items" ADD COLUMN "bulk_rule" json;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "discount_code" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "discount_kind" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "discount_amount" bigint;