ALTER TABLE `automation_runs` ADD `cursor` text;--> statement-breakpoint
ALTER TABLE `automation_runs` ADD `resume_at` integer;--> statement-breakpoint
CREATE INDEX `automation_runs_resume` ON `automation_runs` (`status`,`resume_at`);