/**
 * A small agency for verb-level brain tests (test/fixtures/tenants.ts):
 * company Acme with an owner (the actor), an admin holding a second key
 * ("agent key"), a viewer, a site with one media item, and a rival company
 * with its own owner and media. Tool calls reach the brain, CRM and
 * projects tools (the brain reads the other two); jobs are the brain's.
 */
import type { Config } from "../../src/config";
import type { ActorContext } from "../../src/core/context";
import type { Store } from "../../src/core/db";
import type { AppError } from "../../src/core/errors";
import { JobRunner } from "../../src/core/jobs";
import { mcpKeys, type Role } from "../../src/domains/accounts/tables";
import { brainDomain } from "../../src/domains/brain/tools";
import { media } from "../../src/domains/cms/tables";
import { crmDomain } from "../../src/domains/crm/tools";
import { workDomains } from "../../src/domains/projects/tools";
import { sites } from "../../src/domains/sites/tables";
import { makeTenants, type Tenants } from "../fixtures/tenants";

const PEOPLE = {
  owner: { email: "ada@acme.test", name: "Ada Owner", company: "mine", role: "owner" },
  priya: { email: "priya@acme.test", name: "Priya Shah", company: "mine", role: "admin" },
  leo: { email: "leo@acme.test", name: "Leo Martin", company: "mine", role: "viewer" },
  outsider: { email: "mallory@rival.test", name: "Mallory", company: "other", role: "owner" },
} as const;

export interface World extends Pick<Tenants<keyof typeof PEOPLE>, "deps" | "store" | "clock" | "users" | "close"> {
  companyId: number;
  otherCompanyId: number;
  mediaId: number;
  otherMediaId: number;
  /** The owner acting in Acme (or `as` another member, role, scopes, the rival company, or another credential). */
  ctx(opts?: {
    role?: Role;
    scopes?: string[];
    company?: "mine" | "other";
    as?: number;
    key?: "main" | "agent" | "session" | "oauth";
  }): ActorContext;
  /** Priya's key ("agent key"), for per-credential review settings. */
  agentKeyId: number;
  /** Calls a tool as the owner (or with `ctx`), returning its result. */
  call(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
  /** The AppError a call throws (fails when it succeeds). */
  err(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<AppError>;
  /** A job runner for the brain's jobs, initialised (its lease rows exist), not started. */
  jobs(): Promise<JobRunner>;
}

export async function makeWorld(opts: { start?: Date; store?: Store; config?: Partial<Config> } = {}): Promise<World> {
  const t = await makeTenants({
    people: PEOPLE,
    domains: [...workDomains, crmDomain, brainDomain],
    start: opts.start,
    store: opts.store,
    config: opts.config,
  });
  const db = t.deps.db;
  const agentKey = (
    await db
      .insert(mcpKeys)
      .values({
        userId: t.users.priya,
        name: "agent key",
        hint: "svc_mcp_agent",
        secretHash: "1".repeat(64),
        scopes: ["*"],
        companyIds: [t.mine.id],
      })
      .returning()
  )[0]!;
  const site = (await db.insert(sites).values({ companyId: t.mine.id, name: "Acme Site" }).returning())[0]!;
  const otherSite = (await db.insert(sites).values({ companyId: t.other.id, name: "Rival Site" }).returning())[0]!;
  const m = (
    await db
      .insert(media)
      .values({
        siteId: site.id,
        filename: "brief.pdf",
        mimeType: "application/pdf",
        url: "https://cdn.example.com/brief.pdf",
      })
      .returning()
  )[0]!;
  const om = (
    await db
      .insert(media)
      .values({
        siteId: otherSite.id,
        filename: "secret.pdf",
        mimeType: "application/pdf",
        url: "https://cdn.example.com/secret.pdf",
      })
      .returning()
  )[0]!;
  const ctx: World["ctx"] = ({ role = "owner", scopes = ["*"], company = "mine", as, key = "main" } = {}) =>
    company === "other"
      ? t.ctx("outsider", { role, scopes, as })
      : key === "agent"
        ? t.ctx("priya", { role, scopes, as, credential: { id: agentKey.id, name: "agent key" } })
        : key === "session"
          ? t.ctx("owner", { role, scopes, as, kind: "session", credential: { id: 0, name: "portal" } })
          : key === "oauth"
            ? t.ctx("owner", { role, scopes, as, kind: "oauth", credential: { id: 1, name: "Claude (OAuth)" } })
            : t.ctx("owner", { role, scopes, as });
  return {
    ...t,
    companyId: t.mine.id,
    otherCompanyId: t.other.id,
    mediaId: m.id,
    otherMediaId: om.id,
    agentKeyId: agentKey.id,
    ctx,
    call: (name, args, c = ctx()) => t.call(name, args, c),
    err: (name, args, c = ctx()) => t.err(name, args, c),
    async jobs() {
      const r = new JobRunner(t.deps, brainDomain.jobs ?? []);
      await r.init();
      return r;
    },
  };
}
