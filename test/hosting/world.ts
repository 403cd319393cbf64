/**
 * A small agency for verb-level tests of hosting and billing: a fresh store
 * (real migrations, this run's engine), company Acme (owner, admin, viewer)
 * with a site, and a rival company with its own site. Tools are called as
 * the MCP adapter calls them: arguments validated by the tool's schema,
 * then the verb, which checks scope and role itself.
 */
import * as v from "valibot";
import { loadConfig, type Config } from "../../src/config";
import { dbBlobStore } from "../../src/core/blobs-db";
import { ManualClock } from "../../src/core/clock";
import type { ActorContext, CredentialKind, Deps } from "../../src/core/context";
import type { Store } from "../../src/core/db";
import { AppError } from "../../src/core/errors";
import { JobRunner } from "../../src/core/jobs";
import { buildRegistry } from "../../src/mcp/registry";
import type { Domain } from "../../src/mcp/define";
import { domains } from "../../src/domains";
import { companies, memberships, users, type Role } from "../../src/domains/accounts/tables";
import { sites } from "../../src/domains/sites/tables";
import { openTestStore } from "../db";

buildRegistry(domains);

export interface World {
  deps: Deps;
  store: Store;
  clock: ManualClock;
  companyId: number;
  otherCompanyId: number;
  siteId: number;
  otherSiteId: number;
  users: { owner: number; admin: number; viewer: number; outsider: number };
  ctx(opts?: { role?: Role; scopes?: string[]; company?: "mine" | "other"; as?: number; kind?: CredentialKind }): ActorContext;
  call(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
  err(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<AppError>;
  jobs(): Promise<JobRunner>;
  close(): Promise<void>;
}

export async function makeWorld(domain: Domain | Domain[], opts: { start?: Date; config?: Partial<Config> } = {}): Promise<World> {
  const store = await openTestStore();
  const clock = new ManualClock(opts.start ?? new Date("2026-03-02T09:00:00Z"));
  const deps: Deps = { store, db: store.db, config: { ...loadConfig({}, {}), dataDir: ":memory:", publicUrl: "https://plinth.test", ...opts.config }, clock, redis: null, blobs: dbBlobStore(store) };
  const db = store.db;
  const u = async (email: string, name: string) => (await db.insert(users).values({ email, name }).returning())[0]!.id;
  const owner = await u("ada@acme.test", "Ada Owner");
  const admin = await u("priya@acme.test", "Priya Admin");
  const viewer = await u("vic@acme.test", "Vic Viewer");
  const outsider = await u("mallory@rival.test", "Mallory");
  const mine = (await db.insert(companies).values({ name: "Acme" }).returning())[0]!;
  const other = (await db.insert(companies).values({ name: "Rival" }).returning())[0]!;
  await db.insert(memberships).values([
    { companyId: mine.id, userId: owner, role: "owner" },
    { companyId: mine.id, userId: admin, role: "admin" },
    { companyId: mine.id, userId: viewer, role: "viewer" },
    { companyId: other.id, userId: outsider, role: "owner" },
  ]);
  const site = (await db.insert(sites).values({ companyId: mine.id, name: "Acme Site" }).returning())[0]!;
  const otherSite = (await db.insert(sites).values({ companyId: other.id, name: "Rival Site" }).returning())[0]!;
  const list = Array.isArray(domain) ? domain : [domain];
  const tools = new Map(list.flatMap((d) => d.tools).map((t) => [t.name, t]));

  const ctx: World["ctx"] = ({ role = "owner", scopes = ["*"], company = "mine", as, kind = "mcp_key" } = {}) => {
    const c = company === "mine" ? { id: mine.id, name: mine.name, role } : { id: other.id, name: other.name, role };
    return {
      deps,
      principal: { userId: as ?? (company === "mine" ? owner : outsider), credential: { kind, id: 1, name: "test" }, scopes, companies: [c], requireCmsApproval: false },
      company: c,
      requestId: "test",
    };
  };
  const call = async (name: string, args: Record<string, unknown>, c = ctx()) => {
    const tool = tools.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    const parsed = v.safeParse(tool.input, args);
    if (!parsed.success) throw new AppError("validation", parsed.issues.map((i) => `${v.getDotPath(i) ?? ""}: ${i.message}`).join("; "));
    return await tool.run(c, parsed.output);
  };
  const err = async (name: string, args: Record<string, unknown>, c = ctx()) => {
    try {
      await call(name, args, c);
    } catch (e) {
      if (e instanceof AppError) return e;
      throw e;
    }
    throw new Error(`expected ${name} to fail`);
  };
  const jobs = async () => {
    const r = new JobRunner(deps, list.flatMap((d) => d.jobs ?? []));
    await r.init();
    return r;
  };
  return {
    deps,
    store,
    clock,
    companyId: mine.id,
    otherCompanyId: other.id,
    siteId: site.id,
    otherSiteId: otherSite.id,
    users: { owner, admin, viewer, outsider },
    ctx,
    call,
    err,
    jobs,
    close: () => store.close(),
  };
}
