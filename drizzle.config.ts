import { defineConfig } from "drizzle-kit";

// Every table lives beside the code that owns it, in a file named tables.ts.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/**/tables.ts",
  out: "./db/migrations",
});
