CREATE TABLE `email_feedback` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`kind` text NOT NULL,
	`email` text NOT NULL,
	`send_id` integer,
	`campaign_id` integer,
	`subscriber_id` integer,
	`status` text,
	`diagnostic` text,
	`format` text NOT NULL,
	`report_key` text NOT NULL,
	`received_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`send_id`) REFERENCES `email_sends`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_feedback_report` ON `email_feedback` (`company_id`,`report_key`);--> statement-breakpoint
CREATE INDEX `email_feedback_email` ON `email_feedback` (`company_id`,`email`,`received_at`);--> statement-breakpoint
CREATE INDEX `email_feedback_campaign` ON `email_feedback` (`campaign_id`,`kind`);--> statement-breakpoint
CREATE TABLE `email_feedback_keys` (
	`company_id` integer PRIMARY KEY NOT NULL,
	`secret_hash` text NOT NULL,
	`hint` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_feedback_keys_hash` ON `email_feedback_keys` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `email_sends_message_id` ON `email_sends` (`message_id`);--> statement-breakpoint
CREATE INDEX `email_sends_email` ON `email_sends` (`company_id`,`email`,`id`);