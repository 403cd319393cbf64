/**
 * Every table of the schema in one namespace, for tests that read many of
 * them (`import * as t from "../tables"`). The application has no such
 * list: each domain owns its tables.ts, and drizzle-kit finds them all by
 * the `src/**\/tables.ts` glob.
 */
export * from "../src/core/tables";
export * from "../src/domains/accounts/tables";
export * from "../src/domains/sites/tables";
export * from "../src/domains/cms/tables";
export * from "../src/domains/store/tables";
export * from "../src/domains/branding/tables";
export * from "../src/domains/services/tables";
export * from "../src/domains/approvals/tables";
export * from "../src/portal/tables";
