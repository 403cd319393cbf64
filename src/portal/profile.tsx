/**
 * Your profile (/settings/profile): name, title, time zone, working hours
 * and what you are notified about, in the inbox and by email. The same
 * verbs as the profile tools. Working hours are typed per weekday as ranges
 * ("09:00-12:30, 13:30-17:30"); an empty day is a day off.
 */
import type { Context, Hono } from "hono";
import type { ActorContext, Deps } from "../core/context";
import { invalid, isAppError } from "../core/errors";
import { readPreferences, type PreferenceUpdate } from "../domains/notifications/preferences";
import { WEEKDAYS, type WorkingHours } from "../domains/profile/hours";
import { getProfile, updateProfile } from "../domains/profile/verbs";
import { signedIn, type PortalEnv } from "./guard";
import { Csrf, Field } from "../ui/forms";
import { DataTable } from "../ui/table";
import { Layout, render } from "../ui/layout";
import { Notice } from "../ui/notice";
import type { Session } from "./session";

const PATH = "/settings/profile";
const DAY_NAMES: Record<string, string> = {
  mon: "Monday",
  tue: "Tuesday",
  wed: "Wednesday",
  thu: "Thursday",
  fri: "Friday",
  sat: "Saturday",
  sun: "Sunday",
};
const ZONES: string[] = (() => {
  try {
    return (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
})();

/** The person acting on their own profile: it belongs to no company, so any membership (or none) will do. */
function selfActor(deps: Deps, c: Context<PortalEnv>, s: Session): ActorContext {
  return {
    deps,
    principal: {
      userId: s.user.id,
      credential: { kind: "session", id: 0, name: "portal" },
      scopes: ["*"],
      companies: s.companies,
      requireCmsApproval: false,
    },
    company: s.active ?? { id: 0, name: "", role: "viewer" },
    requestId: c.get("requestId") ?? "",
  };
}

type Profile = Awaited<ReturnType<typeof getProfile>>;

const hoursText = (h: WorkingHours | null, day: string) =>
  (h?.[day as keyof WorkingHours] ?? []).map((r) => `${r.start}-${r.end}`).join(", ");

function parseHours(form: { text(n: string, o: { label: string; max: number }): string }): WorkingHours | null {
  const out: WorkingHours = {};
  for (const d of WEEKDAYS) {
    const raw = form.text(`hours_${d}`, { label: DAY_NAMES[d]!, max: 100 });
    if (!raw) continue;
    out[d] = raw.split(",").map((part) => {
      const m = /^\s*(\d{1,2}:\d\d)\s*[-–]\s*(\d{1,2}:\d\d)\s*$/.exec(part);
      if (!m) throw invalid(`${DAY_NAMES[d]}: write ranges like 09:00-17:30, separated by commas.`);
      return { start: m[1]!.padStart(5, "0"), end: m[2]!.padStart(5, "0") };
    });
  }
  return Object.keys(out).length ? out : null;
}

const ProfilePage = (p: { session: Session; profile: Profile; error?: string; notice?: string }) => {
  const pr = p.profile;
  return (
    <Layout title="Profile" viewer={p.session} path={PATH}>
      <h1>Your profile</h1>
      {p.notice && <Notice kind="ok">{p.notice}</Notice>}
      {p.error && <Notice kind="error">{p.error}</Notice>}
      <form method="post" action={PATH}>
        <Csrf viewer={p.session} />
        <div class="card">
          <Field id="p-name" label="Name">
            <input id="p-name" name="name" maxlength={100} value={pr.name ?? ""} autocomplete="name" />
          </Field>
          <Field id="p-title" label="Title">
            <input
              id="p-title"
              name="title"
              maxlength={100}
              value={pr.title ?? ""}
              placeholder="Designer, Account manager…"
            />
          </Field>
          <Field id="p-tz" label="Time zone">
            <select id="p-tz" name="time_zone">
              <option value="" selected={!pr.timeZone}>
                Not set
              </option>
              {ZONES.map((z) => (
                <option value={z} selected={z === pr.timeZone}>
                  {z}
                </option>
              ))}
            </select>
          </Field>
          {pr.localTime && (
            <p class="muted small">
              Your local time now: {pr.localTime}
              {pr.workingNow === false ? " (outside your working hours)" : ""}
            </p>
          )}
        </div>
        <h2>Working hours</h2>
        <p class="muted small">
          In your time zone, like 09:00-17:30 or 09:00-12:30, 13:30-17:30. Leave a day empty when you do not work. Email
          about notifications waits for your working hours.
        </p>
        <div class="card">
          {WEEKDAYS.map((d) => (
            <>
              <Field id={`p-${d}`} label={DAY_NAMES[d]}>
                <input id={`p-${d}`} name={`hours_${d}`} maxlength={100} value={hoursText(pr.workingHours, d)} />
              </Field>
            </>
          ))}
        </div>
        <h2 id="notifications">Notifications</h2>
        <p class="muted small">
          Email comes as one digest a few minutes after the first notification, leaving out what you already read.
        </p>
        <DataTable columns={["About", "Inbox", "Email"]}>
          {pr.notificationPreferences.types.map((t) => (
            <tr>
              <td>
                {t.label}
                <input type="hidden" name="types" value={t.type} />
              </td>
              <td>
                <input
                  type="checkbox"
                  name={`inapp_${t.type}`}
                  aria-label={`${t.label}: in the inbox`}
                  checked={t.inApp}
                />
              </td>
              <td>
                <input type="checkbox" name={`email_${t.type}`} aria-label={`${t.label}: by email`} checked={t.email} />
              </td>
            </tr>
          ))}
        </DataTable>
        <div class="actions">
          <button type="submit">Save</button>
        </div>
      </form>
    </Layout>
  );
};

export function profileRoutes(app: Hono<PortalEnv>, deps: Deps) {
  const show = async (c: Context<PortalEnv>, extra: { error?: string; notice?: string } = {}, status?: 400) => {
    const s = c.get("session");
    return render(c, <ProfilePage session={s} profile={await getProfile(selfActor(deps, c, s))} {...extra} />, {
      status,
    });
  };

  app.get(PATH, signedIn(deps), async (c) =>
    show(c, { notice: c.req.query("done") === "saved" ? "Saved." : undefined }),
  );

  app.post(PATH, signedIn(deps), async (c) => {
    const s = c.get("session");
    const form = c.get("form");
    try {
      const current = new Map((await readPreferences(deps, s.user.id)).types.map((t) => [t.type, t]));
      const types = form.list("types", { max: 100, maxLength: 100 });
      if (types.some((t) => !current.has(t)))
        throw invalid("The notification settings changed meanwhile; reload the page.");
      // Only what the person changed becomes a setting of their own; the rest keeps following the defaults.
      const prefs: PreferenceUpdate[] = types
        .map((t) => ({ type: t, inApp: form.bool(`inapp_${t}`), email: form.bool(`email_${t}`) }))
        .filter((p) => p.inApp !== current.get(p.type)!.inApp || p.email !== current.get(p.type)!.email);
      await updateProfile(selfActor(deps, c, s), {
        name: form.text("name", { label: "Name", max: 100 }) || null,
        title: form.text("title", { label: "Title", max: 100 }) || null,
        timeZone: form.text("time_zone", { label: "Time zone", max: 64 }) || null,
        workingHours: parseHours(form),
        notificationPreferences: prefs,
      });
    } catch (e) {
      if (!isAppError(e) || e.code !== "validation") throw e;
      return await show(c, { error: e.message }, 400);
    }
    return c.redirect(`${PATH}?done=saved`, 303);
  });
}
