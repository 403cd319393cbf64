/** Every table, for drizzle's relational queries. Each domain owns its tables.ts. */
export * from "../domains/accounts/tables";
export * from "../domains/sites/tables";
export * from "../domains/cms/tables";
export * from "../domains/store/tables";
export * from "../domains/branding/tables";
export * from "../domains/services/tables";
export * from "../domains/approvals/tables";
export * from "../oauth/tables";
export * from "../portal/tables";
