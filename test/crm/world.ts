/**
 * A small real world for the crm verbs: a fresh store on this run's
 * engine, two companies ("Acme" and the other tenant "Rival"), Acme's owner
 * Olga, admin Ada and viewer Vic, Rival's owner Rita; ActorContexts for any
 * of them; tool calls through each tool's own schema, as the MCP adapter
 * makes them.
 */
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { loadConfig } from "../../src/config";
import { dbBlobStore } from "../../src/core/blobs-db";
import { ManualClock } from "../../src/core/clock";
import type { ActorContext, Deps } from "../../src/core/context";
import { AppError } from "../../src/core/errors";
import { events } from "../../src/core/tables";
import { companies, mcpKeys, memberships, users, type Role } from "../../src/domains/accounts/tables";
import { domains } from "../../src/domains";
import { openTestStore } from "../db";
import { asc } from "drizzle-orm";

export interface CWorld {
  deps: Deps;
  clock: ManualClock;
  acme: number;
  rival: number;
  users: { olga: number; ada: number; vic: number; rita: number };
  /** Olga (owner) by default. */
  ctx(who?: "olga" | "ada" | "vic" | "rita", opts?: { scopes?: string[] }): ActorContext;
  call(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
  events(type?: string): Promise<{ id: number; type: string; companyId: number; entityId: number; data: any; userId: number | null }[]>;
  /** Runs one domain job now (as the job runner would). */
  runJob(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function makeCrmWorld(start = Date.UTC(2025, 0, 15, 12, 0, 0)): Promise<CWorld> {
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
  return {
    deps,
    clock,
    acme: acme.id,
    rival: rival.id,
    users: { olga: olga.id, ada: ada.id, vic: vic.id, rita: rita.id },
    ctx,
    async call(name, args, c = ctx()) {
      // Every domain's tools: the timeline reads tickets made through the tickets tools.
      const tool = domains.flatMap((d) => d.tools).find((t) => t.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      const parsed = v.safeParse(tool.input, args);
      if (!parsed.success) throw new AppError("validation", parsed.issues.map((i) => `${v.getDotPath(i) ?? ""}: ${i.message}`).join("; "));
      return await tool.run(c, parsed.output);
    },
    async events(type) {
      const rows = await db.select().from(events).where(type ? eq(events.type, type) : undefined).orderBy(asc(events.id));
      return rows.map((r) => ({ id: r.id, type: r.type, companyId: r.companyId, entityId: r.entityId, data: r.data, userId: r.userId }));
    },
    async runJob(name) {
      const job = domains.flatMap((d) => d.jobs ?? []).find((j) => j.name === name);
      if (!job) throw new Error(`no job ${name}`);
      await job.run(deps);
    },
    close: () => store.close(),
  };
}

export { errorOf } from "../store/world";
