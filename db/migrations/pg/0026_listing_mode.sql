ALTER TABLE "mcp_keys" ADD COLUMN "listing_mode" text;--> statement-breakpoint
ALTER TABLE "oauth_codes" ADD COLUMN "listing_mode" text;--> statement-breakpoint
ALTER TABLE "oauth_refresh_tokens" ADD COLUMN "listing_mode" text;--> statement-breakpoint
ALTER TABLE "oauth_tokens" ADD COLUMN "listing_mode" text;