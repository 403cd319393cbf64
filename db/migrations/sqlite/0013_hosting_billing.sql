CREATE TABLE `billing_billed_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`source_type` text NOT NULL,
	`source_id` integer NOT NULL,
	`invoice_id` integer NOT NULL,
	FOREIGN KEY (`invoice_id`) REFERENCES `billing_invoices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `billing_billed_source` ON `billing_billed_items` (`source_type`,`source_id`);--> statement-breakpoint
CREATE INDEX `billing_billed_invoice` ON `billing_billed_items` (`invoice_id`);--> statement-breakpoint
CREATE TABLE `billing_counters` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `billing_invoice_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`invoice_id` integer NOT NULL,
	`position` integer NOT NULL,
	`kind` text NOT NULL,
	`description` text NOT NULL,
	`quantity` integer NOT NULL,
	`unit` text NOT NULL,
	`unit_amount_cents` integer NOT NULL,
	`amount_cents` integer NOT NULL,
	`period_start` integer,
	`period_end` integer,
	`source_type` text,
	`source_id` integer,
	FOREIGN KEY (`invoice_id`) REFERENCES `billing_invoices`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `billing_lines_invoice` ON `billing_invoice_lines` (`invoice_id`,`position`);--> statement-breakpoint
CREATE TABLE `billing_invoices` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`number` text,
	`sequence` integer,
	`status` text NOT NULL,
	`currency` text NOT NULL,
	`subscription_id` integer,
	`period_start` integer,
	`period_end` integer,
	`subtotal_cents` integer DEFAULT 0 NOT NULL,
	`tax_name` text,
	`tax_basis_points` integer DEFAULT 0 NOT NULL,
	`tax_cents` integer DEFAULT 0 NOT NULL,
	`total_cents` integer DEFAULT 0 NOT NULL,
	`payment_terms_days` integer NOT NULL,
	`memo` text,
	`issued_at` integer,
	`due_at` integer,
	`paid_at` integer,
	`payment_reference` text,
	`voided_at` integer,
	`created_by_user_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`subscription_id`) REFERENCES `billing_subscriptions`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `billing_invoices_number` ON `billing_invoices` (`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `billing_invoices_period` ON `billing_invoices` (`subscription_id`,`period_start`);--> statement-breakpoint
CREATE INDEX `billing_invoices_company` ON `billing_invoices` (`company_id`,`status`);--> statement-breakpoint
CREATE INDEX `billing_invoices_due` ON `billing_invoices` (`status`,`due_at`);--> statement-breakpoint
CREATE TABLE `billing_settings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`currency` text DEFAULT 'USD' NOT NULL,
	`hourly_rate_cents` integer,
	`tax_name` text,
	`tax_basis_points` integer DEFAULT 0 NOT NULL,
	`payment_terms_days` integer DEFAULT 14 NOT NULL,
	`seller_name` text DEFAULT 'Your agency' NOT NULL,
	`seller_details` text,
	`billing_address` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `billing_settings_company` ON `billing_settings` (`company_id`);--> statement-breakpoint
CREATE TABLE `billing_subscriptions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`plan_name` text NOT NULL,
	`unit_amount_cents` integer NOT NULL,
	`quantity` integer DEFAULT 1 NOT NULL,
	`currency` text NOT NULL,
	`interval` text NOT NULL,
	`interval_count` integer DEFAULT 1 NOT NULL,
	`anchor_at` integer NOT NULL,
	`periods_invoiced` integer DEFAULT 0 NOT NULL,
	`current_period_start` integer NOT NULL,
	`current_period_end` integer NOT NULL,
	`include_usage` integer DEFAULT true NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`canceled_at` integer,
	`created_by_user_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `billing_subscriptions_company` ON `billing_subscriptions` (`company_id`);--> statement-breakpoint
CREATE INDEX `billing_subscriptions_due` ON `billing_subscriptions` (`status`,`current_period_end`);--> statement-breakpoint
CREATE TABLE `hosting_checks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain_id` integer NOT NULL,
	`company_id` integer NOT NULL,
	`kind` text NOT NULL,
	`ok` integer NOT NULL,
	`status` text NOT NULL,
	`status_code` integer,
	`response_ms` integer,
	`error` text,
	`checked_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `site_domains`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `hosting_checks_domain` ON `hosting_checks` (`domain_id`,`kind`,`checked_at`);--> statement-breakpoint
CREATE INDEX `hosting_checks_time` ON `hosting_checks` (`checked_at`);--> statement-breakpoint
CREATE TABLE `hosting_domain_state` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain_id` integer NOT NULL,
	`site_id` integer NOT NULL,
	`company_id` integer NOT NULL,
	`hostname` text NOT NULL,
	`dns_status` text DEFAULT 'unknown' NOT NULL,
	`dns_required` text NOT NULL,
	`dns_found` text NOT NULL,
	`dns_error` text,
	`dns_checked_at` integer,
	`tls_status` text DEFAULT 'unknown' NOT NULL,
	`tls_issuer` text,
	`tls_subject` text,
	`tls_alt_names` text,
	`tls_valid_from` integer,
	`tls_expires_at` integer,
	`tls_error` text,
	`tls_checked_at` integer,
	`uptime_status` text DEFAULT 'unknown' NOT NULL,
	`last_status_code` integer,
	`last_response_ms` integer,
	`last_error` text,
	`last_checked_at` integer,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`failing_since` integer,
	`next_uptime_at` integer NOT NULL,
	`next_cert_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`domain_id`) REFERENCES `site_domains`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hosting_state_domain` ON `hosting_domain_state` (`domain_id`);--> statement-breakpoint
CREATE INDEX `hosting_state_company` ON `hosting_domain_state` (`company_id`);--> statement-breakpoint
CREATE INDEX `hosting_state_next` ON `hosting_domain_state` (`next_uptime_at`);--> statement-breakpoint
CREATE TABLE `hosting_incidents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`domain_id` integer NOT NULL,
	`site_id` integer NOT NULL,
	`company_id` integer NOT NULL,
	`hostname` text NOT NULL,
	`started_at` integer NOT NULL,
	`opened_at` integer NOT NULL,
	`resolved_at` integer,
	`cause` text NOT NULL,
	`failed_checks` integer NOT NULL,
	`open_key` integer,
	FOREIGN KEY (`domain_id`) REFERENCES `site_domains`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`site_id`) REFERENCES `sites`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `hosting_incidents_open` ON `hosting_incidents` (`open_key`);--> statement-breakpoint
CREATE INDEX `hosting_incidents_company` ON `hosting_incidents` (`company_id`,`started_at`);