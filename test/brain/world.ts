/**
 * A small agency for verb-level brain tests: a fresh store (real migrations,
 * this run's engine), company Acme with an owner (the actor), an admin, a
 * viewer, and a rival company with its own owner. Tools are called as the
 * MCP adapter calls them: arguments validated by the tool's own schema,
 * then its verb, which checks scope and role itself. (Copied from the
 * projects world, with the brain's tools and jobs.)
 */
import * as v from "valibot";
import { loadConfig, type Config } from "../../src/config";
import { dbBlobStore } from "../../src/core/blobs-db";
import { ManualClock } from "../../src/core/clock";
import type { ActorContext, Deps } from "../../src/core/context";
import type { Store } from "../../src/core/db";
import { AppError } from "../../src/core/errors";
import { JobRunner } from "../../src/core/jobs";
import { buildRegistry } from "../../src/mcp/registry";
import { domains } from "../../src/domains";
import { companies, mcpKeys, memberships, users, type Role } from "../../src/domains/accounts/tables";
import { media } from "../../src/domains/cms/tables";
import { brainDomain } from "../../src/domains/brain/tools";
import { workDomains } from "../../src/domains/projects/tools";
import { crmDomain } from "../../src/domains/crm/tools";
import { sites } from "../../src/domains/sites/tables";
import { openTestStore } from "../db";

// The registry lists every domain's events; emit refuses unlisted types.
buildRegistry(domains);

const tools = new Map([...workDomains, crmDomain, brainDomain].flatMap((d) => d.tools).map((t) => [t.name, t]));

export interface World {
  deps: Deps;
  store: Store;
  clock: ManualClock;
  companyId: number;
  otherCompanyId: number;
  users: { owner: number; priya: number; leo: number; outsider: number };
  mediaId: number;
  otherMediaId: number;
  /** The owner acting in Acme (or `as` another member, role, scopes, or the rival company). */
  ctx(opts?: { role?: Role; scopes?: string[]; company?: "mine" | "other"; as?: number; key?: "main" | "agent" | "session" }): ActorContext;
  /** The owner's second API key ("agent key"), for per-credential review settings. */
  agentKeyId: number;
  /** Calls a tool as the owner (or with `ctx`), returning its result. */
  call(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
  /** The AppError a call throws (fails when it succeeds). */
  err(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<AppError>;
  /** A job runner for this folder's jobs, initialised (its lease rows exist), not started. */
  jobs(): Promise<JobRunner>;
  close(): Promise<void>;
}

export async function makeWorld(opts: { start?: Date; store?: Store; config?: Partial<Config> } = {}): Promise<World> {
  const store = opts.store ?? (await openTestStore());
  const clock = new ManualClock(opts.start ?? new Date("2026-03-02T09:00:00Z"));
  const deps: Deps = { store, db: store.db, config: { ...loadConfig({}, {}), dataDir: ":memory:", ...opts.config }, clock, redis: null, blobs: dbBlobStore(store) };
  const db = store.db;
  const u = async (email: string, name: string) => (await db.insert(users).values({ email, name }).returning())[0]!.id;
  const owner = await u("ada@acme.test", "Ada Owner");
  const priya = await u("priya@acme.test", "Priya Shah");
  const leo = await u("leo@acme.test", "Leo Martin");
  const outsider = await u("mallory@rival.test", "Mallory");
  const mine = (await db.insert(companies).values({ name: "Acme" }).returning())[0]!;
  const other = (await db.insert(companies).values({ name: "Rival" }).returning())[0]!;
  await db.insert(memberships).values([
    { companyId: mine.id, userId: owner, role: "owner" },
    { companyId: mine.id, userId: priya, role: "admin" },
    { companyId: mine.id, userId: leo, role: "viewer" },
    { companyId: other.id, userId: outsider, role: "owner" },
  ]);
  const key = (await db
    .insert(mcpKeys)
    .values({ userId: owner, name: "test key", hint: "svc_mcp_test", secretHash: "0".repeat(64), scopes: ["*"], companyIds: [mine.id] })
    .returning())[0]!;
  const agentKey = (await db
    .insert(mcpKeys)
    .values({ userId: priya, name: "agent key", hint: "svc_mcp_agent", secretHash: "1".repeat(64), scopes: ["*"], companyIds: [mine.id] })
    .returning())[0]!;
  const site = (await db.insert(sites).values({ companyId: mine.id, name: "Acme Site" }).returning())[0]!;
  const otherSite = (await db.insert(sites).values({ companyId: other.id, name: "Rival Site" }).returning())[0]!;
  const m = (await db.insert(media).values({ siteId: site.id, filename: "brief.pdf", mimeType: "application/pdf", url: "https://cdn.example.com/brief.pdf" }).returning())[0]!;
  const om = (await db.insert(media).values({ siteId: otherSite.id, filename: "secret.pdf", mimeType: "application/pdf", url: "https://cdn.example.com/secret.pdf" }).returning())[0]!;

  const ctx: World["ctx"] = ({ role = "owner", scopes = ["*"], company = "mine", as, key: which = "main" } = {}) => {
    const c = company === "mine" ? { id: mine.id, name: mine.name, role } : { id: other.id, name: other.name, role };
    return {
      deps,
      principal: { userId: as ?? (company === "mine" ? (which === "agent" ? priya : owner) : outsider), credential:
        which === "agent"
          ? { kind: "mcp_key", id: agentKey.id, name: "agent key" }
          : which === "session"
            ? { kind: "session", id: 0, name: "portal" }
            : { kind: "mcp_key", id: key.id, name: "test key" }, scopes, companies: [c], requireCmsApproval: false },
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
    const r = new JobRunner(deps, brainDomain.jobs ?? []);
    await r.init();
    return r;
  };
  return {
    deps,
    store,
    clock,
    companyId: mine.id,
    otherCompanyId: other.id,
    users: { owner, priya, leo, outsider },
    mediaId: m.id,
    otherMediaId: om.id,
    ctx,
    agentKeyId: agentKey.id,
    call,
    err,
    jobs,
    close: () => store.close(),
  };
}
