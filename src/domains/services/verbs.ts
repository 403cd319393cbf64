/**
 * The agency's service catalogue and the requests clients submit against it.
 * Every verb that acts for someone re-checks scope and role itself
 * (`authorize`) and filters by the acting company: a service of another
 * company answers exactly like one that does not exist.
 *
 * @public Serves billing (service requests and services on invoices).
 */
import { and, asc, count, desc, eq } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext, Deps } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { iso } from "../../core/clock";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { serviceCatalog, serviceRequests } from "./tables";
import { byText } from "../../core/sql";

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
export async function listServices(ctx: ActorContext, input: { includeInactive?: boolean } = {}) {
  authorize(ctx, "services:read", { write: false });
  const where = input.includeInactive
    ? eq(serviceCatalog.companyId, ctx.company.id)
    : and(eq(serviceCatalog.companyId, ctx.company.id), eq(serviceCatalog.active, true));
  const rows = await ctx.deps.db
    .select()
    .from(serviceCatalog)
    .where(where)
    .orderBy(asc(byText(serviceCatalog.name)), asc(serviceCatalog.id));
  return { company: { id: ctx.company.id, name: ctx.company.name }, services: rows.map(serviceOut) };
}

async function serviceOfCompany(ctx: ActorContext, id: number): Promise<ServiceRow> {
  const row = (
    await ctx.deps.db
      .select()
      .from(serviceCatalog)
      .where(and(eq(serviceCatalog.id, id), eq(serviceCatalog.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row)
    throw notFound(
      `Service ${id} not found in ${ctx.company.name}'s catalogue. List services with service_catalog_list.`,
    );
  return row;
}

export async function getService(ctx: ActorContext, id: number) {
  authorize(ctx, "services:read", { write: false });
  return serviceOut(await serviceOfCompany(ctx, id));
}

export async function listServiceRequests(
  ctx: ActorContext,
  input: { status?: string; limit: number; offset: number },
) {
  authorize(ctx, "services:read", { write: false });
  const where = input.status
    ? and(eq(serviceRequests.companyId, ctx.company.id), eq(serviceRequests.status, input.status))
    : eq(serviceRequests.companyId, ctx.company.id);
  const total = (await ctx.deps.db.select({ n: count() }).from(serviceRequests).where(where).limit(1))[0]?.n ?? 0;
  const rows = await ctx.deps.db
    .select({ r: serviceRequests, name: serviceCatalog.name })
    .from(serviceRequests)
    .innerJoin(serviceCatalog, eq(serviceCatalog.id, serviceRequests.serviceId))
    .where(where)
    .orderBy(desc(serviceRequests.createdAt), desc(serviceRequests.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(
    rows.map((x) => requestOut(x.r, x.name)),
    total,
    input.limit,
    input.offset,
  );
}

/** Submits a request for one of the company's active services. */
export async function createServiceRequest(ctx: ActorContext, input: { serviceId: number; details?: string }) {
  authorize(ctx, "services:write", { write: true });
  const service = await serviceOfCompany(ctx, input.serviceId);
  if (!service.active)
    throw invalid(`Service ${service.id} ("${service.name}") is no longer offered; pick an active one.`);
  return ctx.deps.db.transaction(async (tx) => {
    const row = (
      await tx
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
    )[0];
    await audit(tx, ctx, "service_requests.create", {
      type: "service_request",
      id: row.id,
      detail: { serviceId: service.id },
    });
    return { id: row.id, serviceId: service.id, status: row.status };
  });
}

/** Operator verb (CLI, demo seed, tests): add a service to a company's catalogue. */
export async function addCatalogService(
  deps: Deps,
  input: {
    companyId: number;
    name: string;
    description?: string;
    priceCents?: number;
    unit?: string;
    active?: boolean;
  },
) {
  const name = input.name.trim();
  if (!name || name.length > 200) throw invalid("A service name must be 1 to 200 characters.");
  return (
    await deps.db
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
  )[0];
}
