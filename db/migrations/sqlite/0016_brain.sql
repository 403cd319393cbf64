CREATE TABLE `brain_chunks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`record_id` integer NOT NULL,
	`ordinal` integer NOT NULL,
	`text` text NOT NULL,
	`state` text DEFAULT 'pending' NOT NULL,
	`embedding` text,
	`model` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`last_error` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`record_id`) REFERENCES `brain_records`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `brain_chunks_record` ON `brain_chunks` (`record_id`);--> statement-breakpoint
CREATE INDEX `brain_chunks_queue` ON `brain_chunks` (`state`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `brain_chunks_company` ON `brain_chunks` (`company_id`,`state`);--> statement-breakpoint
CREATE TABLE `brain_records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`body` text DEFAULT '' NOT NULL,
	`data` text NOT NULL,
	`search_text` text DEFAULT '' NOT NULL,
	`title_key` text NOT NULL,
	`unique_key` text,
	`status` text,
	`person_id` integer,
	`due_date` text,
	`at` integer NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`created_by_user_id` integer,
	`updated_by_user_id` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`updated_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `brain_records_company_kind` ON `brain_records` (`company_id`,`kind`,`updated_at`);--> statement-breakpoint
CREATE INDEX `brain_records_company_title` ON `brain_records` (`company_id`,`title_key`);--> statement-breakpoint
CREATE INDEX `brain_records_company_person` ON `brain_records` (`company_id`,`person_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `brain_records_company_unique` ON `brain_records` (`company_id`,`unique_key`);--> statement-breakpoint
CREATE INDEX `brain_records_search_filter` ON `brain_records` (`id`,`company_id`,`kind`,`at`,`created_by_user_id`);--> statement-breakpoint
CREATE TABLE `brain_refs` (
	`company_id` integer NOT NULL,
	`from_id` integer NOT NULL,
	`target` text NOT NULL,
	PRIMARY KEY(`from_id`, `target`),
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`from_id`) REFERENCES `brain_records`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `brain_refs_target` ON `brain_refs` (`company_id`,`target`);--> statement-breakpoint
CREATE TABLE `brain_relations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`from_id` integer NOT NULL,
	`to_id` integer NOT NULL,
	`type` text NOT NULL,
	`created_by_user_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`from_id`) REFERENCES `brain_records`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`to_id`) REFERENCES `brain_records`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `brain_relations_edge` ON `brain_relations` (`from_id`,`to_id`,`type`);--> statement-breakpoint
CREATE INDEX `brain_relations_to` ON `brain_relations` (`to_id`,`type`);--> statement-breakpoint
CREATE INDEX `brain_relations_company` ON `brain_relations` (`company_id`,`type`);--> statement-breakpoint
CREATE TABLE `brain_review_policies` (
	`company_id` integer NOT NULL,
	`credential_kind` text NOT NULL,
	`credential_id` integer NOT NULL,
	`review` integer NOT NULL,
	`updated_by_user_id` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`company_id`, `credential_kind`, `credential_id`),
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `brain_revisions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`record_id` integer NOT NULL,
	`kind` text NOT NULL,
	`version` integer NOT NULL,
	`action` text NOT NULL,
	`title` text NOT NULL,
	`body` text NOT NULL,
	`data` text NOT NULL,
	`changed` text NOT NULL,
	`user_id` integer,
	`credential_kind` text,
	`credential_id` integer,
	`credential_name` text,
	`review_id` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `brain_revisions_record` ON `brain_revisions` (`record_id`,`version`);--> statement-breakpoint
CREATE INDEX `brain_revisions_company` ON `brain_revisions` (`company_id`,`created_at`);--> statement-breakpoint
-- Hand-written (drizzle cannot declare it): the brain's full-text index, an FTS5 table over brain_records' title and search_text, kept in the writer's transaction by triggers.
CREATE VIRTUAL TABLE `brain_fts` USING fts5(title, search_text, content='brain_records', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `brain_records_fts_insert` AFTER INSERT ON `brain_records` BEGIN
  INSERT INTO brain_fts(rowid, title, search_text) VALUES (new.id, new.title, new.search_text);
END;
--> statement-breakpoint
CREATE TRIGGER `brain_records_fts_delete` AFTER DELETE ON `brain_records` BEGIN
  INSERT INTO brain_fts(brain_fts, rowid, title, search_text) VALUES ('delete', old.id, old.title, old.search_text);
END;
--> statement-breakpoint
CREATE TRIGGER `brain_records_fts_update` AFTER UPDATE OF title, search_text ON `brain_records` BEGIN
  INSERT INTO brain_fts(brain_fts, rowid, title, search_text) VALUES ('delete', old.id, old.title, old.search_text);
  INSERT INTO brain_fts(rowid, title, search_text) VALUES (new.id, new.title, new.search_text);
END;
