/** One brand profile and one messaging record per site. */
import { createdAt, integer, json, table, text, updatedAt } from "../../core/columns";
import { sites } from "../sites/tables";

export const brandProfiles = table("brand_profiles", {
  siteId: integer("site_id")
    .primaryKey()
    .references(() => sites.id, { onDelete: "cascade" }),
  /** The Branding object of the spec, holding only the fields that are set. */
  data: json<Record<string, unknown>>("data").notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const brandMessaging = table("brand_messaging", {
  siteId: integer("site_id")
    .primaryKey()
    .references(() => sites.id, { onDelete: "cascade" }),
  tagline: text("tagline"),
  toneOfVoice: text("tone_of_voice"),
  elevatorPitch: text("elevator_pitch"),
  keyMessages: json<string[]>("key_messages"),
  wordsToAvoid: json<string[]>("words_to_avoid"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});
