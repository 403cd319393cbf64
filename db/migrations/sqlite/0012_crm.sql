CREATE TABLE `crm_activities` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`kind` text NOT NULL,
	`subject` text,
	`body` text,
	`contact_id` integer,
	`crm_company_id` integer,
	`deal_id` integer,
	`occurred_at` integer NOT NULL,
	`due_at` integer,
	`completed_at` integer,
	`duration_minutes` integer,
	`owner_id` integer,
	`by_user_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`contact_id`) REFERENCES `crm_contacts`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`crm_company_id`) REFERENCES `crm_companies`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`deal_id`) REFERENCES `crm_deals`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `crm_activities_contact` ON `crm_activities` (`contact_id`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `crm_activities_crm_company` ON `crm_activities` (`crm_company_id`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `crm_activities_deal` ON `crm_activities` (`deal_id`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `crm_activities_due` ON `crm_activities` (`company_id`,`due_at`);--> statement-breakpoint
CREATE TABLE `crm_contact_emails` (
	`company_id` integer NOT NULL,
	`email` text NOT NULL,
	`contact_id` integer NOT NULL,
	PRIMARY KEY(`company_id`, `email`),
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`contact_id`) REFERENCES `crm_contacts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `crm_contact_emails_contact` ON `crm_contact_emails` (`contact_id`);--> statement-breakpoint
CREATE TABLE `crm_contacts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`first_name` text,
	`last_name` text,
	`emails` text NOT NULL,
	`phones` text NOT NULL,
	`job_title` text,
	`crm_company_id` integer,
	`owner_id` integer,
	`lifecycle_stage` text NOT NULL,
	`tags` text NOT NULL,
	`custom` text NOT NULL,
	`score` integer NOT NULL,
	`search` text NOT NULL,
	`merged_into_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`crm_company_id`) REFERENCES `crm_companies`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `crm_contacts_updated` ON `crm_contacts` (`company_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `crm_contacts_company` ON `crm_contacts` (`crm_company_id`);--> statement-breakpoint
CREATE INDEX `crm_contacts_score` ON `crm_contacts` (`company_id`,`score`);--> statement-breakpoint
CREATE INDEX `crm_contacts_search` ON `crm_contacts` (`company_id`,`merged_into_id`,`search`);--> statement-breakpoint
CREATE TABLE `crm_companies` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`name` text NOT NULL,
	`domain` text,
	`size` text,
	`industry` text,
	`owner_id` integer,
	`tags` text NOT NULL,
	`custom` text NOT NULL,
	`search` text NOT NULL,
	`merged_into_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crm_companies_domain` ON `crm_companies` (`company_id`,`domain`);--> statement-breakpoint
CREATE INDEX `crm_companies_updated` ON `crm_companies` (`company_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `crm_companies_search` ON `crm_companies` (`company_id`,`merged_into_id`,`search`);--> statement-breakpoint
CREATE TABLE `crm_deal_contacts` (
	`deal_id` integer NOT NULL,
	`contact_id` integer NOT NULL,
	PRIMARY KEY(`deal_id`, `contact_id`),
	FOREIGN KEY (`deal_id`) REFERENCES `crm_deals`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`contact_id`) REFERENCES `crm_contacts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `crm_deal_contacts_contact` ON `crm_deal_contacts` (`contact_id`);--> statement-breakpoint
CREATE TABLE `crm_deals` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`name` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`pipeline_id` integer NOT NULL,
	`stage_id` integer NOT NULL,
	`expected_close` text,
	`owner_id` integer,
	`crm_company_id` integer,
	`lost_reason` text,
	`custom` text NOT NULL,
	`search` text NOT NULL,
	`stage_changed_at` integer NOT NULL,
	`closed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`pipeline_id`) REFERENCES `crm_pipelines`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`stage_id`) REFERENCES `crm_stages`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`crm_company_id`) REFERENCES `crm_companies`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `crm_deals_stage` ON `crm_deals` (`company_id`,`pipeline_id`,`stage_id`);--> statement-breakpoint
CREATE INDEX `crm_deals_company` ON `crm_deals` (`crm_company_id`);--> statement-breakpoint
CREATE TABLE `crm_field_defs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`object` text NOT NULL,
	`key` text NOT NULL,
	`label` text NOT NULL,
	`type` text NOT NULL,
	`options` text NOT NULL,
	`required` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crm_field_defs_key` ON `crm_field_defs` (`company_id`,`object`,`key`);--> statement-breakpoint
CREATE TABLE `crm_merges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`object` text NOT NULL,
	`survivor_id` integer NOT NULL,
	`merged_id` integer NOT NULL,
	`snapshot` text NOT NULL,
	`by_user_id` integer,
	`at` integer NOT NULL,
	`undone_at` integer,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `crm_merges_company` ON `crm_merges` (`company_id`,`at`);--> statement-breakpoint
CREATE TABLE `crm_pipelines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crm_pipelines_name` ON `crm_pipelines` (`company_id`,`name`);--> statement-breakpoint
CREATE TABLE `crm_scoring_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`name` text NOT NULL,
	`condition` text NOT NULL,
	`points` integer NOT NULL,
	`decay_days` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `crm_stage_moves` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`deal_id` integer NOT NULL,
	`from_stage_id` integer,
	`to_stage_id` integer NOT NULL,
	`from_stage` text,
	`to_stage` text NOT NULL,
	`by_user_id` integer,
	`at` integer NOT NULL,
	FOREIGN KEY (`deal_id`) REFERENCES `crm_deals`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `crm_stage_moves_deal` ON `crm_stage_moves` (`deal_id`,`at`);--> statement-breakpoint
CREATE TABLE `crm_stages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`pipeline_id` integer NOT NULL,
	`name` text NOT NULL,
	`position` integer NOT NULL,
	`probability` integer NOT NULL,
	`kind` text NOT NULL,
	FOREIGN KEY (`pipeline_id`) REFERENCES `crm_pipelines`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `crm_stages_pipeline` ON `crm_stages` (`pipeline_id`,`position`);--> statement-breakpoint
CREATE TABLE `crm_views` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`object` text NOT NULL,
	`name` text NOT NULL,
	`filters` text NOT NULL,
	`sort` text,
	`columns` text NOT NULL,
	`created_by_user_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `crm_views_name` ON `crm_views` (`company_id`,`object`,`name`);