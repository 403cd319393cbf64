ALTER TABLE `mcp_keys` ADD `listing_mode` text;--> statement-breakpoint
ALTER TABLE `oauth_codes` ADD `listing_mode` text;--> statement-breakpoint
ALTER TABLE `oauth_refresh_tokens` ADD `listing_mode` text;--> statement-breakpoint
ALTER TABLE `oauth_tokens` ADD `listing_mode` text;