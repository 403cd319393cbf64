/**
 * The agency's service catalogue and the requests clients submit against it.
 * Every verb that acts for someone re-checks scope and role itself
 * (`authorize`) and filters by the acting company: a service of another
 * company answers exactly like one that does not exist.
 */
import { and, asc, count, desc, eq } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext, Deps } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { iso } from "../../core/clock";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { serviceCatalog, serviceRequests } from "./tables";

type ServiceRow = typeof serviceCatalog.$inferSelect;
type RequestRow = typeof serviceRequests.$inferSelect;

function serviceOut(r: ServiceRow) {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    priceCents: r.priceCents,
    unit: r.unit,
    active: r.active,
    createdAt: iso(r.createdAt),
  };
}

function requestOut(r: RequestRow, serviceName?: string) {
  return {
    id: r.id,
    serviceId: r.serviceId,
    ...(serviceName !== undefined && { serviceName }),
    details: r.details,
    status: r.status,
    createdAt: iso(r.createdAt),
  };
}

/** The company's catalogue; inactive services only on request. */
export function listServices(ctx: ActorContext, input: { includeInactive?: boolean } = {}) {
  authorize(ctx, "services:read", { write: false });
  const where = input.includeInactive
    ? eq(serviceCatalog.companyId, ctx.company.id)
    : and(eq(serviceCatalog.companyId, ctx.company.id), eq(serviceCatalog.active, true));
  const rows = ctx.deps.db.select().from(serviceCatalog).where(where).orderBy(asc(serviceCatalog.name), asc(serviceCatalog.id)).all();
  return { company: { id: ctx.company.id, name: ctx.company.name }, services: rows.map(serviceOut) };
}

function serviceOfCompany(ctx: ActorContext, id: number): ServiceRow {
  const row = ctx.deps.db
    .select()
    .from(serviceCatalog)
    .where(and(eq(serviceCatalog.id, id), eq(serviceCatalog.companyId, ctx.company.id)))
    .get();
  if (!row) throw notFound(`Service ${id} not found in ${ctx.company.name}'s catalogue. List services with service_catalog_list.`);
  return row;
}

export function getService(ctx: ActorContext, id: number) {
  authorize(ctx, "services:read", { write: false });
  return serviceOut(serviceOfCompany(ctx, id));
}

export function listServiceRequests(
  ctx: ActorContext,
  input: { status?: string; limit: number; offset: number },
) {
  authorize(ctx, "services:read", { write: false });
  const where = input.status
    ? and(eq(serviceRequests.companyId, ctx.company.id), eq(serviceRequests.status, input.status))
    : eq(serviceRequests.companyId, ctx.company.id);
  const total = ctx.deps.db.select({ n: count() }).from(serviceRequests).where(where).get()?.n ?? 0;
  const rows = ctx.deps.db
    .select({ r: serviceRequests, name: serviceCatalog.name })
    .from(serviceRequests)
    .innerJoin(serviceCatalog, eq(serviceCatalog.id, serviceRequests.serviceId))
    .where(where)
    .orderBy(desc(serviceRequests.createdAt), desc(serviceRequests.id))
    .limit(input.limit)
    .offset(input.offset)
    .all();
  return page(
    rows.map((x) => requestOut(x.r, x.name)),
    total,
    input.limit,
    input.offset,
  );
}

/** Submits a request for one of the company's active services. */
export function createServiceRequest(ctx: ActorContext, input: { serviceId: number; details?: string }) {
  authorize(ctx, "services:write", { write: true });
  const service = serviceOfCompany(ctx, input.serviceId);
  if (!service.active) throw invalid(`Service ${service.id} ("${service.name}") is no longer offered; pick an active one.`);
  return ctx.deps.db.transaction((tx) => {
    const row = tx
      .insert(serviceRequests)
      .values({
        companyId: ctx.company.id,
        serviceId: service.id,
        userId: ctx.principal.userId,
        details: input.details ?? null,
        status: "open",
        createdAt: ctx.deps.clock.now(),
      })
      .returning()
      .get();
    audit(tx, ctx, "service_requests.create", { type: "service_request", id: row.id, detail: { serviceId: service.id } });
    return { id: row.id, serviceId: service.id, status: row.status };
  });
}

/** Operator verb (CLI, demo seed, tests): add a service to a company's catalogue. */
export function addCatalogService(
  deps: Deps,
  input: { companyId: number; name: string; description?: string; priceCents?: number; unit?: string; active?: boolean },
) {
  const name = input.name.trim();
  if (!name || name.length > 200) throw invalid("A service name must be 1 to 200 characters.");
  return deps.db
    .insert(serviceCatalog)
    .values({
      companyId: input.companyId,
      name,
      description: input.description ?? null,
      priceCents: input.priceCents ?? null,
      unit: input.unit ?? null,
      active: input.active ?? true,
      createdAt: deps.clock.now(),
    })
    .returning({ id: serviceCatalog.id, name: serviceCatalog.name })
    .get();
}
