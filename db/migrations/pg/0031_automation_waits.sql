ALTER TABLE "automation_runs" ADD COLUMN "cursor" json;--> statement-breakpoint
ALTER TABLE "automation_runs" ADD COLUMN "resume_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "automation_runs_resume" ON "automation_runs" USING btree ("status","resume_at");