/** The ai toolset: AI history (every MCP tool call, grouped into conversations) and AI credits. */
import { aiSettings } from "./settings";
import { demoAi } from "./demo";
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { getConversation, listConversations, searchConversations } from "./conversations";
import { creditRoutes, CREDITS_PATH } from "./portal";
import { creditBalance, creditLedger, creditUsage } from "./credits";
import { AI_EVENTS } from "./events";
import { flushToolCalls, observeToolCall } from "./recorder";
import { historyPruneJob } from "./retention";
import { idSchema as id } from "../../core/fields";

const date = v.pipe(v.string(), v.maxLength(40));

export const aiConversationsList = defineTool({
  name: "ai_conversations_list",
  toolset: "ai",
  scope: "ai:read",
  readOnly: true,
  title: "List AI conversations",
  description: "AI agent sessions, newest first, with person and counts.",
  input: v.object({
    email: v.optional(v.pipe(v.string(), v.maxLength(320))),
    tool: v.optional(v.pipe(v.string(), v.maxLength(128))),
    since: v.optional(date),
    until: v.optional(date),
    hasErrors: v.optional(v.boolean()),
    hasApprovals: v.optional(v.boolean()),
    ...pageInput,
  }),
  run: async (ctx, input) => {
    await flushToolCalls(ctx.deps);
    return await listConversations(ctx, input);
  },
});

export const aiConversationsGet = defineTool({
  name: "ai_conversations_get",
  toolset: "ai",
  scope: "ai:read",
  readOnly: true,
  title: "Get an AI conversation",
  description: "An AI conversation's tool calls in order (arguments redacted).",
  input: v.object({ id, status: v.optional(v.picklist(["ok", "error"])), ...pageInput }),
  run: async (ctx, input) => {
    await flushToolCalls(ctx.deps);
    return await getConversation(ctx, input);
  },
});

export const aiConversationsSearch = defineTool({
  name: "ai_conversations_search",
  toolset: "ai",
  scope: "ai:read",
  readOnly: true,
  title: "Search AI history",
  description: "AI conversations mentioning a tool, argument value or error.",
  input: v.object({
    query: v.pipe(v.string(), v.maxLength(200)),
    since: v.optional(date),
    until: v.optional(date),
    ...pageInput,
  }),
  run: async (ctx, input) => {
    await flushToolCalls(ctx.deps);
    return await searchConversations(ctx, input);
  },
});

export const aiCreditsBalance = defineTool({
  name: "ai_credits_balance",
  toolset: "ai",
  scope: "ai:read",
  readOnly: true,
  title: "AI credit balance",
  description: "The company's AI credit balance and monthly budget.",
  input: v.object({}),
  run: async (ctx) => await creditBalance(ctx),
});

export const aiCreditsLedger = defineTool({
  name: "ai_credits_ledger",
  toolset: "ai",
  scope: "ai:read",
  readOnly: true,
  title: "AI credit ledger",
  description: "AI credit grants, debits and refunds, newest first.",
  input: v.object({
    kind: v.optional(v.picklist(["grant", "debit", "refund"])),
    reason: v.optional(v.pipe(v.string(), v.maxLength(64))),
    ref: v.optional(v.pipe(v.string(), v.maxLength(200))),
    since: v.optional(date),
    until: v.optional(date),
    ...pageInput,
  }),
  run: async (ctx, input) => await creditLedger(ctx, input),
});

export const aiCreditsUsage = defineTool({
  name: "ai_credits_usage",
  toolset: "ai",
  scope: "ai:read",
  readOnly: true,
  title: "AI credit usage",
  description: "AI credits spent (default this UTC month) by reason or day.",
  input: v.object({
    from: v.optional(date),
    to: v.optional(date),
    groupBy: v.optional(v.picklist(["reason", "day"]), "reason"),
  }),
  run: async (ctx, input) => await creditUsage(ctx, input),
});

export const aiDomain: Domain = {
  settings: [aiSettings],
  demo: demoAi,
  scopes: [{ area: "ai", title: "AI history", words: { "ai:read": "read AI conversations and the credit balance" } }],
  name: "ai",
  title: "AI history and credits",
  description: "What AI agents did (tool calls grouped into conversations) and the company's AI credits.",
  vocabulary: {
    credits: ["credit"],
    tokens: ["credit"],
    budget: ["credit"],
    quota: ["credit"],
    agent: ["conversation"],
    assistant: ["conversation"],
    bot: ["conversation"],
    claude: ["conversation"],
    spent: ["usage"],
    spend: ["usage"],
    cost: ["usage"],
    left: ["balance"],
    remaining: ["balance"],
    did: ["conversation"],
  },
  tools: [
    aiConversationsList,
    aiConversationsGet,
    aiConversationsSearch,
    aiCreditsBalance,
    aiCreditsLedger,
    aiCreditsUsage,
  ],
  events: AI_EVENTS,
  toolCallObservers: [observeToolCall],
  jobs: [historyPruneJob],
  notificationTypes: [
    {
      type: "credits.budget_threshold",
      label: "Your company's AI credit spending reached a budget threshold",
      inApp: true,
      email: true,
    },
  ],
  portal: { routes: creditRoutes, nav: [{ href: CREDITS_PATH, label: "AI credits" }] },
};
