/**
 * The frame every portal page shares: header with the company switcher and
 * sign-out, navigation, notices; and `render`, which sends a page with the
 * security headers the portal always wants. Hono's JSX escapes every
 * interpolated value, so user-supplied text (key names, company names,
 * approval titles) is rendered as text, never markup.
 */
import type { Context } from "hono";
import type { Child, FC, PropsWithChildren } from "hono/jsx";
import type { Role } from "../core/roles";
import { roleAllows } from "../core/scopes";
import { PORTAL_CSS_HASH, PORTAL_CSS_PATH } from "./style";
import type { Session } from "./session";

export const NAV = [
  { href: "/", label: "Overview" },
  { href: "/inbox", label: "Inbox" },
  { href: "/approvals", label: "Approvals" },
  { href: "/settings/api-keys", label: "API keys" },
  { href: "/settings/rest-keys", label: "REST keys" },
  { href: "/settings/connections", label: "Connected apps" },
  { href: "/team", label: "Team" },
  { href: "/settings/profile", label: "Profile" },
] as const;

export interface NavItem {
  href: string;
  label: string;
  minRole?: Role;
}

/** Entries domains contribute (Domain.portal.nav), set once by portalRoutes; shown after Approvals. */
let domainNav: NavItem[] = [];
export function setDomainNav(items: NavItem[]) {
  domainNav = items;
}

/** The navigation a member sees: the core's entries and the domains' entries their role in the active company reaches. */
export function navFor(session: Session): NavItem[] {
  const role = session.active?.role;
  const extra = domainNav.filter(
    (n) => !n.minRole || n.minRole === "viewer" || (role !== undefined && roleAllows(role, false, n.minRole)),
  );
  const at = NAV.findIndex((n) => n.href === "/approvals") + 1;
  return [...NAV.slice(0, at), ...extra, ...NAV.slice(at)];
}

/** Whether `path` (the page being shown) sits under the navigation entry `href`. */
const current = (path: string, href: string) => path === href || (href !== "/" && path.startsWith(`${href}/`));

export const Csrf: FC<{ session: Session }> = ({ session }) => (
  <input type="hidden" name="_csrf" value={session.csrfToken} />
);

/** A one-button POST form for a destructive action (revoke, disconnect, remove), CSRF token included. */
export const DangerButton: FC<PropsWithChildren<{ session: Session; action: string; label: string }>> = ({
  session,
  action,
  label,
  children,
}) => (
  <form class="inline" method="post" action={action}>
    <Csrf session={session} />
    {children}
    <button class="danger" type="submit">
      {label}
    </button>
  </form>
);

export type NoticeKind = "ok" | "error" | "warn" | "info";
export const Notice: FC<PropsWithChildren<{ kind?: NoticeKind }>> = ({ kind = "info", children }) => (
  <div class={`notice ${kind === "info" ? "" : kind}`} role={kind === "error" ? "alert" : "status"}>
    {children}
  </div>
);

/** "← Newer · Page n of m · Older →" under a newest-first list; nothing when it fits one page. */
export const Pager: FC<{ pageNo: number; pages: number; href: (pageNo: number) => string }> = ({
  pageNo,
  pages,
  href,
}) =>
  pages > 1 ? (
    <p>
      {pageNo > 1 && <a href={href(pageNo - 1)}>← Newer</a>} Page {pageNo} of {pages}{" "}
      {pageNo < pages && <a href={href(pageNo + 1)}>Older →</a>}
    </p>
  ) : null;

/** `focused` pages (the consent screen) keep only the brand and sign-out: switching company there would lose the request. */
const Header: FC<{ session: Session | null; path: string; focused?: boolean }> = ({ session, path, focused }) => (
  <header class="top">
    <div class="bar">
      <a class="brand" href="/">
        Plinth
      </a>
      {session && !focused && session.companies.length > 1 && (
        <form class="switcher" method="post" action="/company">
          <Csrf session={session} />
          <input type="hidden" name="next" value={path} />
          <label class="inline" for="company-switch">
            <span class="muted small">Company</span>
          </label>
          <select id="company-switch" name="company_id">
            {session.companies.map((m) => (
              <option value={String(m.id)} selected={m.id === session.active?.id}>
                {m.name}
              </option>
            ))}
          </select>
          <button class="secondary" type="submit">
            Switch
          </button>
        </form>
      )}
      {session && !focused && session.companies.length === 1 && <span class="muted small">{session.active?.name}</span>}
      {session && (
        <form class="signout inline" method="post" action="/logout">
          <Csrf session={session} />
          <span class="muted small">{session.user.email} </span>
          <button class="secondary" type="submit">
            Sign out
          </button>
        </form>
      )}
    </div>
    {session && !focused && (
      <nav class="main" aria-label="Portal">
        {navFor(session).map((n) =>
          n.href === "/inbox" && session.unread > 0 ? (
            <a
              href={n.href}
              aria-current={path === n.href ? "page" : undefined}
              aria-label={`Inbox, ${session.unread} unread`}
            >
              {n.label} <span class="badge unread">{session.unread > 99 ? "99+" : session.unread}</span>
            </a>
          ) : (
            <a href={n.href} aria-current={current(path, n.href) ? "page" : undefined}>
              {n.label}
            </a>
          ),
        )}
      </nav>
    )}
  </header>
);

export const Layout: FC<
  PropsWithChildren<{ title: string; session: Session | null; path: string; narrow?: boolean; focused?: boolean }>
> = (p) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="same-origin" />
      <title>{p.title} · Plinth</title>
      <link rel="stylesheet" href={`${PORTAL_CSS_PATH}?v=${PORTAL_CSS_HASH}`} />
    </head>
    <body>
      <Header session={p.session} path={p.path} focused={p.focused} />
      <main class={p.narrow ? "narrow" : undefined}>{p.children}</main>
    </body>
  </html>
);

export interface RenderOptions {
  status?: 200 | 400 | 403 | 404 | 409 | 410 | 413 | 422 | 429;
  /** Extra CSP form-action sources (the consent form redirects to the client). */
  formAction?: string[];
  /**
   * A page that updates itself live (the chat): its one inline script carries
   * this nonce, and the policy then allows that script and same-origin
   * connections (EventSource) — nothing else. Pages without it run no script.
   */
  scriptNonce?: string;
}

/** Sends a page with no-store caching and a strict policy: no scripts at all (unless one nonce'd script is asked for), no framing. */
export function render(c: Context, page: Child, opts: RenderOptions = {}) {
  const formAction = ["'self'", ...(opts.formAction ?? [])].join(" ");
  const script = opts.scriptNonce ? `; script-src 'nonce-${opts.scriptNonce}'; connect-src 'self'` : "";
  c.header(
    "Content-Security-Policy",
    `default-src 'none'; style-src 'self'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'${script}`,
  );
  c.header("X-Frame-Options", "DENY");
  c.header("X-Content-Type-Options", "nosniff");
  // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` on our own forms (see guard.ts).
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
  return c.html(`<!doctype html>${page}`, opts.status ?? 200);
}

/** Date-times in the portal: UTC, minute precision, unambiguous on any device. */
export function when(d: Date | null | undefined): string {
  if (!d) return "—";
  return d.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}
