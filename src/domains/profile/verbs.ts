/**
 * The caller's own profile: name, title, time zone, working hours and
 * notification preferences. A person's profile is theirs, not a company's:
 * the same in every company, changed only by them (every member may, a
 * viewer included), and audited with no company.
 *
 * @public Serves team and notifications (members' local time and profiles).
 */
import { eq, inArray } from "drizzle-orm";
import type { ActorContext, Deps } from "../../core/context";
import { invalid } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { auditLog, users } from "../../core/tables";
import { readPreferences, writePreferences, type PreferenceUpdate } from "../notifications/preferences";
import { canonicalTimeZone, isWorkingTime, localClock, normaliseHours, type WorkingHours } from "./hours";
import { userProfiles } from "./tables";

export interface ProfileFacts {
  title: string | null;
  timeZone: string | null;
  workingHours: WorkingHours | null;
}

/** Title, time zone and hours of each user (those who never saved a profile get nulls). */
export async function profilesOf(deps: Deps, userIds: number[]): Promise<Map<number, ProfileFacts>> {
  const out = new Map<number, ProfileFacts>();
  if (userIds.length === 0) return out;
  const rows = await deps.db.select().from(userProfiles).where(inArray(userProfiles.userId, userIds));
  for (const u of userIds) {
    const r = rows.find((x) => x.userId === u);
    out.set(u, { title: r?.title ?? null, timeZone: r?.timeZone ?? null, workingHours: r?.workingHours ?? null });
  }
  return out;
}

/** What a person's clock says now, for lists of people: "14:05", working or not. */
export function localNow(p: ProfileFacts, at: Date): { localTime: string | null; workingNow: boolean | null } {
  if (!p.timeZone) return { localTime: null, workingNow: null };
  return { localTime: localClock(p.timeZone, at).text, workingNow: p.workingHours ? isWorkingTime(p, at) : null };
}

export async function getProfile(ctx: ActorContext) {
  authorize(ctx, "profile:read", { write: false, minRole: "viewer" });
  const { deps } = ctx;
  const userId = ctx.principal.userId;
  const u = (
    await deps.db.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, userId)).limit(1)
  )[0];
  const p = (await profilesOf(deps, [userId])).get(userId)!;
  return {
    userId,
    email: u?.email ?? null,
    name: u?.name ?? null,
    ...p,
    ...localNow(p, deps.clock.now()),
    notificationPreferences: await readPreferences(deps, userId),
  };
}

export interface ProfileChanges {
  name?: string | null;
  title?: string | null;
  timeZone?: string | null;
  workingHours?: WorkingHours | null;
  notificationPreferences?: PreferenceUpdate[];
}

function oneLine(v: string | null | undefined, label: string, max: number): string | null | undefined {
  if (v === undefined || v === null) return v;
  const t = v.replace(/\s+/g, " ").trim();
  if (t.length > max) throw invalid(`${label} is at most ${max} characters.`);
  if (t.includes("\u0000")) throw invalid(`${label} must not contain the NUL character.`);
  return t || null;
}

export async function updateProfile(ctx: ActorContext, input: ProfileChanges) {
  authorize(ctx, "profile:write", { write: true, minRole: "viewer" });
  const { deps } = ctx;
  const userId = ctx.principal.userId;
  const name = oneLine(input.name, "name", 100);
  const title = oneLine(input.title, "title", 100);
  let timeZone: string | null | undefined = input.timeZone;
  if (typeof timeZone === "string") {
    const tz = timeZone.trim();
    timeZone = tz ? canonicalTimeZone(tz) : null;
    if (tz && !timeZone)
      throw invalid(
        `timeZone must be an IANA time zone such as Europe/Lisbon or America/New_York, got "${tz.slice(0, 64)}".`,
      );
  }
  const workingHours = input.workingHours ? normaliseHours(input.workingHours) : input.workingHours;
  const changed = Object.entries({ name, title, timeZone, workingHours })
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  if (changed.length === 0 && !input.notificationPreferences?.length)
    throw invalid("Nothing to change: give name, title, timeZone, workingHours or notificationPreferences.");
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    if (name !== undefined) await tx.update(users).set({ name }).where(eq(users.id, userId));
    const facts = {
      ...(title !== undefined && { title }),
      ...(timeZone !== undefined && { timeZone }),
      ...(workingHours !== undefined && { workingHours }),
    };
    if (Object.keys(facts).length) {
      await tx
        .insert(userProfiles)
        .values({ userId, title: null, timeZone: null, workingHours: null, ...facts, updatedAt: now })
        .onConflictDoUpdate({ target: userProfiles.userId, set: { ...facts, updatedAt: now } });
    }
    if (changed.length)
      await tx.insert(auditLog).values({
        companyId: null,
        userId,
        credentialKind: ctx.principal.credential.kind,
        credentialId: ctx.principal.credential.id,
        action: "profile.update",
        entityType: "user",
        entityId: userId,
        detail: { changed },
        createdAt: now,
      });
    if (input.notificationPreferences?.length)
      await writePreferences(deps, userId, input.notificationPreferences, {
        kind: ctx.principal.credential.kind,
        id: ctx.principal.credential.id,
      });
  });
  return {
    userId,
    changed: [...changed, ...(input.notificationPreferences?.length ? ["notificationPreferences"] : [])],
    status: "updated",
  };
}
