/**
 * A small agency for verb-level tests of projects, kanban and sprints
 * (test/fixtures/tenants.ts): company Acme with an owner (the actor), two
 * more members and a site with one media item, and a rival company with its
 * own member and media; tool calls reach the projects, kanban and sprints
 * tools.
 */
import type { ActorContext } from "../../src/core/context";
import type { Store } from "../../src/core/db";
import type { AppError } from "../../src/core/errors";
import type { Role } from "../../src/domains/accounts/tables";
import { media } from "../../src/domains/cms/tables";
import { workDomains } from "../../src/domains/projects/tools";
import { sites } from "../../src/domains/sites/tables";
import { makeTenants, type Tenants } from "../fixtures/tenants";

const PEOPLE = {
  owner: { email: "ada@acme.test", name: "Ada Owner", company: "mine", role: "owner" },
  priya: { email: "priya@acme.test", name: "Priya Shah", company: "mine", role: "admin" },
  leo: { email: "leo@acme.test", name: "Leo Martin", company: "mine", role: "viewer" },
  outsider: { email: "mallory@rival.test", name: "Mallory", company: "other", role: "owner" },
} as const;

export interface World
  extends Pick<Tenants<keyof typeof PEOPLE>, "deps" | "store" | "clock" | "users" | "jobs" | "close"> {
  companyId: number;
  otherCompanyId: number;
  mediaId: number;
  otherMediaId: number;
  /** The owner acting in Acme (or `as` another member, role, scopes, or the rival company). */
  ctx(opts?: { role?: Role; scopes?: string[]; company?: "mine" | "other"; as?: number }): ActorContext;
  /** Calls a tool as the owner (or with `ctx`), returning its result. */
  call(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
  /** The AppError a call throws (fails when it succeeds). */
  err(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<AppError>;
}

export async function makeWorld(opts: { start?: Date; store?: Store } = {}): Promise<World> {
  const t = await makeTenants({ people: PEOPLE, domains: workDomains, start: opts.start, store: opts.store });
  const db = t.deps.db;
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
  const ctx: World["ctx"] = ({ role = "owner", scopes = ["*"], company = "mine", as } = {}) =>
    t.ctx(company === "mine" ? "owner" : "outsider", { role, scopes, company, as });
  return {
    ...t,
    companyId: t.mine.id,
    otherCompanyId: t.other.id,
    mediaId: m.id,
    otherMediaId: om.id,
    ctx,
    call: (name, args, c = ctx()) => t.call(name, args, c),
    err: (name, args, c = ctx()) => t.err(name, args, c),
  };
}
