CREATE TABLE `ticket_macros` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`name` text NOT NULL,
	`body` text,
	`status` text,
	`add_tags` text NOT NULL,
	`remove_tags` text NOT NULL,
	`assignee_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`assignee_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_macros_company_name` ON `ticket_macros` (`company_id`,`name`);--> statement-breakpoint
ALTER TABLE `chat_conversations` ADD `ticket_number` integer;--> statement-breakpoint
ALTER TABLE `tickets` ADD `source_chat_number` integer;