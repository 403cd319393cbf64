/**
 * The portal's navigation: its own pages, and the entries domains bring
 * with their pages (Domain.portal.nav), each shown to the roles it names.
 * The frame (src/ui/layout.tsx) draws whatever `navFor` returns; which
 * entries exist and who sees them is decided here.
 */
import type { Role } from "../core/roles";
import { roleAllows } from "../core/scopes";
import type { NavLink } from "../ui/layout";
import type { Viewer } from "../ui/signed-in";

export const NAV = [
  { href: "/", label: "Overview" },
  { href: "/inbox", label: "Inbox" },
  { href: "/approvals", label: "Approvals" },
  { href: "/settings/api-keys", label: "API keys", settings: true },
  { href: "/settings/rest-keys", label: "REST keys", settings: true },
  { href: "/settings/connections", label: "Connected apps", settings: true },
  { href: "/team", label: "Team", settings: true },
  { href: "/settings/profile", label: "Profile", settings: true },
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

/** The navigation a member sees: the core's entries and the domains' entries their role in the active company reaches; the inbox carries the unread count. */
export function navFor(viewer: Viewer): NavLink[] {
  const role = viewer.active?.role;
  const extra = domainNav.filter(
    (n) => !n.minRole || n.minRole === "viewer" || (role !== undefined && roleAllows(role, false, n.minRole)),
  );
  const at = NAV.findIndex((n) => n.href === "/approvals") + 1;
  return [...NAV.slice(0, at), ...extra, ...NAV.slice(at)].map((n) =>
    n.href === "/inbox"
      ? { href: n.href, label: n.label, unread: viewer.unread }
      : "settings" in n
        ? { href: n.href, label: n.label, settings: true }
        : { href: n.href, label: n.label },
  );
}
