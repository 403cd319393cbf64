/**
 * Held store calls (approvals/kinds.ts StagedTarget): withdrawing or
 * deleting an active product waits for a person's approval
 * (products.ts). The snapshot is what approval re-checks: a product that
 * changed since the request (renamed, repriced, already withdrawn) is not
 * taken down blindly; the reviewer sees the conflict. The presentation
 * says what disappears and where the site shows or links to it.
 */
import { and, eq } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { StagedTarget } from "../approvals/kinds";
import { productShownAt } from "../cms/references";
import { siteForActor } from "../sites/access";
import { products } from "./tables";

export const storeStagedTargets: StagedTarget[] = [
  {
    entityType: "product",
    tools: ["products_delete", "products_set_status"],
    async current(ctx, input) {
      if (typeof input.siteId !== "number" || typeof input.id !== "number") return null;
      try {
        const site = await siteForActor(ctx, input.siteId);
        const p = (
          await ctx.deps.db
            .select()
            .from(products)
            .where(and(eq(products.id, input.id), eq(products.siteId, site.id)))
            .limit(1)
        )[0];
        if (!p) return null;
        return {
          name: p.name,
          slug: p.slug,
          status: p.status,
          price: p.price,
          featured: p.featured,
          categoryId: p.categoryId,
          updatedAt: iso(p.updatedAt),
        };
      } catch {
        return null;
      }
    },
    async present(deps, call) {
      const b = call.before;
      if (!b || typeof b.slug !== "string" || typeof call.input.siteId !== "number") return {};
      const del = call.tool === "products_delete";
      const what = `${b.status === "active" ? "active " : ""}product “${String(b.name)}”`;
      const shown = await productShownAt(deps.db, call.input.siteId, {
        slug: b.slug,
        featured: b.featured === true,
        categoryId: typeof b.categoryId === "number" ? b.categoryId : null,
      });
      return {
        proposal: del
          ? `Deleting the ${what}`
          : `Withdrawing the ${what} from sale (status ${String(call.input.status)})`,
        applied: del ? "deleted" : "withdrawn",
        facts: [
          {
            label: "Disappears",
            value: del
              ? `The ${what} (slug ${b.slug}) with its images, options, variants and reviews, for good: the REST API stops serving it. Past orders keep their lines.`
              : `The ${what} (slug ${b.slug}) from the REST API and the store's pages; it stays in the catalogue, ${String(call.input.status)}, and can be set active again.`,
          },
          {
            label: "Linked from",
            value: shown.length ? shown.join("\n") : "nothing on this site shows or links to it (blocks, navigation)",
          },
        ],
        handled: ["id"],
      };
    },
  },
];
