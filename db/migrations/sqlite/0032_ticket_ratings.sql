CREATE TABLE `ticket_ratings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`company_id` integer NOT NULL,
	`ticket_id` integer NOT NULL,
	`agent_id` integer,
	`asked_at` integer NOT NULL,
	`rating` text,
	`rated_at` integer,
	`comment` text,
	FOREIGN KEY (`company_id`) REFERENCES `companies`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`ticket_id`) REFERENCES `tickets`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`agent_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ticket_ratings_ticket` ON `ticket_ratings` (`ticket_id`);--> statement-breakpoint
CREATE INDEX `ticket_ratings_company_rated` ON `ticket_ratings` (`company_id`,`rated_at`);