CREATE TABLE `post_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`post_id` integer NOT NULL,
	`site_id` integer NOT NULL,
	`version` integer NOT NULL,
	`snapshot` text NOT NULL,
	`source` text DEFAULT 'approval' NOT NULL,
	`approval_id` integer,
	`approved_by` text,
	`approved_by_user_id` integer,
	`approved_via` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`post_id`) REFERENCES `posts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `post_versions_post_version` ON `post_versions` (`post_id`,`version`);--> statement-breakpoint
CREATE INDEX `post_versions_site` ON `post_versions` (`site_id`);