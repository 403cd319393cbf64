/**
 * The signed-in member's own connected calendars in the portal (issue 33):
 * the list calendars_list gives for them (kind, name, the address as the
 * tools show it, last sync, ok or failing with the error), "Check now"
 * (calendars_check), "Disconnect" behind a confirmation box (no script),
 * and the two ways to connect one: an ICS feed address, or a CalDAV
 * account whose password is sealed by the verb and never sent back.
 *
 * Every form acts through the MCP tools' verbs (connectCalendar,
 * listCalendars, checkCalendar, disconnectCalendar) as the signed-in
 * person, so the verbs' own rules hold: connecting and disconnecting need
 * bookings:write (owners and admins; a viewer sees the notice and a post
 * of theirs is 403 before the form is read), reading and checking need
 * bookings:read. The verbs let an admin act on any member's calendar of
 * the company; this page is the viewer's own, so a calendar id that is not
 * theirs is "not found" (404) inside the lookup, as another company's is.
 * A refused connection (unreadable feed, private address, wrong login)
 * re-shows the form with the verb's reason and the address and username
 * typed, never the password.
 */
import type { Context, Hono } from "hono";
import { invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { StatusBadge } from "../../ui/badge";
import { answerForm } from "../../ui/form-answer";
import type { Form } from "../../ui/form-data";
import { when } from "../../ui/format";
import { Csrf } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { actorOf, canManage, type PageEnv, viewerOf } from "../../ui/signed-in";
import { DataTable } from "../../ui/table";
import { checkCalendar, connectCalendar, disconnectCalendar, listCalendars } from "./calendars";

export const CALENDARS_PATH = "/bookings/calendars";
const BOOKINGS_PATH = "/bookings";
const MAX_URL = 2000;

type Listed = Awaited<ReturnType<typeof listCalendars>>["items"][number];

/** What a re-shown connect form keeps: the address, name and username typed, never the password. */
interface Again {
  form: "ics" | "caldav" | "row";
  error: string;
  url?: string;
  name?: string;
  username?: string;
  writeCalendar?: string;
  row?: number;
}

const NOTICES: Record<string, string> = {
  connected: "Calendar connected; its busy times now block the pages you host.",
  checked: "Calendar read again.",
  disconnected: "Calendar disconnected; its events no longer block your pages.",
};

/** The viewer's own calendars, through calendars_list's verb. */
async function mine(c: Context<PageEnv>): Promise<Listed[]> {
  return (await listCalendars(actorOf(c), { member: viewerOf(c).user.id })).items;
}

/** One of the viewer's own calendars by the id in the path; anyone else's (or none) is 404. */
async function mineById(c: Context<PageEnv>): Promise<Listed> {
  const raw = c.req.param("cid") ?? "";
  const id = /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : 0;
  const row = id ? (await mine(c)).find((x) => x.id === id) : undefined;
  if (!row) throw notFound(`Calendar ${raw.slice(0, 20)} not found among your calendars.`);
  return row;
}

const ago = (at: string | null) => (at ? when(new Date(at)) : "never");

async function calendarsPage(c: Context<PageEnv>, again?: Again) {
  const viewer = viewerOf(c);
  const items = await mine(c);
  const manage = canManage(viewer);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const err = (form: Again["form"], row?: number) =>
    again?.form === form && (row === undefined || again.row === row) ? again.error : undefined;
  const kept = (form: "ics" | "caldav", k: "url" | "name" | "username" | "writeCalendar") =>
    again?.form === form ? (again[k] ?? "") : "";
  return render(
    c,
    <Layout title="Your calendars" viewer={viewer} path={BOOKINGS_PATH}>
      <p class="crumbs small">
        <a href={BOOKINGS_PATH}>Bookings</a> / Your calendars
      </p>
      <PageHeader
        title="Your calendars"
        lead={`${items.length} connected · events in these calendars make you busy on every booking page you host`}
      />
      {notice && <Notice kind="ok">{notice}</Notice>}
      {err("row") && <Notice kind="error">{err("row")}</Notice>}
      {items.length === 0 ? (
        <div class="card">
          <p class="muted">No calendar connected. Connect one below, or with calendars_connect over MCP.</p>
        </div>
      ) : (
        <DataTable
          label="Your connected calendars"
          class="calendars"
          columns={["Calendar", "State", { label: "Last sync", hideSm: true }, "Actions"]}
        >
          {items.map((x) => (
            <tr data-calendar={x.id}>
              <td>
                <div>
                  {x.name} <span class="muted small">({x.kind === "caldav" ? "CalDAV" : "ICS feed"})</span>
                </div>
                <div class="muted small prose">{x.url}</div>
                {x.kind === "caldav" && x.username && <div class="muted small">as {x.username}</div>}
                {x.kind === "caldav" && x.writeCalendar && (
                  <div class="muted small prose">bookings written to {x.writeCalendar}</div>
                )}
              </td>
              <td>
                <StatusBadge tone={x.status === "ok" ? "ok" : "danger"}>{x.status}</StatusBadge>
                {x.lastError && <div class="small prose">{x.lastError}</div>}
              </td>
              <td class="hide-sm small">{ago(x.lastSyncAt)}</td>
              <td>
                <form method="post" action={`${CALENDARS_PATH}/${x.id}/check`}>
                  <Csrf viewer={viewer} />
                  <button class="secondary" type="submit" aria-label={`Check now: ${x.name}`}>
                    Check now
                  </button>
                </form>
                {manage && (
                  <form method="post" action={`${CALENDARS_PATH}/${x.id}/disconnect`}>
                    <Csrf viewer={viewer} />
                    <label class="inline small">
                      <input type="checkbox" name="confirm" value="on" required /> Yes, disconnect
                    </label>
                    <button class="danger" type="submit" aria-label={`Disconnect: ${x.name}`}>
                      Disconnect
                    </button>
                  </form>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {!manage && (
        <Notice kind="info">
          You can see and check your calendars; owners and admins connect and disconnect them (ask one, or use
          calendars_connect with their key).
        </Notice>
      )}
      {manage && (
        <div class="card-layout">
          <section class="card" aria-labelledby="h-ics" id="ics">
            <h2 id="h-ics">Connect an ICS feed</h2>
            <form method="post" action={`${CALENDARS_PATH}/ics`}>
              <Csrf viewer={viewer} />
              {err("ics") && <Notice kind="error">{err("ics")}</Notice>}
              <label for="ics-url">Feed address (https:// or webcal://)</label>
              <input id="ics-url" name="url" type="url" required maxlength={MAX_URL} value={kept("ics", "url")} />
              <label for="ics-name">Name (optional)</label>
              <input id="ics-name" name="name" maxlength={200} value={kept("ics", "name")} />
              <p class="muted small">Read once now; a feed that cannot be read is refused with the reason.</p>
              <div class="actions">
                <button type="submit">Connect feed</button>
              </div>
            </form>
          </section>
          <section class="card" aria-labelledby="h-caldav" id="caldav">
            <h2 id="h-caldav">Connect a CalDAV account</h2>
            <form method="post" action={`${CALENDARS_PATH}/caldav`}>
              <Csrf viewer={viewer} />
              {err("caldav") && <Notice kind="error">{err("caldav")}</Notice>}
              <label for="caldav-url">Server address</label>
              <input id="caldav-url" name="url" type="url" required maxlength={MAX_URL} value={kept("caldav", "url")} />
              <label for="caldav-username">Username</label>
              <input
                id="caldav-username"
                name="username"
                required
                maxlength={200}
                autocomplete="off"
                value={kept("caldav", "username")}
              />
              <label for="caldav-password">Password (an app password where the service has them)</label>
              <input id="caldav-password" name="password" type="password" required maxlength={500} autocomplete="off" />
              <label for="caldav-write">Calendar to write bookings to (optional; default the account's first)</label>
              <input id="caldav-write" name="writeCalendar" maxlength={500} value={kept("caldav", "writeCalendar")} />
              <label for="caldav-name">Name (optional)</label>
              <input id="caldav-name" name="name" maxlength={200} value={kept("caldav", "name")} />
              <p class="muted small">The login is tried now; the password is sealed and never shown again.</p>
              <div class="actions">
                <button type="submit">Connect account</button>
              </div>
            </form>
          </section>
        </div>
      )}
    </Layout>,
  );
}

/** Runs a write form's verb after the role check (a viewer is 403 whatever the form holds). */
function attempt(c: Context<PageEnv>, act: (f: Form) => Promise<string>, again: (error: string) => Promise<Response>) {
  authorize(actorOf(c), "bookings:write", { write: true });
  return answerForm(c, () => act(c.get("form")), again);
}

/** Registered before /bookings/:id, whose id pattern would otherwise take "calendars". */
export function bookingCalendarPages(app: Hono<PageEnv>) {
  app.get(CALENDARS_PATH, (c) => calendarsPage(c));

  app.post(`${CALENDARS_PATH}/ics`, (c) => {
    const p = c.get("form").params;
    return attempt(
      c,
      async (f) => {
        const url = f.text("url", { label: "Feed address", max: MAX_URL, required: true });
        const name = f.text("name", { label: "Name", max: 200 });
        await connectCalendar(actorOf(c), { kind: "ics", url, ...(name ? { name } : {}) });
        return `${CALENDARS_PATH}?done=connected`;
      },
      (error) =>
        calendarsPage(c, {
          form: "ics",
          error,
          url: (p.get("url") ?? "").slice(0, MAX_URL),
          name: (p.get("name") ?? "").slice(0, 200),
        }),
    );
  });

  app.post(`${CALENDARS_PATH}/caldav`, (c) => {
    const p = c.get("form").params;
    return attempt(
      c,
      async (f) => {
        const url = f.text("url", { label: "Server address", max: MAX_URL, required: true });
        const username = f.text("username", { label: "Username", max: 200, required: true });
        // Not trimmed: a password may begin or end with a space.
        const password = p.get("password") ?? "";
        if (!password) throw invalid("Password is required.");
        if (password.length > 500) throw invalid("Password must be at most 500 characters.");
        const writeCalendar = f.text("writeCalendar", { label: "Calendar to write to", max: 500 });
        const name = f.text("name", { label: "Name", max: 200 });
        await connectCalendar(actorOf(c), {
          kind: "caldav",
          url,
          username,
          password,
          ...(writeCalendar ? { writeCalendar } : {}),
          ...(name ? { name } : {}),
        });
        return `${CALENDARS_PATH}?done=connected`;
      },
      // The password is never put back into the page.
      (error) =>
        calendarsPage(c, {
          form: "caldav",
          error,
          url: (p.get("url") ?? "").slice(0, MAX_URL),
          username: (p.get("username") ?? "").slice(0, 200),
          writeCalendar: (p.get("writeCalendar") ?? "").slice(0, 500),
          name: (p.get("name") ?? "").slice(0, 200),
        }),
    );
  });

  // Checking is a read (bookings:read): a viewer may check their own calendar.
  app.post(`${CALENDARS_PATH}/:cid/check`, async (c) => {
    const row = await mineById(c);
    await checkCalendar(actorOf(c), { id: row.id });
    return c.redirect(`${CALENDARS_PATH}?done=checked`, 303);
  });

  app.post(`${CALENDARS_PATH}/:cid/disconnect`, (c) =>
    attempt(
      c,
      async (f) => {
        const row = await mineById(c);
        if (!f.bool("confirm")) throw invalid(`Tick "Yes, disconnect" to disconnect ${row.name}.`);
        await disconnectCalendar(actorOf(c), { id: row.id });
        return `${CALENDARS_PATH}?done=disconnected`;
      },
      (error) => calendarsPage(c, { form: "row", error }),
    ),
  );
}
