/**
 * Held branding calls (approvals/kinds.ts StagedTarget): a
 * require_cms_approval credential's changes to a brand profile (colours,
 * fonts, logos, the styling REST /branding and every public page serve)
 * and to brand messaging wait for a person's approval. The snapshot is
 * what approval re-checks (a profile edited meanwhile is not overwritten
 * blindly), and the page shows each field live → proposed, not the patch's
 * JSON.
 */
import type { ActorContext } from "../../core/context";
import type { CallPresentation, ChangeRow, HeldCall, StagedTarget } from "../approvals/kinds";
import { displayValue } from "../approvals/preview";
import { siteForActor } from "../sites/access";
import { messagingRow, messagingView } from "./messaging";
import { storedBranding } from "./public-reads";

type Obj = Record<string, unknown>;

/** The site the input names, when the actor reaches it; null otherwise (no siteId: nothing to snapshot). */
async function site(ctx: ActorContext, input: Obj) {
  if (typeof input.siteId !== "number") return null;
  try {
    return await siteForActor(ctx, input.siteId);
  } catch {
    return null;
  }
}

const shown = (x: unknown) => (x === null ? "(default)" : displayValue(x));

/** Each branding field the call sets or resets, live → proposed. */
function presentProfile(call: HeldCall): CallPresentation {
  const live = (call.before?.branding ?? {}) as Obj;
  if (call.tool === "branding_delete_profile")
    return {
      proposal: "Deleting the site's brand profile",
      applied: "deleted",
      facts: [
        {
          label: "Effect",
          value: `Every field set now (${Object.keys(live).join(", ") || "none"}) goes back to the defaults on REST /branding and the site's pages; brand messaging is kept.`,
        },
      ],
    };
  const rows: ChangeRow[] = [];
  if (call.tool === "branding_clear_fields" && Array.isArray(call.input.fields)) {
    for (const f of call.input.fields)
      rows.push({ field: String(f), before: displayValue(live[String(f)]), after: "(default)" });
    return { proposal: "Resetting brand fields to their defaults", rows, handled: ["fields"] };
  }
  const patch = call.input.branding;
  if (patch && typeof patch === "object")
    for (const [k, x] of Object.entries(patch as Obj))
      if (x !== undefined) rows.push({ field: k, before: displayValue(live[k]), after: shown(x) });
  return { proposal: "A change to the site's brand profile", rows, handled: ["branding"] };
}

export const brandingStagedTargets: StagedTarget[] = [
  {
    entityType: "brand_profile",
    tools: ["branding_update_profile", "branding_clear_fields", "branding_delete_profile"],
    current: async (ctx, input) => {
      const s = await site(ctx, input);
      return s ? { branding: (await storedBranding(ctx.deps.db, s.id)) ?? {} } : null;
    },
    present: async (_deps, call) => presentProfile(call),
  },
  {
    entityType: "brand_messaging",
    tools: ["brand_messaging_update"],
    current: async (ctx, input) => {
      const s = await site(ctx, input);
      if (!s) return null;
      const { siteId: _s, updatedAt: _u, ...fields } = messagingView(s.id, await messagingRow(ctx, s.id));
      return fields;
    },
  },
];
