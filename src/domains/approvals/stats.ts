/**
 * Approval links by state, across every company: the `plinth_approvals`
 * gauge of GET /metrics (src/ops/metrics-routes.ts). Two aggregate queries,
 * no rows read into memory. A pending link past its lifetime counts as
 * expired, as every other read reports it, whether or not a sweep has
 * written that yet.
 */
import { and, count, eq, lte } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { LINK_STATUSES, type LinkStatus } from "./links";
import { approvalLinks } from "./tables";

export async function approvalCounts(deps: Pick<Deps, "db" | "clock">): Promise<Record<LinkStatus, number>> {
  const out = Object.fromEntries(LINK_STATUSES.map((s) => [s, 0])) as Record<LinkStatus, number>;
  const byStatus = await deps.db
    .select({ status: approvalLinks.status, n: count() })
    .from(approvalLinks)
    .groupBy(approvalLinks.status);
  for (const r of byStatus) if (r.status in out) out[r.status as LinkStatus] = Number(r.n);
  const [lapsed] = await deps.db
    .select({ n: count() })
    .from(approvalLinks)
    .where(and(eq(approvalLinks.status, "pending"), lte(approvalLinks.expiresAt, deps.clock.now())));
  const n = Number(lapsed?.n ?? 0);
  out.pending -= n;
  out.expired += n;
  return out;
}
