/**
 * Domains' pages (Domain.portal) are mounted by the portal behind sign-in
 * (src/portal/guard.ts: pageRoutes) and see only what the UI kit says a
 * signed-in page receives (src/ui/signed-in.ts). Over HTTP on the real
 * server: every route any domain registers sends a signed-out visitor to
 * sign in, GET or POST, although no domain page installs a guard itself;
 * signed in, the page gets the viewer and acts as them; someone without
 * a company is told so (the actor is asked for lazily), never a 500.
 * And the kit's components escape what they are given.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Hono } from "hono";
import type { Deps } from "../../src/core/context";
import { domains } from "../../src/domains";
import { createUser } from "../../src/domains/accounts/verbs";
import { pageRoutes } from "../../src/portal/guard";
import { StatusBadge } from "../../src/ui/badge";
import { Field } from "../../src/ui/forms";
import { PageHeader } from "../../src/ui/page-header";
import type { PageEnv } from "../../src/ui/signed-in";
import { DataTable, EmptyState } from "../../src/ui/table";
import { Browser } from "../oauth/helpers";
import { PASSWORD, portalChatWorld, type PortalChatWorld } from "../chat/portal-world";

let w: PortalChatWorld;
beforeAll(async () => {
  w = await portalChatWorld();
});
afterAll(async () => await w?.s.stop());

/** Every route the domains register for their pages, with its parameters filled in. */
function domainRoutes(): { method: string; path: string }[] {
  const pages = new Hono<PageEnv>();
  for (const d of domains) d.portal?.routes(pages, w.s.deps);
  return pages.routes.map((r) => ({
    method: r.method,
    path: r.path.replace(/:[a-z]+(\{[^}]*\})?/gi, "1"),
  }));
}

describe("domain pages behind the portal's guard", () => {
  test("signed out, every route of every domain's pages redirects to sign-in (GET and POST)", async () => {
    const routes = domainRoutes();
    // The three page sets of today; more come (the check covers them too).
    expect(routes.map((r) => r.path)).toEqual(expect.arrayContaining(["/chat", "/ai/credits", "/billing"]));
    expect(routes.some((r) => r.method === "POST")).toBe(true);
    const stranger = new Browser(w.s.config.publicUrl);
    for (const r of routes) {
      const res = r.method === "POST" ? await stranger.post(r.path, { x: "1" }) : await stranger.get(r.path);
      expect({ route: `${r.method} ${r.path}`, status: res.status }).toEqual({
        route: `${r.method} ${r.path}`,
        status: 303,
      });
      expect(res.headers.get("location")).toStartWith("/login?next=");
    }
  });

  test("signed in, a domain page gets the viewer (frame, CSRF token) and acts as them in the active company", async () => {
    const olga = await w.signIn("olga");
    const res = await olga.get("/billing");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Billing of Acme");
    expect(html).toContain("olga@acme.test");
    expect(html).toContain(`name="_csrf" value="${await olga.csrf()}"`);
    // A post without the token is refused before the domain's handler runs.
    const refused = await olga.post("/billing/settings", { currency: "EUR", seller_name: "Acme" });
    expect(refused.status).toBe(403);
  });

  test("someone without any company gets a clear 404 on a domain page, not a 500", async () => {
    await createUser(w.s.deps, { email: "nobody@acme.test", name: "No Body", password: PASSWORD });
    const b = new Browser(w.s.config.publicUrl);
    expect((await b.signIn("nobody@acme.test", PASSWORD)).status).toBe(303);
    for (const path of ["/billing", "/ai/credits", "/chat"]) {
      const res = await b.get(path);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("You do not belong to any company yet");
    }
  });

  test("a page set may not put middleware on every path (it would run before sign-in itself)", () => {
    const app = new Hono<any>();
    expect(() =>
      pageRoutes(app, {} as Deps, (pages) => {
        pages.use(async (_c, next) => await next());
      }),
    ).toThrow(/may not install middleware on every path/);
    expect(app.routes).toHaveLength(0);
  });
});

describe("UI kit components", () => {
  const hostile = `<script>alert(1)</script>`;

  test("they render the portal's existing classes and escape what they are given", () => {
    const header = String(
      <PageHeader title={hostile} lead="What the page is for">
        <a class="button" href="/x">
          New
        </a>
      </PageHeader>,
    );
    expect(header).toBe(
      `<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1><p class="lead">What the page is for</p><div class="actions"><a class="button" href="/x">New</a></div>`,
    );
    expect(String(<PageHeader title="Plain" />)).toBe("<h1>Plain</h1>");
    expect(String(<StatusBadge>{hostile}</StatusBadge>)).toBe(
      `<span class="badge">&lt;script&gt;alert(1)&lt;/script&gt;</span>`,
    );
    expect(String(<StatusBadge tone="danger">revoked</StatusBadge>)).toBe(`<span class="badge danger">revoked</span>`);
    expect(String(<EmptyState>No keys yet.</EmptyState>)).toBe(`<p class="muted">No keys yet.</p>`);
    expect(
      String(
        <DataTable columns={["Name", { label: "Created", hideSm: true }, ""]} label="Keys">
          <tr>
            <td>{hostile}</td>
          </tr>
        </DataTable>,
      ),
    ).toBe(
      `<div class="card scroll"><table aria-label="Keys"><thead><tr><th>Name</th><th class="hide-sm">Created</th><th></th></tr></thead><tbody><tr><td>&lt;script&gt;alert(1)&lt;/script&gt;</td></tr></tbody></table></div>`,
    );
    expect(
      String(
        <Field id="f-name" label="Name" error={hostile}>
          <input id="f-name" name="name" />
        </Field>,
      ),
    ).toBe(
      `<label for="f-name">Name</label><input id="f-name" name="name"/><p class="notice error" role="alert" id="f-name-error">&lt;script&gt;alert(1)&lt;/script&gt;</p>`,
    );
  });
});
