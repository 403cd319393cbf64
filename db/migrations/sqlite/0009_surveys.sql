CREATE TABLE `survey_responses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`survey_id` integer NOT NULL,
	`company_id` integer NOT NULL,
	`token_hash` text NOT NULL,
	`survey_version` integer NOT NULL,
	`language` text NOT NULL,
	`answers` text NOT NULL,
	`other_texts` text NOT NULL,
	`hidden` text NOT NULL,
	`path` text NOT NULL,
	`finished` integer DEFAULT false NOT NULL,
	`ending_id` text,
	`tags` text NOT NULL,
	`notes` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`survey_id`) REFERENCES `surveys`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `survey_responses_token` ON `survey_responses` (`survey_id`,`token_hash`);--> statement-breakpoint
CREATE INDEX `survey_responses_survey` ON `survey_responses` (`survey_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `surveys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`site_id` integer,
	`slug` text NOT NULL,
	`title` text NOT NULL,
	`status` text NOT NULL,
	`definition` text NOT NULL,
	`draft` text,
	`version` integer DEFAULT 1 NOT NULL,
	`closes_at` integer,
	`max_responses` integer,
	`response_count` integer DEFAULT 0 NOT NULL,
	`closed_at` integer,
	`closed_reason` text,
	`approved_at` integer,
	`forked_from_id` integer,
	`created_by_user_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `surveys_slug` ON `surveys` (`slug`);--> statement-breakpoint
CREATE INDEX `surveys_company` ON `surveys` (`company_id`,`id`);