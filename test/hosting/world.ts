/**
 * A small agency for verb-level tests of hosting and billing
 * (test/fixtures/tenants.ts): Acme (owner, admin, viewer) with a site, and a
 * rival company with its own site; tool calls reach the given domains.
 */
import type { Config } from "../../src/config";
import type { ActorContext, CredentialKind } from "../../src/core/context";
import type { AppError } from "../../src/core/errors";
import type { Role } from "../../src/domains/accounts/tables";
import { sites } from "../../src/domains/sites/tables";
import type { Domain } from "../../src/mcp/define";
import { makeTenants, type Tenants } from "../fixtures/tenants";

const PEOPLE = {
  owner: { email: "ada@acme.test", name: "Ada Owner", company: "mine", role: "owner" },
  admin: { email: "priya@acme.test", name: "Priya Admin", company: "mine", role: "admin" },
  viewer: { email: "vic@acme.test", name: "Vic Viewer", company: "mine", role: "viewer" },
  outsider: { email: "mallory@rival.test", name: "Mallory", company: "other", role: "owner" },
} as const;

export interface World
  extends Pick<Tenants<keyof typeof PEOPLE>, "deps" | "store" | "clock" | "users" | "jobs" | "close"> {
  companyId: number;
  otherCompanyId: number;
  siteId: number;
  otherSiteId: number;
  ctx(opts?: {
    role?: Role;
    scopes?: string[];
    company?: "mine" | "other";
    as?: number;
    kind?: CredentialKind;
  }): ActorContext;
  call(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
  err(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<AppError>;
}

export async function makeWorld(
  domain: Domain | Domain[],
  opts: { start?: Date; config?: Partial<Config> } = {},
): Promise<World> {
  const t = await makeTenants({
    people: PEOPLE,
    domains: Array.isArray(domain) ? domain : [domain],
    start: opts.start,
    config: { publicUrl: "https://plinth.test", ...opts.config },
  });
  const db = t.deps.db;
  const site = (await db.insert(sites).values({ companyId: t.mine.id, name: "Acme Site" }).returning())[0]!;
  const otherSite = (await db.insert(sites).values({ companyId: t.other.id, name: "Rival Site" }).returning())[0]!;
  const ctx: World["ctx"] = ({ role = "owner", scopes = ["*"], company = "mine", as, kind = "mcp_key" } = {}) =>
    t.ctx(company === "mine" ? "owner" : "outsider", {
      role,
      scopes,
      company,
      as,
      kind,
      credential: { id: t.keyId, name: "test" },
    });
  return {
    ...t,
    companyId: t.mine.id,
    otherCompanyId: t.other.id,
    siteId: site.id,
    otherSiteId: otherSite.id,
    ctx,
    call: (name, args, c = ctx()) => t.call(name, args, c),
    err: (name, args, c = ctx()) => t.err(name, args, c),
  };
}
