/**
 * Notification preferences: per person (the same in every company they
 * belong to), per type, in-app and email. Read by notify() for each
 * recipient and set by the person themself (profile_update,
 * notification_preferences_update, the portal's profile page).
 *
 * @public Serves profile (a person's notification preferences on their
 * profile).
 */
import { and, eq, inArray } from "drizzle-orm";
import * as v from "valibot";
import type { Deps } from "../../core/context";
import { invalid } from "../../core/errors";
import { auditLog } from "../../core/tables";
import { notificationPreferences } from "./tables";
import { TYPE_RE, typeDefaults, typeLabel } from "./types";

export interface Preference {
  inApp: boolean;
  email: boolean;
}

/** The input schema of a list of PreferenceUpdate (profile_update, notification_preferences_update). */
export const preferenceUpdates = v.pipe(
  v.array(
    v.object({
      type: v.pipe(v.string(), v.maxLength(100)),
      inApp: v.optional(v.boolean()),
      email: v.optional(v.boolean()),
      reset: v.optional(v.boolean()),
    }),
  ),
  v.maxLength(50),
);

export interface PreferenceUpdate {
  /** A notification type, or "*" for every type without a setting of its own. */
  type: string;
  inApp?: boolean;
  email?: boolean;
  /** Forget the setting: back to the "*" setting or the type's default. */
  reset?: boolean;
}

/** What each of `userIds` wants for `type`: their own setting, else their "*" setting, else the type's default. */
export async function preferencesFor(deps: Deps, userIds: number[], type: string): Promise<Map<number, Preference>> {
  const out = new Map<number, Preference>();
  if (userIds.length === 0) return out;
  const rows = await deps.db
    .select()
    .from(notificationPreferences)
    .where(and(inArray(notificationPreferences.userId, userIds), inArray(notificationPreferences.type, [type, "*"])));
  const fallback = typeDefaults(deps, type);
  for (const u of userIds) {
    const own =
      rows.find((r) => r.userId === u && r.type === type) ?? rows.find((r) => r.userId === u && r.type === "*");
    out.set(u, own ? { inApp: own.inApp, email: own.email } : fallback);
  }
  return out;
}

export interface PreferencesView {
  /** The person's setting for every type without its own, or null (each type's default applies). */
  allTypes: Preference | null;
  /** Every known type and every type the person set, with what applies now. */
  types: { type: string; label: string; inApp: boolean; email: boolean; own: boolean }[];
}

export async function readPreferences(deps: Deps, userId: number): Promise<PreferencesView> {
  const rows = await deps.db.select().from(notificationPreferences).where(eq(notificationPreferences.userId, userId));
  const star = rows.find((r) => r.type === "*");
  const names = [
    ...new Set([...deps.catalog.notificationTypes.keys(), ...rows.map((r) => r.type).filter((t) => t !== "*")]),
  ];
  return {
    allTypes: star ? { inApp: star.inApp, email: star.email } : null,
    types: names.map((type) => {
      const own = rows.find((r) => r.type === type);
      const p = own ?? star ?? typeDefaults(deps, type);
      return { type, label: typeLabel(deps, type), inApp: p.inApp, email: p.email, own: !!own };
    }),
  };
}

/**
 * Applies the person's changes (inside the caller's transaction when there
 * is one) and records them in the audit log, which for a person's own
 * settings belongs to no company.
 */
export async function writePreferences(
  deps: Deps,
  userId: number,
  updates: PreferenceUpdate[],
  via: { kind: string; id: number },
): Promise<void> {
  if (updates.length > 50) throw invalid("At most 50 preference changes at once.");
  const seen = new Set<string>();
  for (const u of updates) {
    if (u.type !== "*" && !TYPE_RE.test(u.type))
      throw invalid(`Not a notification type: "${u.type.slice(0, 80)}" (e.g. card.assigned, or * for all).`);
    if (seen.has(u.type)) throw invalid(`The type ${u.type} is listed twice.`);
    seen.add(u.type);
    if (u.reset && (u.inApp !== undefined || u.email !== undefined))
      throw invalid(`For ${u.type}, either reset or set inApp/email, not both.`);
    if (!u.reset && u.inApp === undefined && u.email === undefined)
      throw invalid(`For ${u.type}, say inApp, email or reset.`);
  }
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    for (const u of updates) {
      const where = and(eq(notificationPreferences.userId, userId), eq(notificationPreferences.type, u.type));
      if (u.reset) {
        await tx.delete(notificationPreferences).where(where);
        continue;
      }
      const current =
        u.type === "*"
          ? ((await readPreferences(deps, userId)).allTypes ?? { inApp: true, email: false })
          : (await preferencesFor(deps, [userId], u.type)).get(userId)!;
      const next = { inApp: u.inApp ?? current.inApp, email: u.email ?? current.email };
      await tx
        .insert(notificationPreferences)
        .values({ userId, type: u.type, ...next, updatedAt: now })
        .onConflictDoUpdate({
          target: [notificationPreferences.userId, notificationPreferences.type],
          set: { ...next, updatedAt: now },
        });
    }
    await tx.insert(auditLog).values({
      companyId: null,
      userId,
      credentialKind: via.kind,
      credentialId: via.id,
      action: "profile.notification_preferences",
      entityType: "user",
      entityId: userId,
      detail: { changes: updates },
      createdAt: now,
    });
  });
}
