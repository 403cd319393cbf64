/**
 * What a company lets its automations' http steps do: the hosts they may
 * call and the secrets their headers may use. An allow-list rather than
 * "any public URL": an automation acting for a person should reach the
 * services the company chose, not wherever a template points. Secrets are
 * sealed at rest (src/core/sealed.ts), named in definitions as
 * {{secrets.NAME}} inside headers only, shown nowhere: run history records
 * the header with •••• in their place, and these verbs return names only.
 */
import { eq } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { AppError, invalid } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { seal, unseal } from "../../core/sealed";
import { secretName } from "./actions";
import { automationHttp } from "./tables";

export const MAX_HOSTS = 50;
const MAX_SECRETS = 20;
const HOST_RE = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$|^\[[0-9a-f:.]+\]$/;
/** What run history shows in place of a secret. */
export const MASK = "••••";

const context = (companyId: number, name: string) => `automation_http:${companyId}:${name}`;

async function rowOf(deps: Deps, companyId: number) {
  return (await deps.db.select().from(automationHttp).where(eq(automationHttp.companyId, companyId)).limit(1))[0];
}

/** Whether `url`'s host is on the list: the name itself, or under a `*.` entry. */
export function hostAllowed(hosts: readonly string[], url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return hosts.some((h) => (h.startsWith("*.") ? host.endsWith(h.slice(1)) : host === h));
}

/** The company's hosts and secret names (values only when `open`: the runner filling headers). */
export async function httpConfig(deps: Deps, companyId: number, open = false) {
  const row = await rowOf(deps, companyId);
  const names = Object.keys(row?.secrets ?? {});
  const secrets: Record<string, string> = {};
  for (const n of names) secrets[n] = open ? unseal(deps.config, row!.secrets[n]!, context(companyId, n)) : MASK;
  return { hosts: row?.hosts ?? [], secrets };
}

/** Refuses a URL whose host the company has not allowed (the runner and the dry run ask alike). */
export function assertHostAllowed(hosts: readonly string[], url: string) {
  if (!hostAllowed(hosts, url))
    throw new AppError(
      "forbidden",
      `http: ${new URL(url).hostname} is not among the hosts this company allows (automation_http_set adds it).`,
    );
}

export async function getHttpSettings(ctx: ActorContext) {
  authorize(ctx, "automations:read", { write: false });
  const row = await rowOf(ctx.deps, ctx.company.id);
  return {
    hosts: row?.hosts ?? [],
    secrets: Object.keys(row?.secrets ?? {}).sort(),
    updatedAt: iso(row?.updatedAt ?? null),
  };
}

export async function setHttpSettings(
  ctx: ActorContext,
  input: { hosts?: string[]; secrets?: Record<string, string | null> },
) {
  authorize(ctx, "automations:write", { write: true });
  if (input.hosts === undefined && input.secrets === undefined) throw invalid("Give hosts, secrets or both.");
  const hosts = input.hosts?.map((h) => h.trim().toLowerCase());
  for (const h of hosts ?? [])
    if (!HOST_RE.test(h) || h.length > 253)
      throw invalid(
        `hosts: "${h.slice(0, 80)}" is not a host name (api.example.com, or *.example.com for its subdomains).`,
      );
  for (const [n, x] of Object.entries(input.secrets ?? {})) {
    if (!secretName.test(n)) throw invalid(`secrets: "${n.slice(0, 40)}" is not a name (letters, digits, _).`);
    if (x !== null && (x.length < 1 || x.length > 4000)) throw invalid(`secrets.${n} must be 1 to 4,000 characters.`);
  }
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    const row = await rowOf(ctx.deps, ctx.company.id);
    const secrets = { ...(row?.secrets ?? {}) };
    for (const [n, x] of Object.entries(input.secrets ?? {}))
      if (x === null) delete secrets[n];
      else secrets[n] = seal(ctx.deps.config, x, context(ctx.company.id, n));
    if (Object.keys(secrets).length > MAX_SECRETS) throw invalid(`At most ${MAX_SECRETS} secrets.`);
    const next = { hosts: [...new Set(hosts ?? row?.hosts ?? [])], secrets, updatedAt: now };
    if (row) await tx.update(automationHttp).set(next).where(eq(automationHttp.id, row.id));
    else await tx.insert(automationHttp).values({ companyId: ctx.company.id, ...next });
    await audit(tx, ctx, "automations.http_settings", {
      type: "company",
      id: ctx.company.id,
      detail: { hosts: next.hosts, secrets: Object.keys(input.secrets ?? {}) },
    });
    return { hosts: next.hosts, secrets: Object.keys(secrets).sort(), updatedAt: iso(now) };
  });
}
