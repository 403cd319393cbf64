CREATE TABLE `email_sending_domains` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`domain` text NOT NULL,
	`selector` text NOT NULL,
	`private_key_sealed` text NOT NULL,
	`public_key` text NOT NULL,
	`next_selector` text,
	`next_private_key_sealed` text,
	`next_public_key` text,
	`last_check` text,
	`last_checked_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_sending_domains_company_domain` ON `email_sending_domains` (`company_id`,`domain`);