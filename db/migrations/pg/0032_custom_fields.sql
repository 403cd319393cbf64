ALTER TABLE "post_types" ADD COLUMN "fields" json;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "fields" json;