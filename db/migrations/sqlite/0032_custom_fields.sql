ALTER TABLE `post_types` ADD `fields` text;--> statement-breakpoint
ALTER TABLE `posts` ADD `fields` text;