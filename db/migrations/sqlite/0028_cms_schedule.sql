ALTER TABLE `posts` ADD `unpublish_at` integer;--> statement-breakpoint
ALTER TABLE `posts` ADD `awaiting_go_live` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sites` ADD `next_scheduled_at` integer;