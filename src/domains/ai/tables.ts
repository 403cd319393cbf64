/**
 * AI history and AI credits.
 *
 * History: every MCP tools/call, recorded after it answered (recorder.ts),
 * grouped into conversations. A conversation is one client session: the
 * client's own id where it sends one (Mcp-Session-Id, a trace id in
 * params._meta), else a run of calls by one credential for one company
 * with no idle gap longer than IDLE_GAP_MS between them.
 *
 * Credits: one account row per company holding the balance (changed only
 * by a conditional UPDATE, so it never goes below zero however many debits
 * race), an append-only ledger with the balance after each entry, and an
 * optional monthly budget with alert thresholds.
 */
import { users } from "../../core/tables";
import { companies } from "../../core/tables";
import {
  bool,
  createdAt,
  id,
  index,
  integer,
  json,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "../../core/columns";

export const aiConversations = table(
  "ai_conversations",
  {
    id: id(),
    /** Null only for calls that settled no company (a refused clientId): such conversations are shown nowhere. */
    companyId: integer("company_id").references(() => companies.id, { onDelete: "cascade" }),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    credentialKind: text("credential_kind").notNull(),
    credentialId: integer("credential_id").notNull(),
    /** The OAuth client id (oauth credentials) or the API key's name. */
    clientName: text("client_name"),
    oauthClientId: text("oauth_client_id"),
    /** `session:<id>` / `trace:<id>` when the client sent one; null for conversations cut by idle gaps. */
    sessionKey: text("session_key"),
    startedAt: time("started_at").notNull(),
    lastCallAt: time("last_call_at").notNull(),
    callCount: integer("call_count").notNull().default(0),
    errorCount: integer("error_count").notNull().default(0),
    approvalCount: integer("approval_count").notNull().default(0),
    totalDurationMs: integer("total_duration_ms").notNull().default(0),
    /** Distinct tool names in order of first use (at most 50). */
    tools: json<string[]>("tools").notNull(),
  },
  (t) => [
    index("ai_conversations_company").on(t.companyId, t.lastCallAt),
    index("ai_conversations_credential").on(t.credentialKind, t.credentialId, t.companyId, t.lastCallAt),
    uniqueIndex("ai_conversations_session").on(t.credentialKind, t.credentialId, t.companyId, t.sessionKey),
  ],
);

export const aiToolCalls = table(
  "ai_tool_calls",
  {
    id: id(),
    conversationId: integer("conversation_id")
      .notNull()
      .references(() => aiConversations.id, { onDelete: "cascade" }),
    companyId: integer("company_id"),
    userId: integer("user_id"),
    credentialKind: text("credential_kind").notNull(),
    credentialId: integer("credential_id").notNull(),
    tool: text("tool").notNull(),
    toolset: text("toolset"),
    /** Redacted, bounded summary of the arguments (redact.ts): never secrets, never bodies in full. */
    args: text("args").notNull(),
    status: text("status").$type<"ok" | "tool_error" | "protocol_error">().notNull(),
    /** First characters of a tool error's message, redacted. */
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    /** The approval the call minted (its id, never the link's token). */
    approvalId: integer("approval_id"),
    requestId: text("request_id"),
    createdAt: time("created_at").notNull(),
  },
  (t) => [
    index("ai_tool_calls_conversation").on(t.conversationId, t.id),
    index("ai_tool_calls_company").on(t.companyId, t.createdAt),
    index("ai_tool_calls_credential").on(t.credentialKind, t.credentialId, t.createdAt),
  ],
);

export const aiCreditAccounts = table("ai_credit_accounts", {
  companyId: integer("company_id")
    .primaryKey()
    .references(() => companies.id, { onDelete: "cascade" }),
  balance: integer("balance").notNull(),
  updatedAt: updatedAt(),
});

export const aiCreditLedger = table(
  "ai_credit_ledger",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    kind: text("kind").$type<"grant" | "debit" | "refund">().notNull(),
    /** Signed: positive for grants and refunds, negative for debits. */
    amount: integer("amount").notNull(),
    balanceAfter: integer("balance_after").notNull(),
    /** What it was for: `grant`, `email.send`, `embedding`, `pdf.export`… (a refund carries its debit's reason and ref). */
    reason: text("reason").notNull(),
    /** What the operation acted on (`mail:42`, `deck:7`), for reconciling. */
    ref: text("ref"),
    note: text("note"),
    /** Who granted (a person), or whose action was metered; null for the system. */
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: time("created_at").notNull(),
  },
  (t) => [
    index("ai_credit_ledger_company").on(t.companyId, t.id),
    index("ai_credit_ledger_usage").on(t.companyId, t.kind, t.createdAt),
  ],
);

/**
 * A company's monthly budget (calendar months in UTC). `spent` counts the
 * current period's debits; thresholds (percent of the limit) notify the
 * company's owners and admins once per period each; `hard` refuses debits
 * that would pass the limit.
 */
export const aiCreditBudgets = table("ai_credit_budgets", {
  companyId: integer("company_id")
    .primaryKey()
    .references(() => companies.id, { onDelete: "cascade" }),
  monthlyLimit: integer("monthly_limit").notNull(),
  thresholds: json<number[]>("thresholds").notNull(),
  hard: bool("hard").notNull().default(false),
  periodStart: time("period_start").notNull(),
  spent: integer("spent").notNull().default(0),
  /** The highest threshold already notified in this period (0: none). */
  notifiedPercent: integer("notified_percent").notNull().default(0),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
