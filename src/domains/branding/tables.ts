/**
 * One brand profile and one messaging record per site, and per company a
 * default profile: the brand of a company that has no site yet, and what a
 * new site's profile starts from.
 */
import { createdAt, integer, json, table, text, updatedAt } from "../../core/columns";
import { companies } from "../../core/tables";
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

/** The company's default brand profile (branding_get_profile / _update_profile with siteId null). */
export const brandDefaults = table("brand_defaults", {
  companyId: integer("company_id")
    .primaryKey()
    .references(() => companies.id, { onDelete: "cascade" }),
  /** A Branding object, as brand_profiles.data. */
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
