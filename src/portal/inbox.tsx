/**
 * The inbox: a person's notifications from every company they belong to,
 * unread first, with the same verbs the notifications tools use. Every
 * action is a small POST form (no JavaScript): open (marks read, then goes
 * to the notification's portal link), read / unread, snooze, archive, and
 * mark all read. The header shows the unread count on every page.
 */
import type { Context, Hono } from "hono";
import type { Deps } from "../core/context";
import { AppError, invalid } from "../core/errors";
import { isPortalPath } from "../domains/notifications/notify";
import {
  archive,
  targetOf,
  listNotifications,
  markAllRead,
  markRead,
  portalInbox,
  snooze,
  VIEWS,
  type NotificationItem,
  type View,
} from "../domains/notifications/verbs";
import { signedIn, type PortalEnv } from "./guard";
import { setActiveCompany } from "./session";
import { Csrf } from "../ui/forms";
import { Layout, render } from "../ui/layout";
import { Notice } from "../ui/notice";
import { when } from "../ui/format";
import type { Session } from "./session";
import { StatusBadge } from "../ui/badge";
import { PageHeader } from "../ui/page-header";

const PATH = "/inbox";
const PER_PAGE = 20;

const TABS: { view: View; label: string }[] = [
  { view: "inbox", label: "Inbox" },
  { view: "unread", label: "Unread" },
  { view: "snoozed", label: "Snoozed" },
  { view: "archived", label: "Archived" },
];

/** Snooze choices: label and how long. */
const SNOOZES: Record<string, [string, number]> = {
  "1h": ["1 hour", 3600_000],
  "3h": ["3 hours", 3 * 3600_000],
  "1d": ["1 day", 24 * 3600_000],
  "3d": ["3 days", 3 * 24 * 3600_000],
  "1w": ["1 week", 7 * 24 * 3600_000],
};

function viewOf(raw: string | undefined): View {
  return (VIEWS as readonly string[]).includes(raw ?? "") ? (raw as View) : "inbox";
}

function here(view: View, pageNo: number) {
  const q = new URLSearchParams();
  if (view !== "inbox") q.set("view", view);
  if (pageNo > 1) q.set("page", String(pageNo));
  const s = q.toString();
  return s ? `${PATH}?${s}` : PATH;
}

const Item = (p: { n: NotificationItem; session: Session; back: string; several: boolean }) => {
  const { n } = p;
  const post = (action: string, label: string, cls = "secondary", extra?: any) => (
    <form class="inline" method="post" action={`${PATH}/${n.id}/${action}`}>
      <Csrf viewer={p.session} />
      <input type="hidden" name="back" value={p.back} />
      {extra}
      <button class={cls} type="submit">
        {label}
      </button>
    </form>
  );
  return (
    <li class={`note${n.read ? "" : " new"}`} id={`n${n.id}`}>
      <p class="note-title">
        {!n.read && <StatusBadge tone="unread">new</StatusBadge>} {n.title}
      </p>
      <p class="muted small">
        {p.several && <StatusBadge>{n.company}</StatusBadge>} {n.actor?.name && <>{n.actor.name} · </>}
        {when(new Date(n.createdAt))}
        {n.snoozedUntil && <> · snoozed until {when(new Date(n.snoozedUntil))}</>}
      </p>
      {n.body && <p class="small">{n.body}</p>}
      <div class="actions">
        {n.link && post("open", "Open", "")}
        {n.read ? post("unread", "Mark unread") : post("read", "Mark read")}
        {n.state !== "archived" && (
          <form class="inline switcher" method="post" action={`${PATH}/${n.id}/snooze`}>
            <Csrf viewer={p.session} />
            <input type="hidden" name="back" value={p.back} />
            <select name="for" aria-label={`Snooze “${n.title}” for`}>
              {Object.entries(SNOOZES).map(([k, [label]]) => (
                <option value={k}>{label}</option>
              ))}
            </select>
            <button class="secondary" type="submit">
              Snooze
            </button>
          </form>
        )}
        {n.state !== "archived" && post("archive", "Archive")}
      </div>
    </li>
  );
};

export function inboxRoutes(app: Hono<PortalEnv>, deps: Deps) {
  app.get(PATH, signedIn(deps), async (c) => {
    const session = c.get("session");
    const view = viewOf(c.req.query("view"));
    const pageRaw = c.req.query("page") ?? "1";
    const pageNo = /^\d{1,6}$/.test(pageRaw) && Number(pageRaw) >= 1 ? Number(pageRaw) : 1;
    const box = await portalInbox(deps, session.user.id);
    const list = await listNotifications(box, { view, limit: PER_PAGE, offset: (pageNo - 1) * PER_PAGE });
    const back = here(view, pageNo);
    const done = c.req.query("done");
    return render(
      c,
      <Layout title={session.unread ? `Inbox (${session.unread})` : "Inbox"} viewer={session} path={PATH}>
        <PageHeader
          title="Inbox"
          lead={
            <>
              {list.unreadCount === 0 ? "Nothing unread." : `${list.unreadCount} unread.`}{" "}
              <a href="/settings/profile#notifications">Choose what you are notified about</a>
            </>
          }
        />
        {done === "all" && <Notice kind="ok">Everything is marked read.</Notice>}
        <nav class="tabs" aria-label="Inbox views">
          {TABS.map((t) => (
            <a href={here(t.view, 1)} aria-current={t.view === view ? "page" : undefined}>
              {t.label}
            </a>
          ))}
        </nav>
        {list.unreadCount > 0 && view !== "archived" && view !== "snoozed" && (
          <form class="inline" method="post" action={`${PATH}/read-all`}>
            <Csrf viewer={session} />
            <input type="hidden" name="back" value={back} />
            <button class="secondary" type="submit">
              Mark all read
            </button>
          </form>
        )}
        <div class="card">
          {list.items.length === 0 ? (
            <p class="muted">
              {view === "snoozed"
                ? "Nothing snoozed."
                : view === "archived"
                  ? "Nothing archived."
                  : "You are all caught up."}
            </p>
          ) : (
            <ul class="plain" aria-label="Notifications">
              {list.items.map((n) => (
                <Item n={n} session={session} back={back} several={session.companies.length > 1} />
              ))}
            </ul>
          )}
        </div>
        {(pageNo > 1 || list.nextOffset !== null) && (
          <p>
            {pageNo > 1 && <a href={here(view, pageNo - 1)}>← Newer</a>}{" "}
            {list.nextOffset !== null && <a href={here(view, pageNo + 1)}>Older →</a>}
          </p>
        )}
      </Layout>,
    );
  });

  /** Where to go after an action: back to the inbox page it came from. */
  const backTo = (c: Context<PortalEnv>) => {
    const b = c.get("form").text("back", { max: 200 });
    return b === PATH || b.startsWith(`${PATH}?`) ? b : PATH;
  };
  const idParam = (raw: string) => {
    if (!/^\d{1,15}$/.test(raw)) throw new AppError("not_found", "No such notification.");
    return Number(raw);
  };

  app.post(`${PATH}/read-all`, signedIn(deps), async (c) => {
    const s = c.get("session");
    await markAllRead(await portalInbox(deps, s.user.id));
    const b = backTo(c);
    return c.redirect(`${b}${b.includes("?") ? "&" : "?"}done=all`, 303);
  });

  app.post(`${PATH}/:id/:action`, signedIn(deps), async (c) => {
    const s = c.get("session");
    const id = idParam(c.req.param("id"));
    const box = await portalInbox(deps, s.user.id);
    const action = c.req.param("action");
    switch (action) {
      case "open": {
        await markRead(box, [id], true);
        const target = await targetOf(box, id);
        const link = target?.link ?? null;
        // Links name records of the notification's company (/chat/57): act on that company, as the switcher would.
        if (link && target && target.companyId !== s.active?.id) await setActiveCompany(deps, s, target.companyId);
        // Links are checked when stored; checked again here because a redirect is where an open redirect would bite.
        return c.redirect(link && isPortalPath(link) ? link : PATH, 303);
      }
      case "read":
        await markRead(box, [id], true);
        break;
      case "unread":
        await markRead(box, [id], false);
        break;
      case "archive":
        await archive(box, [id]);
        break;
      case "snooze": {
        const choice = SNOOZES[c.get("form").text("for", { label: "Snooze", max: 4, required: true })];
        if (!choice) throw invalid("Choose how long to snooze for from the list.");
        await snooze(box, [id], new Date(deps.clock.ms() + choice[1]));
        break;
      }
      default:
        throw new AppError("not_found", "No such page.");
    }
    return c.redirect(`${backTo(c)}#n${id}`, 303);
  });
}
