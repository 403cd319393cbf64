import { defineConfig } from "drizzle-kit";

// Every table lives beside the code that owns it, in a file named tables.ts,
// written once with src/core/columns.ts; this config builds them for SQLite.
// drizzle.pg.config.ts builds the same files for PostgreSQL.
process.env.PLINTH_ENGINE = "sqlite";
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/**/tables.ts",
  out: "./db/migrations/sqlite",
});
