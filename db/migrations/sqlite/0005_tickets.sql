CREATE TABLE `ticket_counters` (
	`company_id` integer PRIMARY KEY NOT NULL,
	`last_number` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `ticket_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ticket_id` integer NOT NULL,
	`kind` text NOT NULL,
	`author` text NOT NULL,
	`user_id` integer,
	`body` text NOT NULL,
	`merged_from_number` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `ticket_messages_ticket` ON `ticket_messages` (`ticket_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ticket_sla_policies` (
	`company_id` integer PRIMARY KEY NOT NULL,
	`time_zone` text NOT NULL,
	`business_hours` text NOT NULL,
	`holidays` text NOT NULL,
	`targets` text NOT NULL,
	`auto_close_days` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `ticket_tags` (
	`ticket_id` integer NOT NULL,
	`tag` text NOT NULL,
	PRIMARY KEY(`ticket_id`, `tag`),
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ticket_tags_tag` ON `ticket_tags` (`tag`);--> statement-breakpoint
CREATE TABLE `tickets` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`number` integer NOT NULL,
	`subject` text NOT NULL,
	`requester_email` text NOT NULL,
	`requester_name` text,
	`status` text NOT NULL,
	`priority` text NOT NULL,
	`assignee_id` integer,
	`merged_into_id` integer,
	`follow_up_of_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`last_message_at` integer NOT NULL,
	`first_responded_at` integer,
	`solved_at` integer,
	`closed_at` integer,
	`first_response_due_at` integer,
	`resolution_due_at` integer,
	`sla_paused_at` integer,
	`sla_pauses` text NOT NULL,
	`first_response_breached_at` integer,
	`resolution_breached_at` integer,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`assignee_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tickets_company_number` ON `tickets` (`company_id`,`number`);--> statement-breakpoint
CREATE INDEX `tickets_company_status` ON `tickets` (`company_id`,`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `tickets_company_assignee` ON `tickets` (`company_id`,`assignee_id`);--> statement-breakpoint
CREATE INDEX `tickets_company_requester` ON `tickets` (`company_id`,`requester_email`);--> statement-breakpoint
CREATE INDEX `tickets_first_response_due` ON `tickets` (`first_response_due_at`);--> statement-breakpoint
CREATE INDEX `tickets_resolution_due` ON `tickets` (`resolution_due_at`);