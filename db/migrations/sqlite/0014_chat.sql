CREATE TABLE `chat_canned_responses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`short_code` text NOT NULL,
	`content` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chat_canned_company_code` ON `chat_canned_responses` (`company_id`,`short_code`);--> statement-breakpoint
CREATE TABLE `chat_conversations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`inbox_id` integer NOT NULL,
	`visitor_id` integer NOT NULL,
	`number` integer NOT NULL,
	`status` text NOT NULL,
	`snoozed_until` integer,
	`priority` text NOT NULL,
	`assignee_id` integer,
	`page_url` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`last_message_at` integer NOT NULL,
	`last_visitor_message_at` integer,
	`last_agent_message_at` integer,
	`resolved_at` integer,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`inbox_id`) REFERENCES `chat_inboxes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`visitor_id`) REFERENCES `chat_visitors`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`assignee_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chat_conversations_company_number` ON `chat_conversations` (`company_id`,`number`);--> statement-breakpoint
CREATE INDEX `chat_conversations_company_status` ON `chat_conversations` (`company_id`,`status`,`last_message_at`);--> statement-breakpoint
CREATE INDEX `chat_conversations_visitor` ON `chat_conversations` (`visitor_id`,`id`);--> statement-breakpoint
CREATE INDEX `chat_conversations_snoozed` ON `chat_conversations` (`snoozed_until`);--> statement-breakpoint
CREATE TABLE `chat_counters` (
	`company_id` integer PRIMARY KEY NOT NULL,
	`last_number` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `chat_inboxes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`site_id` integer NOT NULL,
	`name` text NOT NULL,
	`greeting` text NOT NULL,
	`away_message` text,
	`widget_key` text NOT NULL,
	`allowed_origins` text NOT NULL,
	`business_hours` text,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chat_inboxes_widget_key_unique` ON `chat_inboxes` (`widget_key`);--> statement-breakpoint
CREATE INDEX `chat_inboxes_company` ON `chat_inboxes` (`company_id`,`site_id`);--> statement-breakpoint
CREATE TABLE `chat_conversation_labels` (
	`conversation_id` integer NOT NULL,
	`label` text NOT NULL,
	PRIMARY KEY(`conversation_id`, `label`),
	FOREIGN KEY (`conversation_id`) REFERENCES `chat_conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `chat_labels_label` ON `chat_conversation_labels` (`label`);--> statement-breakpoint
CREATE TABLE `chat_messages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`conversation_id` integer NOT NULL,
	`kind` text NOT NULL,
	`user_id` integer,
	`body` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`conversation_id`) REFERENCES `chat_conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `chat_messages_conversation` ON `chat_messages` (`conversation_id`,`id`);--> statement-breakpoint
CREATE INDEX `chat_messages_company` ON `chat_messages` (`company_id`,`id`);--> statement-breakpoint
CREATE TABLE `chat_visitors` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`inbox_id` integer NOT NULL,
	`token_hash` text NOT NULL,
	`name` text,
	`email` text,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`inbox_id`) REFERENCES `chat_inboxes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `chat_visitors_token_hash_unique` ON `chat_visitors` (`token_hash`);--> statement-breakpoint
CREATE INDEX `chat_visitors_inbox` ON `chat_visitors` (`inbox_id`);