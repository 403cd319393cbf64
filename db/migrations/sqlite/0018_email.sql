CREATE TABLE `email_campaigns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`name` text NOT NULL,
	`subject` text NOT NULL,
	`preheader` text,
	`from_name` text,
	`from_email` text,
	`reply_to` text,
	`template_id` integer,
	`html` text NOT NULL,
	`text` text NOT NULL,
	`list_ids` text NOT NULL,
	`segment_ids` text NOT NULL,
	`status` text NOT NULL,
	`approved_at` integer,
	`approved_by` text,
	`track_opens` integer DEFAULT false NOT NULL,
	`track_clicks` integer DEFAULT false NOT NULL,
	`rate_per_minute` integer NOT NULL,
	`scheduled_at` integer,
	`time_zone` text,
	`started_at` integer,
	`finished_at` integer,
	`queued_all` integer DEFAULT false NOT NULL,
	`queue_cursor` integer DEFAULT 0 NOT NULL,
	`recipient_count` integer DEFAULT 0 NOT NULL,
	`created_by_user_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`template_id`) REFERENCES `email_templates`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `email_campaigns_company` ON `email_campaigns` (`company_id`,`id`);--> statement-breakpoint
CREATE INDEX `email_campaigns_status` ON `email_campaigns` (`status`,`scheduled_at`);--> statement-breakpoint
CREATE TABLE `email_lists` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`opt_in` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_lists_name` ON `email_lists` (`company_id`,`name`);--> statement-breakpoint
CREATE TABLE `email_memberships` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`list_id` integer NOT NULL,
	`subscriber_id` integer NOT NULL,
	`status` text NOT NULL,
	`confirm_token_hash` text,
	`confirmed_at` integer,
	`unsubscribed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`list_id`) REFERENCES `email_lists`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subscriber_id`) REFERENCES `email_subscribers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_memberships_pair` ON `email_memberships` (`list_id`,`subscriber_id`);--> statement-breakpoint
CREATE INDEX `email_memberships_subscriber` ON `email_memberships` (`subscriber_id`);--> statement-breakpoint
CREATE INDEX `email_memberships_list_status` ON `email_memberships` (`list_id`,`status`,`subscriber_id`);--> statement-breakpoint
CREATE INDEX `email_memberships_token` ON `email_memberships` (`confirm_token_hash`);--> statement-breakpoint
CREATE TABLE `email_segments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`name` text NOT NULL,
	`rules` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_segments_name` ON `email_segments` (`company_id`,`name`);--> statement-breakpoint
CREATE TABLE `email_sends` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`campaign_id` integer,
	`subscriber_id` integer,
	`list_id` integer,
	`email` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_attempt_at` integer,
	`message_id` text NOT NULL,
	`token` text NOT NULL,
	`subject` text,
	`html` text,
	`text` text,
	`from_name` text,
	`from_email` text,
	`reply_to` text,
	`tag` text,
	`smtp_response` text,
	`sent_at` integer,
	`opened_at` integer,
	`clicked_at` integer,
	`opens` integer DEFAULT 0 NOT NULL,
	`clicks` integer DEFAULT 0 NOT NULL,
	`unsubscribed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `email_campaigns`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subscriber_id`) REFERENCES `email_subscribers`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_sends_recipient` ON `email_sends` (`campaign_id`,`subscriber_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `email_sends_token` ON `email_sends` (`token`);--> statement-breakpoint
CREATE INDEX `email_sends_due` ON `email_sends` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `email_sends_campaign` ON `email_sends` (`campaign_id`,`status`);--> statement-breakpoint
CREATE INDEX `email_sends_subscriber` ON `email_sends` (`subscriber_id`,`id`);--> statement-breakpoint
CREATE TABLE `email_subscribers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`email` text NOT NULL,
	`name` text,
	`attributes` text NOT NULL,
	`blocklisted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_subscribers_email` ON `email_subscribers` (`company_id`,`email`);--> statement-breakpoint
CREATE TABLE `email_templates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`name` text NOT NULL,
	`html` text NOT NULL,
	`text` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_templates_name` ON `email_templates` (`company_id`,`name`);