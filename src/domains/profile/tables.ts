/**
 * What a person says about themself beyond their account (users.name and
 * email): job title, time zone and working hours. One row per user, made on
 * first save.
 */
import { json, table, text, integer, updatedAt } from "../../core/columns";
import { users } from "../../core/tables";
import type { WorkingHours } from "./hours";

export const userProfiles = table("user_profiles", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  title: text("title"),
  /** IANA name as the runtime canonicalises it (Europe/Lisbon). */
  timeZone: text("time_zone"),
  /** Per weekday, the ranges worked in local time; days left out are off. */
  workingHours: json<WorkingHours>("working_hours"),
  updatedAt: updatedAt(),
});
