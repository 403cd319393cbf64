CREATE TABLE `ai_conversations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer,
	`user_id` integer,
	`credential_kind` text NOT NULL,
	`credential_id` integer NOT NULL,
	`client_name` text,
	`oauth_client_id` text,
	`session_key` text,
	`started_at` integer NOT NULL,
	`last_call_at` integer NOT NULL,
	`call_count` integer DEFAULT 0 NOT NULL,
	`error_count` integer DEFAULT 0 NOT NULL,
	`approval_count` integer DEFAULT 0 NOT NULL,
	`total_duration_ms` integer DEFAULT 0 NOT NULL,
	`tools` text NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `ai_conversations_company` ON `ai_conversations` (`company_id`,`last_call_at`);--> statement-breakpoint
CREATE INDEX `ai_conversations_credential` ON `ai_conversations` (`credential_kind`,`credential_id`,`company_id`,`last_call_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `ai_conversations_session` ON `ai_conversations` (`credential_kind`,`credential_id`,`company_id`,`session_key`);--> statement-breakpoint
CREATE TABLE `ai_credit_accounts` (
	`company_id` integer PRIMARY KEY NOT NULL,
	`balance` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `ai_credit_budgets` (
	`company_id` integer PRIMARY KEY NOT NULL,
	`monthly_limit` integer NOT NULL,
	`thresholds` text NOT NULL,
	`hard` integer DEFAULT false NOT NULL,
	`period_start` integer NOT NULL,
	`spent` integer DEFAULT 0 NOT NULL,
	`notified_percent` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `ai_credit_ledger` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`kind` text NOT NULL,
	`amount` integer NOT NULL,
	`balance_after` integer NOT NULL,
	`reason` text NOT NULL,
	`ref` text,
	`note` text,
	`user_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `ai_credit_ledger_company` ON `ai_credit_ledger` (`company_id`,`id`);--> statement-breakpoint
CREATE INDEX `ai_credit_ledger_usage` ON `ai_credit_ledger` (`company_id`,`kind`,`created_at`);--> statement-breakpoint
CREATE TABLE `ai_tool_calls` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`conversation_id` integer NOT NULL,
	`company_id` integer,
	`user_id` integer,
	`credential_kind` text NOT NULL,
	`credential_id` integer NOT NULL,
	`tool` text NOT NULL,
	`toolset` text,
	`args` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`duration_ms` integer NOT NULL,
	`approval_id` integer,
	`request_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`conversation_id`) REFERENCES `ai_conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ai_tool_calls_conversation` ON `ai_tool_calls` (`conversation_id`,`id`);--> statement-breakpoint
CREATE INDEX `ai_tool_calls_company` ON `ai_tool_calls` (`company_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `ai_tool_calls_credential` ON `ai_tool_calls` (`credential_kind`,`credential_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `integration_health` (
	`kind` text PRIMARY KEY NOT NULL,
	`last_checked_at` integer,
	`last_success_at` integer,
	`last_error_at` integer,
	`last_error` text
);
--> statement-breakpoint
CREATE TABLE `integrations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`kind` text NOT NULL,
	`ref` text NOT NULL,
	`name` text NOT NULL,
	`first_seen_at` integer NOT NULL,
	`revoked_at` integer,
	`revoked_by_user_id` integer,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`revoked_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `integrations_ref` ON `integrations` (`company_id`,`kind`,`ref`);--> statement-breakpoint
CREATE INDEX `integrations_company` ON `integrations` (`company_id`,`id`);