/**
 * The frame every signed-in page shares, the portal's and the domains':
 * header with the company switcher and sign-out, navigation, the page in
 * `main`; and `render`, which sends a page with the security headers these
 * pages always want. Hono's JSX escapes every interpolated value, so
 * user-supplied text (key names, company names, approval titles) is
 * rendered as text, never markup.
 *
 * The frame knows the portal only by its fixed URLs (/, /company, /logout)
 * and asks it for the navigation through `setNavigation`: which entries a
 * person sees is the portal's decision (src/portal/nav.ts), not the kit's.
 */
import type { Context } from "hono";
import type { Child, FC, PropsWithChildren } from "hono/jsx";
import { Csrf } from "./forms";
import type { Viewer } from "./signed-in";
import { PORTAL_CSS_HASH, PORTAL_CSS_PATH } from "./style";

/** One navigation entry; `unread` (> 0) shows a count next to it. */
export interface NavLink {
  href: string;
  label: string;
  unread?: number;
  /** An account or company setting rather than work: drawn after the work entries, set apart. */
  settings?: boolean;
}

let navigation: (viewer: Viewer) => NavLink[] = () => [];
/** Set once by the portal when it mounts: the entries a viewer sees. */
export function setNavigation(fn: (viewer: Viewer) => NavLink[]) {
  navigation = fn;
}

/** Whether `path` (the page being shown) sits under the navigation entry `href`. */
const current = (path: string, href: string) => path === href || (href !== "/" && path.startsWith(`${href}/`));

const NavEntry: FC<{ n: NavLink; path: string }> = ({ n, path }) =>
  n.unread ? (
    <a href={n.href} aria-current={path === n.href ? "page" : undefined} aria-label={`${n.label}, ${n.unread} unread`}>
      {n.label} <span class="badge unread">{n.unread > 99 ? "99+" : n.unread}</span>
    </a>
  ) : (
    <a href={n.href} aria-current={current(path, n.href) ? "page" : undefined}>
      {n.label}
    </a>
  );

/** `focused` pages (the consent screen) keep only the brand and sign-out: switching company there would lose the request. */
const Header: FC<{ viewer: Viewer | null; path: string; focused?: boolean }> = ({ viewer, path, focused }) => (
  <header class="top">
    <div class="bar">
      <a class="brand" href="/">
        Plinth
      </a>
      {viewer && !focused && viewer.companies.length > 1 && (
        <form class="switcher" method="post" action="/company">
          <Csrf viewer={viewer} />
          <input type="hidden" name="next" value={path} />
          <label class="inline" for="company-switch">
            <span class="muted small">Company</span>
          </label>
          <select id="company-switch" name="company_id">
            {viewer.companies.map((m) => (
              <option value={String(m.id)} selected={m.id === viewer.active?.id}>
                {m.name}
              </option>
            ))}
          </select>
          <button class="secondary" type="submit">
            Switch
          </button>
        </form>
      )}
      {viewer && !focused && viewer.companies.length === 1 && <span class="muted small">{viewer.active?.name}</span>}
      {viewer && (
        <form class="signout inline" method="post" action="/logout">
          <Csrf viewer={viewer} />
          <span class="muted small">{viewer.user.email} </span>
          <button class="secondary" type="submit">
            Sign out
          </button>
        </form>
      )}
    </div>
    {viewer && !focused && (
      <nav class="main" aria-label="Portal">
        {navigation(viewer)
          .filter((n) => !n.settings)
          .map((n) => (
            <NavEntry n={n} path={path} />
          ))}
        <span class="nav-settings">
          {navigation(viewer)
            .filter((n) => n.settings)
            .map((n) => (
              <NavEntry n={n} path={path} />
            ))}
        </span>
      </nav>
    )}
  </header>
);

/**
 * A whole page: `path` marks the current navigation entry; `narrow` for forms that read better in one column (sign-in);
 * `wide` for pages laid out in columns side by side (a kanban board).
 */
export const Layout: FC<
  PropsWithChildren<{
    title: string;
    viewer: Viewer | null;
    path: string;
    narrow?: boolean;
    wide?: boolean;
    focused?: boolean;
  }>
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
      <Header viewer={p.viewer} path={p.path} focused={p.focused} />
      <main class={p.narrow ? "narrow" : p.wide ? "wide" : undefined}>{p.children}</main>
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
  // same-origin, not no-referrer: under no-referrer browsers send `Origin: null` on our own forms (see src/portal/guard.ts).
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", "no-store");
  return c.html(`<!doctype html>${page}`, opts.status ?? 200);
}
