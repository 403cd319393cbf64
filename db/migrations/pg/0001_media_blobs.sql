CREATE TABLE "media_blobs" (
	"key" text PRIMARY KEY NOT NULL,
	"bytes" "bytea" NOT NULL,
	"size" bigint NOT NULL,
	"content_type" text NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
-- Media files are compressed already: keep the bytes uncompressed, so a range read (substr) fetches only the chunks it needs.
ALTER TABLE "media_blobs" ALTER COLUMN "bytes" SET STORAGE EXTERNAL;
