CREATE TABLE `approval_codes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`link_id` integer NOT NULL,
	`email` text NOT NULL,
	`salt` text NOT NULL,
	`code_hash` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`link_id`) REFERENCES `approval_links`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `approval_codes_link_email` ON `approval_codes` (`link_id`,`email`,`created_at`);--> statement-breakpoint
CREATE TABLE `approval_settings` (
	`company_id` integer PRIMARY KEY NOT NULL,
	`policy` text DEFAULT 'person' NOT NULL,
	`reviewers` text NOT NULL,
	`updated_by_user_id` integer,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `approval_links` ADD `decided_via` text;--> statement-breakpoint
ALTER TABLE `approval_links` ADD `decided_by_user_id` integer;--> statement-breakpoint
ALTER TABLE `approval_links` ADD `decided_by_email` text;