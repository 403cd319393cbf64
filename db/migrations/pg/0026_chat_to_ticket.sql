ALTER TABLE "chat_conversations" ADD COLUMN "ticket_number" bigint;--> statement-breakpoint
ALTER TABLE "tickets" ADD COLUMN "source_chat_number" bigint;