/**
 * The demo's AI side, per company: agents' conversations (an OAuth client
 * at work, one session that hit errors, one that minted an
 * approval), a credit ledger (a grant, then email sends, PDF exports and
 * embeddings, each with the balance after; Harbor's cancelled campaign got
 * its unsent recipients' credits back as a refund), a monthly budget, and the
 * connected integrations those conversations came through with their
 * health (an OAuth AI client per company, the object storage check).
 * The OAuth tokens are hashes of secrets nobody holds.
 */
import { randomHex, sha256Hex } from "../../core/secrets";
import { desc, eq } from "drizzle-orm";
import { oauthClients, oauthRefreshTokens, oauthTokens } from "../accounts/tables";
import { approvalLinks } from "../approvals/tables";
import { summariseArgs } from "./redact";
import { aiConversations, aiCreditAccounts, aiCreditBudgets, aiCreditLedger, aiToolCalls } from "./tables";
import { monthStart } from "./credits";
import { integrationHealth } from "../integrations/tables";
import type { DemoPart, DemoWorld } from "../../mcp/define";

type Call = {
  tool: string;
  toolset: string;
  args: Record<string, unknown>;
  error?: string;
  approvalId?: number;
  ms: number;
  minutesIn: number;
};

async function conversation(
  w: DemoWorld,
  o: {
    companyId: number;
    userId: number;
    kind: "oauth" | "mcp_key";
    credentialId: number;
    clientName: string;
    oauthClientId?: string;
    session?: string;
    daysAgo: number;
    hoursAgo: number;
    calls: Call[];
  },
) {
  const start = w.at(o.daysAgo, o.hoursAgo);
  const at = (m: number) => new Date(start.getTime() + m * 60_000);
  const last = at(Math.max(...o.calls.map((c) => c.minutesIn)));
  const tools = [...new Set(o.calls.map((c) => c.tool))];
  const conv = (
    await w.tx
      .insert(aiConversations)
      .values({
        companyId: o.companyId,
        userId: o.userId,
        credentialKind: o.kind,
        credentialId: o.credentialId,
        clientName: o.clientName,
        oauthClientId: o.oauthClientId ?? null,
        sessionKey: o.session ?? null,
        startedAt: start,
        lastCallAt: last,
        callCount: o.calls.length,
        errorCount: o.calls.filter((c) => c.error).length,
        approvalCount: o.calls.filter((c) => c.approvalId).length,
        totalDurationMs: o.calls.reduce((n, c) => n + c.ms, 0),
        tools,
      })
      .returning({ id: aiConversations.id })
  )[0]!;
  await w.tx.insert(aiToolCalls).values(
    o.calls.map((c) => ({
      conversationId: conv.id,
      companyId: o.companyId,
      userId: o.userId,
      credentialKind: o.kind,
      credentialId: o.credentialId,
      tool: c.tool,
      toolset: c.toolset,
      args: summariseArgs(c.args),
      status: c.error ? ("tool_error" as const) : ("ok" as const),
      error: c.error ?? null,
      durationMs: c.ms,
      approvalId: c.approvalId ?? null,
      requestId: randomHex(8),
      createdAt: at(c.minutesIn),
    })),
  );
}

/** An AI client connected over OAuth by `userId` to `companyId`; returns its current access token's id. */
async function oauthConnection(
  w: DemoWorld,
  o: { clientId: string; name: string; userId: number; companyId: number; scopes: string[]; daysAgo: number },
) {
  await w.tx
    .insert(oauthClients)
    .values({
      clientId: o.clientId,
      name: o.name,
      redirectUris: ["http://127.0.0.1:33418/callback"],
      tokenEndpointAuthMethod: "none",
      createdAt: w.at(o.daysAgo),
    })
    .onConflictDoNothing();
  const familyId = crypto.randomUUID();
  const now = w.clock.now();
  const common = {
    familyId,
    clientId: o.clientId,
    userId: o.userId,
    scopes: o.scopes,
    companyIds: [o.companyId],
    resource: null,
  };
  const token = (
    await w.tx
      .insert(oauthTokens)
      .values({
        ...common,
        tokenHash: sha256Hex(randomHex(32)),
        expiresAt: new Date(now.getTime() + 40 * 60_000),
        lastUsedAt: w.at(0, 1),
        createdAt: w.at(0, 1),
      })
      .returning({ id: oauthTokens.id })
  )[0]!;
  await w.tx.insert(oauthRefreshTokens).values({
    ...common,
    tokenHash: sha256Hex(randomHex(32)),
    expiresAt: new Date(now.getTime() + 29 * 86_400_000),
    createdAt: w.at(0, 1),
  });
  return token.id;
}

async function ledger(
  w: DemoWorld,
  companyId: number,
  grantedBy: number,
  entries: { daysAgo: number; amount: number; reason: string; ref?: string; note?: string; refund?: true }[],
) {
  let balance = 0;
  for (const e of entries) {
    balance += e.amount;
    await w.tx.insert(aiCreditLedger).values({
      companyId,
      kind: e.refund ? "refund" : e.amount > 0 ? "grant" : "debit",
      amount: e.amount,
      balanceAfter: balance,
      reason: e.reason,
      ref: e.ref ?? null,
      note: e.note ?? null,
      userId: e.amount > 0 && !e.refund ? grantedBy : null,
      createdAt: w.at(e.daysAgo, 2),
    });
  }
  await w.tx.insert(aiCreditAccounts).values({ companyId, balance, updatedAt: w.clock.now() });
  return balance;
}

export const demoAi: DemoPart = async (w) => {
  const { companies, users } = w;
  const claude = await oauthConnection(w, {
    clientId: "plinth_client_demo_claude",
    name: "Claude Desktop",
    userId: users.demo,
    companyId: companies.northwind,
    scopes: ["sites:write", "approvals:read", "ai:read", "projects:write"],
    daysAgo: 21,
  });
  const cursor = await oauthConnection(w, {
    clientId: "plinth_client_demo_cursor",
    name: "Cursor",
    userId: users.maya,
    companyId: companies.harbor,
    scopes: ["store:read", "sites:read", "ai:read"],
    daysAgo: 9,
  });

  const zed = await oauthConnection(w, {
    clientId: "plinth_client_demo_zed",
    name: "Zed",
    userId: users.priya,
    companyId: companies.northwind,
    scopes: ["projects:read", "kanban:read", "time:read", "ai:read"],
    daysAgo: 14,
  });
  const pendingApproval =
    (
      await w.tx
        .select({ id: approvalLinks.id })
        .from(approvalLinks)
        .where(eq(approvalLinks.companyId, companies.northwind))
        .orderBy(desc(approvalLinks.id))
        .limit(1)
    )[0]?.id ?? undefined;

  // Northwind: a content session through Claude that drafted a post for approval, and a reporting session with a failed call.
  await conversation(w, {
    companyId: companies.northwind,
    userId: users.demo,
    kind: "oauth",
    credentialId: claude,
    clientName: "plinth_client_demo_claude",
    oauthClientId: "plinth_client_demo_claude",
    session: "session:9f2c1e7a-claude-desktop",
    daysAgo: 2,
    hoursAgo: 5,
    calls: [
      { tool: "whoami", toolset: "accounts", args: {}, ms: 3, minutesIn: 0 },
      {
        tool: "posts_list",
        toolset: "cms",
        args: { siteId: w.sites.northwind, status: "draft", limit: 20 },
        ms: 14,
        minutesIn: 1,
      },
      {
        tool: "posts_create",
        toolset: "cms",
        args: {
          siteId: w.sites.northwind,
          title: "Five lessons from our spring rebrand",
          blocks: [{}, {}, {}, {}, {}, {}],
        },
        approvalId: pendingApproval,
        ms: 41,
        minutesIn: 6,
      },
      { tool: "approvals_list", toolset: "approvals", args: { status: "pending" }, ms: 9, minutesIn: 7 },
    ],
  });
  await conversation(w, {
    companyId: companies.northwind,
    userId: users.priya,
    kind: "oauth",
    credentialId: zed,
    clientName: "plinth_client_demo_zed",
    oauthClientId: "plinth_client_demo_zed",
    daysAgo: 1,
    hoursAgo: 3,
    calls: [
      { tool: "cards_list", toolset: "kanban", args: { project: "WEB", status: "open" }, ms: 18, minutesIn: 0 },
      {
        tool: "timesheet_get",
        toolset: "time",
        args: { week: "last", groupBy: "project" },
        ms: 22,
        minutesIn: 2,
        error: 'Invalid arguments: unknown argument "groupBy"; accepted: week, userId',
      },
      { tool: "timesheet_get", toolset: "time", args: { week: "last" }, ms: 19, minutesIn: 3 },
      { tool: "ai_credits_usage", toolset: "ai", args: { groupBy: "reason" }, ms: 6, minutesIn: 5 },
    ],
  });
  // Harbor: Maya's Cursor session on the store.
  await conversation(w, {
    companyId: companies.harbor,
    userId: users.maya,
    kind: "oauth",
    credentialId: cursor,
    clientName: "plinth_client_demo_cursor",
    oauthClientId: "plinth_client_demo_cursor",
    daysAgo: 0,
    hoursAgo: 2,
    calls: [
      {
        tool: "products_list",
        toolset: "store",
        args: { siteId: w.sites.harbor, status: "active", limit: 50 },
        ms: 16,
        minutesIn: 0,
      },
      {
        tool: "products_get",
        toolset: "store",
        args: { siteId: w.sites.harbor, slug: "ethiopia-yirgacheffe" },
        ms: 8,
        minutesIn: 1,
      },
      {
        tool: "orders_list",
        toolset: "store",
        args: { siteId: w.sites.harbor, status: "paid", since: "2026-01-01T00:00:00Z" },
        ms: 25,
        minutesIn: 4,
      },
    ],
  });

  await ledger(w, companies.northwind, users.demo, [
    { daysAgo: 40, amount: 5000, reason: "grant", note: "Quarterly AI allowance" },
    { daysAgo: 30, amount: -120, reason: "email.send", ref: "campaign:spring-newsletter" },
    { daysAgo: 18, amount: -45, reason: "pdf.export", ref: "deck:pitch-q2" },
    { daysAgo: 9, amount: -600, reason: "embedding", ref: "brain:handbook" },
    { daysAgo: 3, amount: -80, reason: "email.send", ref: "campaign:case-study" },
    { daysAgo: 1, amount: -10, reason: "pdf.export", ref: "deck:harbor-proposal" },
  ]);
  await ledger(w, companies.harbor, users.demo, [
    { daysAgo: 25, amount: 1000, reason: "grant", note: "Starter credits" },
    { daysAgo: 12, amount: -240, reason: "email.send", ref: "campaign:holiday-blend" },
    // A weekend offer scheduled for 60 subscribers and cancelled after 18 went out: the 42 unsent came back.
    { daysAgo: 6, amount: -60, reason: "email.send", ref: "campaign:weekend-offer" },
    {
      daysAgo: 5,
      amount: 42,
      reason: "email.send",
      ref: "campaign:weekend-offer",
      note: "Recipients of the campaign that were paid for and not sent",
      refund: true,
    },
    { daysAgo: 2, amount: -30, reason: "embedding", ref: "brain:brew-guides" },
  ]);
  // This month's Northwind spending against its budget (the debits since the month began).
  const start = monthStart(w.clock.now());
  const monthly = (
    await w.tx
      .select({ amount: aiCreditLedger.amount, at: aiCreditLedger.createdAt, kind: aiCreditLedger.kind })
      .from(aiCreditLedger)
      .where(eq(aiCreditLedger.companyId, companies.northwind))
  )
    .filter((r) => r.kind === "debit" && r.at >= start)
    .reduce((n, r) => n - r.amount, 0);
  await w.tx.insert(aiCreditBudgets).values({
    companyId: companies.northwind,
    monthlyLimit: 1500,
    thresholds: [50, 80, 100],
    hard: false,
    periodStart: start,
    spent: monthly,
    notifiedPercent: 0,
    createdAt: w.at(40),
    updatedAt: w.clock.now(),
  });

  await w.tx.insert(integrationHealth).values({
    kind: "object_storage",
    lastCheckedAt: w.at(0, 0),
    lastSuccessAt: w.at(0, 0),
    lastErrorAt: w.at(6, 4),
    lastError: "timeout writing _health/probe (storage briefly unreachable)",
  });
};
