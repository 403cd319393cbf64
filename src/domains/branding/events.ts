/**
 * What branding tells the rest of Plinth: a site's brand profile or
 * messaging changed, or the company's default profile did. A renderer revalidates the whole site (brand colours
 * and fonts show on every page), so cacheTags is the site's tag.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

export const brandingUpdated = defineEvent({
  type: "branding.updated",
  entity: "site",
  description:
    "A site's brand profile was updated, cleared or reset (action; fields changed); every page may look different.",
  payload: v.object({
    siteId: v.number(),
    action: v.picklist(["update", "clear_fields", "delete"]),
    fields: v.array(v.string()),
    cacheTags: v.array(v.string()),
  }),
});

export const brandMessagingUpdated = defineEvent({
  type: "brand_messaging.updated",
  entity: "site",
  description: "A site's brand messaging (tagline, tone of voice, pitch, key messages, words to avoid) changed.",
  payload: v.object({ siteId: v.number(), fields: v.array(v.string()), cacheTags: v.array(v.string()) }),
});

export const brandDefaultUpdated = defineEvent({
  type: "brand_default.updated",
  entity: "company",
  description:
    "A company's default brand profile (what new sites start from) was updated (fields changed); no site changes with it.",
  payload: v.object({ fields: v.array(v.string()) }),
});

export const brandingEvents = [brandingUpdated, brandMessagingUpdated, brandDefaultUpdated];
