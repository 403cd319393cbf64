/**
 * What the cms domain tells approval pages (approvals/kinds.ts
 * ApprovalSupport): which sites a company has (the "Site" fact, and the
 * tenancy of approvals_list's siteId filter), and the styles of rendered
 * blocks, which its kinds and staged targets put in every preview.
 */
import type { ApprovalSupport } from "../approvals/kinds";
import { BLOCKS_PREVIEW_CSS } from "../blocks/render";
import { siteOfCompany } from "../sites/facts";

export const cmsApprovalSupport: ApprovalSupport = {
  site: async (db, companyId, siteId) => await siteOfCompany(db, companyId, siteId),
  previewCss: async () => BLOCKS_PREVIEW_CSS,
};
