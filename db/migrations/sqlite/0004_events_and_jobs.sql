CREATE TABLE `event_cursors` (
	`subscriber` text PRIMARY KEY NOT NULL,
	`last_tx` integer NOT NULL,
	`last_id` integer NOT NULL,
	`attempts` integer NOT NULL,
	`last_error` text,
	`retry_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `event_failures` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subscriber` text NOT NULL,
	`event_id` integer NOT NULL,
	`error` text NOT NULL,
	`attempts` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `event_failures_subscriber` ON `event_failures` (`subscriber`,`created_at`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`type` text NOT NULL,
	`company_id` integer NOT NULL,
	`site_id` integer,
	`entity_type` text NOT NULL,
	`entity_id` integer NOT NULL,
	`user_id` integer,
	`credential_kind` text,
	`credential_id` integer,
	`data` text NOT NULL,
	`tx` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_order` ON `events` (`tx`,`id`);--> statement-breakpoint
CREATE INDEX `events_company` ON `events` (`company_id`,`id`);--> statement-breakpoint
CREATE INDEX `events_entity` ON `events` (`entity_type`,`entity_id`,`id`);--> statement-breakpoint
CREATE TABLE `job_leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text,
	`lease_until` integer,
	`last_started_at` integer,
	`last_finished_at` integer,
	`last_error` text,
	`runs` integer NOT NULL,
	`failures` integer NOT NULL
);
