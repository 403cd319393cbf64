ALTER TABLE `chat_conversations` ADD `ticket_number` integer;--> statement-breakpoint
ALTER TABLE `tickets` ADD `source_chat_number` integer;