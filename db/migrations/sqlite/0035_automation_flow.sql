CREATE TABLE `automation_http` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`hosts` text NOT NULL,
	`secrets` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automation_http_company` ON `automation_http` (`company_id`);--> statement-breakpoint
ALTER TABLE `automation_runs` ADD `cursor` text;--> statement-breakpoint
ALTER TABLE `automation_runs` ADD `resume_at` integer;--> statement-breakpoint
CREATE INDEX `automation_runs_resume` ON `automation_runs` (`status`,`resume_at`);