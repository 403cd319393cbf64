import { defineConfig } from "drizzle-kit";

// The same tables.ts files as drizzle.config.ts, built for PostgreSQL
// (src/core/engine.ts reads PLINTH_ENGINE before any table is defined).
process.env.PLINTH_ENGINE = "pg";
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/**/tables.ts",
  out: "./db/migrations/pg",
});
