/**
 * A small real world for the chat verbs: a fresh store on this run's engine,
 * Acme (owner Olga, admin Ada, viewer Vic) with a site and an inbox, the
 * other tenant Rival (owner Rita) with its own; ActorContexts; tool calls
 * through each tool's own schema, as the MCP adapter makes them; and the
 * visitor side (what the widget's API calls) through the same verbs.
 */
import { asc, eq } from "drizzle-orm";
import * as v from "valibot";
import { loadConfig } from "../../src/config";
import { dbBlobStore } from "../../src/core/blobs-db";
import { ManualClock } from "../../src/core/clock";
import type { ActorContext, Deps } from "../../src/core/context";
import { AppError } from "../../src/core/errors";
import { events } from "../../src/core/tables";
import { companies, mcpKeys, memberships, users, type Role } from "../../src/domains/accounts/tables";
import { chatDomain } from "../../src/domains/chat/tools";
import { chatInboxes } from "../../src/domains/chat/tables";
import { visitorByToken, visitorPost } from "../../src/domains/chat/visitor";
import { sites } from "../../src/domains/sites/tables";
import { openTestStore } from "../db";

export interface CWorld {
  deps: Deps;
  clock: ManualClock;
  acme: number;
  rival: number;
  site: number;
  rivalSite: number;
  inbox: number;
  rivalInbox: number;
  users: { olga: number; ada: number; vic: number; rita: number };
  ctx(who?: "olga" | "ada" | "vic" | "rita", opts?: { scopes?: string[] }): ActorContext;
  call(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
  /** A visitor writes through the widget's verb; returns the token to keep writing as the same visitor. */
  visit(body: string, o?: { token?: string | null; inbox?: number; name?: string; email?: string }): Promise<{ token: string; conversation: number; messageId: number }>;
  events(type?: string): Promise<{ id: number; type: string; companyId: number; entityId: number; data: any; userId: number | null }[]>;
  close(): Promise<void>;
}

export async function makeChatWorld(start = Date.UTC(2025, 0, 15, 12, 0, 0)): Promise<CWorld> {
  const store = await openTestStore();
  const clock = new ManualClock(start);
  const deps: Deps = { store, db: store.db, config: { ...loadConfig({}, {}), dataDir: ":memory:" }, clock, redis: null, blobs: dbBlobStore(store) };
  const db = store.db;
  const user = async (email: string, name: string) => (await db.insert(users).values({ email, name }).returning())[0]!;
  const olga = await user("olga@acme.test", "Olga Owner");
  const ada = await user("ada@acme.test", "Ada Admin");
  const vic = await user("vic@acme.test", "Vic Viewer");
  const rita = await user("rita@rival.test", "Rita Rival");
  const acme = (await db.insert(companies).values({ name: "Acme" }).returning())[0]!;
  const rival = (await db.insert(companies).values({ name: "Rival" }).returning())[0]!;
  await db.insert(memberships).values([
    { companyId: acme.id, userId: olga.id, role: "owner" },
    { companyId: acme.id, userId: ada.id, role: "admin" },
    { companyId: acme.id, userId: vic.id, role: "viewer" },
    { companyId: rival.id, userId: rita.id, role: "owner" },
  ]);
  const site = (await db.insert(sites).values({ companyId: acme.id, name: "Acme Coffee", domain: "acme-coffee.test" }).returning())[0]!;
  const rivalSite = (await db.insert(sites).values({ companyId: rival.id, name: "Rival Tea" }).returning())[0]!;
  const key = (await db
    .insert(mcpKeys)
    .values({ userId: olga.id, name: "test key", hint: "svc_mcp_test", secretHash: "0".repeat(64), scopes: ["*"], companyIds: [acme.id] })
    .returning())[0]!;
  const people = {
    olga: { id: olga.id, company: acme, role: "owner" as Role },
    ada: { id: ada.id, company: acme, role: "admin" as Role },
    vic: { id: vic.id, company: acme, role: "viewer" as Role },
    rita: { id: rita.id, company: rival, role: "owner" as Role },
  };
  const ctx = (who: keyof typeof people = "olga", opts: { scopes?: string[] } = {}): ActorContext => {
    const p = people[who];
    const c = { id: p.company.id, name: p.company.name, role: p.role };
    return {
      deps,
      principal: { userId: p.id, credential: { kind: "mcp_key", id: key.id, name: "test key" }, scopes: opts.scopes ?? ["*"], companies: [c], requireCmsApproval: false },
      company: c,
      requestId: "test",
    };
  };
  const call = async (name: string, args: Record<string, unknown>, c = ctx()): Promise<any> => {
    const tool = chatDomain.tools.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    const parsed = v.safeParse(tool.input, args);
    if (!parsed.success) throw new AppError("validation", parsed.issues.map((i) => `${v.getDotPath(i) ?? ""}: ${i.message}`).join("; "));
    return await tool.run(c, parsed.output);
  };
  const inbox = (await call("chat_inboxes_create", { siteId: site.id, name: "Website chat", greeting: "Hello from Acme" })).id as number;
  const rivalInbox = (await call("chat_inboxes_create", { siteId: rivalSite.id, name: "Rival chat" }, ctx("rita"))).id as number;
  return {
    deps,
    clock,
    acme: acme.id,
    rival: rival.id,
    site: site.id,
    rivalSite: rivalSite.id,
    inbox,
    rivalInbox,
    users: { olga: olga.id, ada: ada.id, vic: vic.id, rita: rita.id },
    ctx,
    call,
    async visit(body, o = {}) {
      const row = (await db.select().from(chatInboxes).where(eq(chatInboxes.id, o.inbox ?? inbox)).limit(1))[0]!;
      const visitor = await visitorByToken(deps, row, o.token ?? null);
      if (o.token && !visitor) throw new Error("unknown visitor token");
      const r = await visitorPost(deps, row, visitor, { body, name: o.name, email: o.email });
      return { token: r.token ?? o.token!, conversation: r.conversation, messageId: r.message.id };
    },
    async events(type) {
      const rows = await db.select().from(events).where(type ? eq(events.type, type) : undefined).orderBy(asc(events.id));
      return rows.map((r) => ({ id: r.id, type: r.type, companyId: r.companyId, entityId: r.entityId, data: r.data, userId: r.userId }));
    },
    close: () => store.close(),
  };
}

export { errorOf } from "../store/world";
