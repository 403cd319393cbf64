ALTER TABLE `email_lists` ADD `signup_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `email_lists_signup` ON `email_lists` (`signup_key`);