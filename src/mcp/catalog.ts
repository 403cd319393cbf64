/**
 * The catalog: what every domain declares (src/mcp/define.ts), collected
 * once from the domain list and checked as a whole. The entry builds it
 * (src/catalog.ts) and hands it down: Deps.catalog for the services that
 * need the whole (the approval workflow, notification preferences,
 * automations' events, integrations), and the adapters read it to build the
 * MCP registry, mount pages, run jobs and subscribers, and seed the demo.
 * Tests build their own from a custom domain list.
 *
 * What holds together across domains is checked here and nowhere else: a
 * gated tool's approval type has a kind some domain declares, no type has
 * two kinds, staged targets name their own domain's tools, events, jobs,
 * subscribers, notification types, integration kinds and scope areas are
 * declared once, and public page prefixes are single unused segments; each
 * tool's declaration is checked on its own first (name, toolset, declared
 * scope, annotations). Its JSON Schema is the MCP registry's to check
 * (src/mcp/registry.ts). A failure names what broke.
 */
import { declareSettings } from "../config";
import { listEvents, type EventDef } from "../core/events";
import { ROLES } from "../core/roles";
import { declareScopes, isScope } from "../core/scopes";
import type {
  ApprovalKind,
  ApprovalSupport,
  Domain,
  DomainCatalog,
  IntegrationSource,
  NotificationType,
  ScopeArea,
  StagedTarget,
  ToolDef,
} from "./define";

/** Thrown when declarations break a rule; names the tool, type or domain. */
export class RegistryError extends Error {}

function fail(what: string, msg: string): never {
  throw new RegistryError(`${what}: ${msg}`);
}

/** Path segments the app's own faces use; a domain's public pages take another. */
const RESERVED_PREFIXES = new Set([
  "/api",
  "/approve",
  "/media",
  "/oauth",
  "/.well-known",
  "/healthz",
  "/readyz",
  "/metrics",
  "/login",
  "/logout",
  "/portal",
  "/company",
  "/static",
]);

const NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const TOOLSET = /^[a-z][a-z0-9_]*$/;
const MIN_DESCRIPTION = 20;

/**
 * One tool's declaration on its own: name, toolset, scope, annotations,
 * description. Its scope is one this catalog's domains declare, or one the
 * build already declared (a test's fixture domain beside the real ones).
 */
function checkTool(t: ToolDef, known: ReadonlySet<string>) {
  const w = `tool ${t.name || "(unnamed)"}`;
  if (typeof t.name !== "string" || !NAME.test(t.name)) fail(w, "name must be snake_case (<noun>_<verb>)");
  if (t.name.length > 128) fail(w, "name must be at most 128 characters");
  if (t.name !== "whoami" && !t.name.includes("_")) fail(w, "name must read <noun>_<verb>");
  if (!TOOLSET.test(t.toolset ?? "")) fail(w, "toolset must be a lower-case identifier");
  if (t.scope === null) {
    if (!t.companyFree) fail(w, "only company-free tools (whoami, the discovery tools) may be unscoped");
    if (!t.readOnly) fail(w, "an unscoped tool must be read-only");
  } else {
    if (!known.has(t.scope) && !isScope(t.scope))
      fail(w, `scope ${t.scope} is not declared by any domain (Domain.scopes)`);
    const isRead = t.scope.endsWith(":read");
    if (t.readOnly !== isRead)
      fail(
        w,
        t.readOnly
          ? `a read-only tool needs a :read scope, not ${t.scope}`
          : `a write tool cannot use the read scope ${t.scope}`,
      );
  }
  for (const s of t.alsoNeeds ?? [])
    if (!known.has(s) && !isScope(s)) fail(w, `alsoNeeds ${s}, which no domain declares (Domain.scopes)`);
  if (t.destructive && t.readOnly) fail(w, "a destructive tool cannot be read-only");
  if (t.approval && t.readOnly) fail(w, "only write tools use the approval workflow");
  if (t.supervised && t.readOnly) fail(w, "only write tools are supervised (staged or gated)");
  if (t.idempotent && t.readOnly) fail(w, "idempotent describes write tools; read-only tools are idempotent by nature");
  if (t.cachedBy && !t.readOnly) fail(w, "only read-only tools may be cached (cachedBy)");
  if (t.cachedBy && t.cachedBy.length === 0)
    fail(w, "cachedBy names the tables the answer is built from: at least one");
  if (t.minRole !== undefined && !(ROLES as readonly string[]).includes(t.minRole))
    fail(w, `unknown minRole ${t.minRole}`);
  if (typeof t.description !== "string" || t.description.trim().length < MIN_DESCRIPTION)
    fail(w, `needs a description written for a model (at least ${MIN_DESCRIPTION} characters)`);
  if (typeof t.run !== "function") fail(w, "needs a run handler");
}

/** A map from declarations, refusing a key declared twice ("event x.y: listed twice (domains a and b)"). */
function unique<T>(
  what: string,
  entries: Iterable<[key: string, value: T, domain: string]>,
  twice = "declared twice",
): Map<string, T> {
  const out = new Map<string, T>();
  const by = new Map<string, string>();
  for (const [key, value, domain] of entries) {
    if (out.has(key)) fail(`${what}${key}`, `${twice} (domains ${by.get(key)} and ${domain})`);
    out.set(key, value);
    by.set(key, domain);
  }
  return out;
}

function* each<T>(domains: readonly Domain[], pick: (d: Domain) => readonly T[] | undefined): Generator<[T, string]> {
  for (const d of domains) for (const x of pick(d) ?? []) yield [x, d.name];
}

/**
 * What domains add to the approval workflow holds together: a gated tool's
 * entity type has a kind some domain declares, and a domain's staged
 * targets name its own tools, each tool at most once.
 */
function approvalParts(domains: readonly Domain[]) {
  const kinds = new Map<string, ApprovalKind>();
  for (const [k, d] of each(domains, (d) => d.approvalKinds)) {
    if (kinds.has(k.entityType)) fail(`approval kind ${k.entityType}`, `declared twice (again in domain ${d})`);
    kinds.set(k.entityType, k);
  }
  const targets = new Map<string, StagedTarget>();
  for (const d of domains) {
    const own = new Set(d.tools.map((t) => t.name));
    for (const t of d.tools)
      if (t.approval && !kinds.has(t.approval))
        fail(
          `tool ${t.name}`,
          `gates on ${t.approval}, but no domain declares an approval kind for it (approvalKinds)`,
        );
    for (const target of d.stagedTargets ?? [])
      for (const name of target.tools) {
        if (!own.has(name))
          fail(`staged target ${target.entityType}`, `names ${name}, which is not a tool of domain ${d.name}`);
        if (targets.has(name)) fail(`tool ${name}`, "has two staged targets");
        targets.set(name, target);
      }
  }
  return { kinds, targets, support: approvalSupport(domains) };
}

/** Each answer of ApprovalSupport has one owner; previewCss is every provider's, in the domains' order. */
function approvalSupport(domains: readonly Domain[]): Required<ApprovalSupport> {
  const single: { [K in "site" | "credentialRevoked"]?: { domain: string; fn: NonNullable<ApprovalSupport[K]> } } = {};
  const css: NonNullable<ApprovalSupport["previewCss"]>[] = [];
  for (const d of domains) {
    const s = d.approvalSupport ?? {};
    for (const key of ["site", "credentialRevoked"] as const) {
      const fn = s[key];
      if (!fn) continue;
      if (single[key]) fail(`approval support ${key}`, `is given by both ${single[key]!.domain} and ${d.name}`);
      (single as Record<string, unknown>)[key] = { domain: d.name, fn };
    }
    if (s.previewCss) css.push(s.previewCss);
  }
  return {
    // Without a provider: no site is known (approvals_list's siteId finds nothing), no credential is revoked.
    site: single.site?.fn ?? (async () => null),
    credentialRevoked: single.credentialRevoked?.fn ?? (async () => false),
    previewCss: async (db, siteId) => {
      const parts: string[] = [];
      for (const f of css) parts.push(await f(db, siteId));
      return parts.join("\n");
    },
  };
}

function checkPublicPages(domains: readonly Domain[]) {
  const prefixes = new Set<string>();
  for (const [p, d] of each(domains, (d) => d.publicPages)) {
    if (!/^\/[a-z][a-z0-9-]*$/.test(p.prefix))
      fail(`public pages ${p.prefix} of domain ${d}`, "need a prefix of one lower-case path segment, like /s");
    if (RESERVED_PREFIXES.has(p.prefix) || prefixes.has(p.prefix))
      fail(`public pages ${p.prefix} of domain ${d}`, "use a prefix that is already taken");
    prefixes.add(p.prefix);
  }
}

/** Scope areas are declared once each, and every tool and resource uses a declared scope. */
function scopeParts(domains: readonly Domain[]) {
  const areas = unique<ScopeArea>(
    "scope area ",
    [...each(domains, (d) => d.scopes)].map(([a, d]) => [a.area, a, d]),
  );
  for (const a of areas.values())
    for (const s of Object.keys(a.words))
      if (!s.startsWith(`${a.area}:`)) fail(`scope ${s}`, `is listed under area ${a.area}`);
  const scopes = [...areas.values()].flatMap((a) => Object.keys(a.words));
  const known = new Set(scopes);
  for (const a of areas.values())
    for (const [by, included] of Object.entries(a.includes ?? {}))
      for (const s of [by, ...included]) if (!known.has(s)) fail(`scope area ${a.area}`, `includes unknown scope ${s}`);
  return { areas: [...areas.values()], scopes, known };
}

export function buildCatalog(domains: readonly Domain[]): DomainCatalog {
  const names = new Set<string>();
  for (const d of domains) {
    if (names.has(d.name)) fail(`domain ${d.name}`, "listed twice");
    names.add(d.name);
  }
  const scope = scopeParts(domains);
  const tools = new Map<string, ToolDef>();
  for (const [t, d] of each(domains, (d) => d.tools)) {
    checkTool(t, scope.known);
    if (tools.has(t.name)) fail(`tool ${t.name}`, `declared twice (again in domain ${d})`);
    tools.set(t.name, t);
  }
  const approvals = approvalParts(domains);
  const events = unique<EventDef<any>>(
    "event ",
    [...each(domains, (d) => d.events)].map(([e, d]) => [e.type, e, d]),
    "listed twice",
  );
  const subscribers = [...each(domains, (d) => d.subscribers)];
  const jobs = [...each(domains, (d) => d.jobs)];
  // Subscriber and job names share one namespace of run records: each is declared once.
  unique<unknown>("", [
    ...subscribers.map(([s, d]): [string, unknown, string] => [`subscriber ${s.name}`, s, d]),
    ...jobs.map(([j, d]): [string, unknown, string] => [`job ${j.name}`, j, d]),
  ]);
  checkPublicPages(domains);
  const notificationTypes = unique<NotificationType>(
    "notification type ",
    [...each(domains, (d) => d.notificationTypes)].map(([t, d]) => [t.type, t, d]),
  );
  const integrations = unique<IntegrationSource>(
    "integration source ",
    [...each(domains, (d) => d.integrations)].map(([s, d]) => [s.kind, s, d]),
  );

  // The core's own registers of what is declared: emit() refuses unlisted event types, covers() reads the scopes.
  const settings = [...each(domains, (d) => d.settings)].map(([g]) => g);
  listEvents(events.keys());
  declareScopes(scope.areas);
  // Before any configuration is read: the entry builds the catalog as it loads.
  declareSettings(settings);

  return {
    domains,
    tools,
    approvalKinds: approvals.kinds,
    stagedTargets: approvals.targets,
    approvalSupport: approvals.support,
    events,
    notificationTypes,
    integrations,
    subscribers: subscribers.map(([s]) => s),
    jobs: jobs.map(([j]) => j),
    publicPages: [...each(domains, (d) => d.publicPages)].map(([p]) => p),
    portal: domains.flatMap((d) => (d.portal ? [d.portal] : [])),
    toolCallObservers: [...each(domains, (d) => d.toolCallObservers)].map(([o]) => o),
    scopeAreas: scope.areas,
    scopes: scope.scopes,
    demoParts: domains.flatMap((d) => (d.demo ? [d.demo] : [])),
    settings,
  };
}
