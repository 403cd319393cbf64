/**
 * The site's branding in approval previews (approvals/kinds.ts
 * ApprovalSupport.previewCss): a reviewer sees a draft in the site's
 * colours, fonts and corner radius. Only values that match strict patterns
 * reach the stylesheet, so a brand profile cannot inject CSS; without a
 * profile the neutral defaults apply.
 */
import { eq } from "drizzle-orm";
import type { ApprovalSupport } from "../approvals/kinds";
import { brandProfiles } from "./tables";

const HEX_RE = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const FONT_RE = /^[A-Za-z0-9 ,'"-]{1,100}$/;
const RADIUS_RE = /^\d{1,3}(?:\.\d{1,3})?(?:px|rem|em|%)$/;

export const brandingApprovalSupport: ApprovalSupport = {
  async previewCss(db, siteId) {
    const data =
      siteId === null
        ? undefined
        : (
            await db
              .select({ data: brandProfiles.data })
              .from(brandProfiles)
              .where(eq(brandProfiles.siteId, siteId))
              .limit(1)
          )[0]?.data;
    const b = (data ?? {}) as Record<string, unknown>;
    const color = (k: string, def: string) =>
      typeof b[k] === "string" && HEX_RE.test(b[k] as string) ? (b[k] as string) : def;
    const font = (k: string) => (typeof b[k] === "string" && FONT_RE.test(b[k] as string) ? (b[k] as string) : null);
    const radius = typeof b.borderRadius === "string" && RADIUS_RE.test(b.borderRadius) ? b.borderRadius : ".375rem";
    const primary = color("primaryColor", "#2563eb");
    const secondary = color("secondaryColor", "#1e40af");
    const text = color("textColor", "#111827");
    const bg = color("backgroundColor", "#ffffff");
    const link = color("linkColor", primary);
    const body = font("bodyFont");
    const heading = font("headingFont");
    return `.ap-content{color:${text};background:${bg};${body ? `font-family:${body},system-ui,sans-serif;` : ""}}
.ap-content h1,.ap-content h2,.ap-content h3,.ap-content h4{${heading ? `font-family:${heading},system-ui,sans-serif;` : ""}}
.ap-content a{color:${link}}
.ap-content .pb-button-primary{background:${primary};color:#fff;border-radius:${radius}}
.ap-content .pb-button-secondary{background:${secondary};color:#fff;border-radius:${radius}}
.ap-content .pb-highlighted{border-color:${primary}}
`;
  },
};
