CREATE TABLE `booking_hosts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`booking_id` integer NOT NULL,
	`company_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`page_id` integer,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`busy_from` integer NOT NULL,
	`busy_until` integer NOT NULL,
	`active_start` integer,
	`active` integer NOT NULL,
	FOREIGN KEY (`booking_id`) REFERENCES `bookings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `booking_hosts_slot` ON `booking_hosts` (`company_id`,`user_id`,`active_start`);--> statement-breakpoint
CREATE INDEX `booking_hosts_busy` ON `booking_hosts` (`company_id`,`user_id`,`busy_from`);--> statement-breakpoint
CREATE INDEX `booking_hosts_booking` ON `booking_hosts` (`booking_id`);--> statement-breakpoint
CREATE TABLE `booking_pages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`status` text NOT NULL,
	`config` text NOT NULL,
	`draft` text,
	`version` integer DEFAULT 1 NOT NULL,
	`published_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `booking_pages_slug` ON `booking_pages` (`slug`);--> statement-breakpoint
CREATE INDEX `booking_pages_company` ON `booking_pages` (`company_id`,`id`);--> statement-breakpoint
CREATE TABLE `booking_schedules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`time_zone` text NOT NULL,
	`weekly` text NOT NULL,
	`overrides` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `booking_schedules_member` ON `booking_schedules` (`company_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `booking_time_off` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`start_date` text NOT NULL,
	`end_date` text NOT NULL,
	`reason` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `booking_time_off_member` ON `booking_time_off` (`company_id`,`user_id`,`end_date`);--> statement-breakpoint
CREATE TABLE `bookings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`page_id` integer,
	`page_slug` text NOT NULL,
	`page_title` text NOT NULL,
	`uid` text NOT NULL,
	`status` text NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	`duration_min` integer NOT NULL,
	`time_zone` text NOT NULL,
	`attendee_name` text NOT NULL,
	`attendee_email` text NOT NULL,
	`answers` text NOT NULL,
	`location` text NOT NULL,
	`host_user_ids` text NOT NULL,
	`sequence` integer DEFAULT 0 NOT NULL,
	`reason` text,
	`cancelled_by` text,
	`cancelled_at` integer,
	`confirmed_at` integer,
	`no_show` text,
	`source` text NOT NULL,
	`history` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`page_id`) REFERENCES `booking_pages`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bookings_uid` ON `bookings` (`uid`);--> statement-breakpoint
CREATE INDEX `bookings_company_start` ON `bookings` (`company_id`,`starts_at`);--> statement-breakpoint
CREATE INDEX `bookings_page_start` ON `bookings` (`page_id`,`starts_at`);--> statement-breakpoint
CREATE INDEX `bookings_company_email` ON `bookings` (`company_id`,`attendee_email`);--> statement-breakpoint
CREATE INDEX `bookings_status_start` ON `bookings` (`status`,`starts_at`);