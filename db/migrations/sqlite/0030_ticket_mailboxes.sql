CREATE TABLE `ticket_mail_hooks` (
	`company_id` integer PRIMARY KEY NOT NULL,
	`secret_hash` text NOT NULL,
	`created_by` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_mail_hooks_secret` ON `ticket_mail_hooks` (`secret_hash`);--> statement-breakpoint
CREATE TABLE `ticket_mail_imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`source` integer NOT NULL,
	`key` text NOT NULL,
	`message_id` text,
	`ticket_id` integer,
	`outcome` text NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_mail_imports_key` ON `ticket_mail_imports` (`company_id`,`source`,`key`);--> statement-breakpoint
CREATE INDEX `ticket_mail_imports_message` ON `ticket_mail_imports` (`company_id`,`message_id`);--> statement-breakpoint
CREATE TABLE `ticket_mailboxes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`host` text NOT NULL,
	`port` integer NOT NULL,
	`tls` text NOT NULL,
	`username` text NOT NULL,
	`password_sealed` text NOT NULL,
	`folder` text NOT NULL,
	`uid_validity` text,
	`last_uid` text,
	`state` text NOT NULL,
	`last_error` text,
	`last_polled_at` integer,
	`poll_until` integer,
	`created_by` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `ticket_mailboxes_company` ON `ticket_mailboxes` (`company_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_mailboxes_account` ON `ticket_mailboxes` (`company_id`,`host`,`username`,`folder`);