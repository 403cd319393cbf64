/**
 * What the cms domain tells approval pages (approvals/kinds.ts
 * ApprovalSupport): which sites a company has (the "Site" fact, and the
 * tenancy of approvals_list's siteId filter), and the styles of rendered
 * blocks, which its kinds and staged targets put in every preview.
 */
import { and, eq } from "drizzle-orm";
import type { ApprovalSupport } from "../approvals/kinds";
import { BLOCKS_PREVIEW_CSS } from "../blocks/render";
import { sites } from "../sites/tables";

export const cmsApprovalSupport: ApprovalSupport = {
  async site(db, companyId, siteId) {
    return (
      (
        await db
          .select({ id: sites.id, name: sites.name })
          .from(sites)
          .where(and(eq(sites.id, siteId), eq(sites.companyId, companyId)))
          .limit(1)
      )[0] ?? null
    );
  },
  previewCss: async () => BLOCKS_PREVIEW_CSS,
};
