/**
 * The navigation domains contribute (Domain.portal.nav): placed after
 * Approvals, shown by the role the member has in the active company.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { domains } from "../../src/domains";
import { navFor, setDomainNav } from "../../src/portal/nav";
import type { Session } from "../../src/portal/session";

const session = (role: "owner" | "admin" | "viewer"): Session => ({
  idHash: "x",
  csrfToken: "t",
  user: { id: 1, email: "a@b.test", name: null },
  companies: [{ id: 1, name: "Acme", role }],
  active: { id: 1, name: "Acme", role },
  unread: 0,
});

afterAll(() => setDomainNav(domains.flatMap((d) => d.portal?.nav ?? [])));

describe("domain navigation", () => {
  test("the domains' entries follow Approvals, in the order of the domain list", () => {
    setDomainNav(domains.flatMap((d) => d.portal?.nav ?? []));
    const hrefs = navFor(session("viewer")).map((n) => n.href);
    expect(hrefs.slice(0, 12)).toEqual([
      "/",
      "/inbox",
      "/approvals",
      "/store",
      "/tickets",
      "/bookings",
      "/crm",
      "/projects",
      "/hosting",
      "/billing",
      "/chat",
      "/ai/credits",
    ]);
    expect(hrefs).toContain("/settings/profile");
  });

  test("an entry with a minimum role is shown only to members who have it", () => {
    setDomainNav([
      { href: "/everyone", label: "Everyone" },
      { href: "/managers", label: "Managers", minRole: "admin" },
      { href: "/owners", label: "Owners", minRole: "owner" },
    ]);
    const seen = (role: "owner" | "admin" | "viewer") =>
      navFor(session(role))
        .map((n) => n.href)
        .filter((h) => ["/everyone", "/managers", "/owners"].includes(h));
    expect(seen("viewer")).toEqual(["/everyone"]);
    expect(seen("admin")).toEqual(["/everyone", "/managers"]);
    expect(seen("owner")).toEqual(["/everyone", "/managers", "/owners"]);
    const none = { ...session("owner"), active: null, companies: [] };
    expect(navFor(none).map((n) => n.href)).not.toContain("/managers");
  });
});
