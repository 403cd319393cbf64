CREATE TABLE `automation_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`automation_id` integer NOT NULL,
	`company_id` integer NOT NULL,
	`version` integer NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`chain` text NOT NULL,
	`steps` text NOT NULL,
	`start_step` integer DEFAULT 0 NOT NULL,
	`dedupe_key` text,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease_until` integer,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`automation_id`) REFERENCES `automations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `automation_runs_automation` ON `automation_runs` (`automation_id`,`id`);--> statement-breakpoint
CREATE INDEX `automation_runs_status` ON `automation_runs` (`status`,`id`);--> statement-breakpoint
CREATE INDEX `automation_runs_company` ON `automation_runs` (`company_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `automation_runs_dedupe` ON `automation_runs` (`automation_id`,`dedupe_key`);--> statement-breakpoint
CREATE TABLE `automation_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`automation_id` integer NOT NULL,
	`version` integer NOT NULL,
	`definition` text NOT NULL,
	`note` text,
	`created_by_user_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`automation_id`) REFERENCES `automations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automation_versions_n` ON `automation_versions` (`automation_id`,`version`);--> statement-breakpoint
CREATE TABLE `automations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`enabled` integer DEFAULT false NOT NULL,
	`version` integer NOT NULL,
	`trigger` text NOT NULL,
	`conditions` text NOT NULL,
	`actions` text NOT NULL,
	`trigger_type` text NOT NULL,
	`event_type` text,
	`next_run_at` integer,
	`hook_token` text,
	`hook_secret` text,
	`created_by_user_id` integer NOT NULL,
	`credential_kind` text NOT NULL,
	`credential_id` integer NOT NULL,
	`scopes` text NOT NULL,
	`require_cms_approval` integer DEFAULT false NOT NULL,
	`last_run_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automations_name` ON `automations` (`company_id`,`name`);--> statement-breakpoint
CREATE INDEX `automations_event` ON `automations` (`company_id`,`enabled`,`event_type`);--> statement-breakpoint
CREATE INDEX `automations_due` ON `automations` (`enabled`,`next_run_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `automations_hook` ON `automations` (`hook_token`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` integer NOT NULL,
	`attempted_at` integer NOT NULL,
	`status_code` integer,
	`error` text,
	`response_body` text,
	`duration_ms` integer NOT NULL,
	FOREIGN KEY (`delivery_id`) REFERENCES `webhook_deliveries`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery` ON `webhook_attempts` (`delivery_id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`endpoint_id` integer NOT NULL,
	`company_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	`event_type` text NOT NULL,
	`entity_key` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`last_status_code` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`delivered_at` integer,
	FOREIGN KEY (`endpoint_id`) REFERENCES `webhook_endpoints`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`endpoint_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_entity` ON `webhook_deliveries` (`endpoint_id`,`entity_key`,`status`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_company` ON `webhook_deliveries` (`company_id`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`event_types` text NOT NULL,
	`secret` text NOT NULL,
	`status` text NOT NULL,
	`disabled_reason` text,
	`failure_streak` integer DEFAULT 0 NOT NULL,
	`last_success_at` integer,
	`last_failure_at` integer,
	`created_by_user_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_company` ON `webhook_endpoints` (`company_id`,`status`);