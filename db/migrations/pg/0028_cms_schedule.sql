ALTER TABLE "posts" ADD COLUMN "unpublish_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "awaiting_go_live" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sites" ADD COLUMN "next_scheduled_at" timestamp (3) with time zone;