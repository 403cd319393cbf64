ALTER TABLE "email_lists" ADD COLUMN "signup_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "email_lists_signup" ON "email_lists" USING btree ("signup_key");