CREATE TABLE `board_columns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`board_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`state_group` text NOT NULL,
	`wip_limit` integer,
	`position` integer NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`board_id`) REFERENCES `boards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `board_columns_board` ON `board_columns` (`board_id`,`position`);--> statement-breakpoint
CREATE TABLE `boards` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `boards_project` ON `boards` (`project_id`,`position`);--> statement-breakpoint
CREATE TABLE `card_activity` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`card_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`user_id` integer,
	`action` text NOT NULL,
	`detail` text NOT NULL,
	`sprint_id` integer,
	`estimate` integer,
	`state_group` text NOT NULL,
	`at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `card_activity_card` ON `card_activity` (`card_id`,`at`);--> statement-breakpoint
CREATE INDEX `card_activity_sprint` ON `card_activity` (`sprint_id`,`card_id`);--> statement-breakpoint
CREATE INDEX `card_activity_project` ON `card_activity` (`project_id`,`at`);--> statement-breakpoint
CREATE TABLE `card_assignees` (
	`card_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`card_id`, `user_id`),
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `card_assignees_user` ON `card_assignees` (`user_id`);--> statement-breakpoint
CREATE TABLE `card_attachments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`card_id` integer NOT NULL,
	`media_id` integer NOT NULL,
	`added_by_user_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`media_id`) REFERENCES `media`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`added_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `card_attachments_card_media` ON `card_attachments` (`card_id`,`media_id`);--> statement-breakpoint
CREATE INDEX `card_attachments_media` ON `card_attachments` (`media_id`);--> statement-breakpoint
CREATE TABLE `card_comments` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`card_id` integer NOT NULL,
	`author_user_id` integer,
	`body` text NOT NULL,
	`mentioned_user_ids` text NOT NULL,
	`edited_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `card_comments_card` ON `card_comments` (`card_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `card_labels` (
	`card_id` integer NOT NULL,
	`label_id` integer NOT NULL,
	PRIMARY KEY(`card_id`, `label_id`),
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`label_id`) REFERENCES `project_labels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `card_labels_label` ON `card_labels` (`label_id`);--> statement-breakpoint
CREATE TABLE `card_recurrences` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`template` text NOT NULL,
	`frequency` text NOT NULL,
	`interval` integer DEFAULT 1 NOT NULL,
	`weekdays` text NOT NULL,
	`month_day` integer,
	`week_of_month` integer,
	`time_of_day` text NOT NULL,
	`time_zone` text NOT NULL,
	`start_date` text NOT NULL,
	`end_date` text,
	`catch_up` text DEFAULT 'all' NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`next_date` text,
	`next_at` integer,
	`last_date` text,
	`created_by_user_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `card_recurrences_due` ON `card_recurrences` (`active`,`next_at`);--> statement-breakpoint
CREATE INDEX `card_recurrences_project` ON `card_recurrences` (`project_id`);--> statement-breakpoint
CREATE TABLE `card_relations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`from_card_id` integer NOT NULL,
	`to_card_id` integer NOT NULL,
	`kind` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`from_card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`to_card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `card_relations_pair` ON `card_relations` (`from_card_id`,`to_card_id`,`kind`);--> statement-breakpoint
CREATE INDEX `card_relations_to` ON `card_relations` (`to_card_id`);--> statement-breakpoint
CREATE TABLE `cards` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`number` integer NOT NULL,
	`board_id` integer NOT NULL,
	`column_id` integer NOT NULL,
	`position` integer NOT NULL,
	`title` text NOT NULL,
	`description` text,
	`priority` integer DEFAULT 0 NOT NULL,
	`estimate` integer,
	`due_date` text,
	`parent_id` integer,
	`milestone_id` integer,
	`sprint_id` integer,
	`recurrence_id` integer,
	`occurrence` text,
	`created_by_user_id` integer,
	`completed_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`board_id`) REFERENCES `boards`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`column_id`) REFERENCES `board_columns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`milestone_id`) REFERENCES `milestones`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`sprint_id`) REFERENCES `sprints`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`recurrence_id`) REFERENCES `card_recurrences`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cards_project_number` ON `cards` (`project_id`,`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `cards_column_position` ON `cards` (`column_id`,`position`);--> statement-breakpoint
CREATE UNIQUE INDEX `cards_recurrence_occurrence` ON `cards` (`recurrence_id`,`occurrence`);--> statement-breakpoint
CREATE INDEX `cards_project_updated` ON `cards` (`project_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `cards_sprint` ON `cards` (`sprint_id`);--> statement-breakpoint
CREATE INDEX `cards_parent` ON `cards` (`parent_id`);--> statement-breakpoint
CREATE INDEX `cards_company` ON `cards` (`company_id`);--> statement-breakpoint
CREATE TABLE `card_checklist_items` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`card_id` integer NOT NULL,
	`text` text NOT NULL,
	`done` integer DEFAULT false NOT NULL,
	`position` integer NOT NULL,
	`done_at` integer,
	`done_by_user_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`done_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `card_checklist_card` ON `card_checklist_items` (`card_id`,`position`);--> statement-breakpoint
CREATE TABLE `milestones` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`target_date` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `milestones_project` ON `milestones` (`project_id`);--> statement-breakpoint
CREATE TABLE `project_labels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`color` text NOT NULL,
	`description` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `project_labels_project_name` ON `project_labels` (`project_id`,`name_key`);--> statement-breakpoint
CREATE TABLE `project_members` (
	`project_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `user_id`),
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `project_members_user` ON `project_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`key` text NOT NULL,
	`former_keys` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`status` text DEFAULT 'active' NOT NULL,
	`health` text,
	`lead_user_id` integer,
	`start_date` text,
	`target_date` text,
	`time_zone` text DEFAULT 'UTC' NOT NULL,
	`next_number` integer DEFAULT 1 NOT NULL,
	`archived_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`lead_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_company_key` ON `projects` (`company_id`,`key`);--> statement-breakpoint
CREATE INDEX `projects_company` ON `projects` (`company_id`,`archived_at`);--> statement-breakpoint
CREATE TABLE `sprints` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` integer NOT NULL,
	`name` text NOT NULL,
	`goal` text,
	`start_date` text NOT NULL,
	`end_date` text NOT NULL,
	`status` text DEFAULT 'planned' NOT NULL,
	`active_project_id` integer,
	`started_at` integer,
	`closed_at` integer,
	`carried_over` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sprints_one_active` ON `sprints` (`active_project_id`);--> statement-breakpoint
CREATE INDEX `sprints_project` ON `sprints` (`project_id`,`start_date`);--> statement-breakpoint
CREATE TABLE `time_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`project_id` integer NOT NULL,
	`card_id` integer,
	`sprint_id` integer,
	`user_id` integer NOT NULL,
	`minutes` integer NOT NULL,
	`worked_on` text NOT NULL,
	`note` text,
	`billable` integer DEFAULT true NOT NULL,
	`created_by_user_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`card_id`) REFERENCES `cards`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`sprint_id`) REFERENCES `sprints`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `time_logs_project` ON `time_logs` (`project_id`,`worked_on`);--> statement-breakpoint
CREATE INDEX `time_logs_user` ON `time_logs` (`company_id`,`user_id`,`worked_on`);--> statement-breakpoint
CREATE INDEX `time_logs_card` ON `time_logs` (`card_id`);--> statement-breakpoint
CREATE INDEX `time_logs_sprint` ON `time_logs` (`sprint_id`);