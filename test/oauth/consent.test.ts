/**
 * The consent screen as a person reads it: one line per area that has
 * tools (derived from the MCP registry), `*` as a separate full-access box,
 * per-area narrowing that grants exactly what was chosen, and never more
 * than the client asked for, checked on the issued token itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, callTool, createCompany, createUser, mcpClient } from "../fixtures/accounts";
import { row, startTestServer, type TestServer } from "../harness";
import { covers, SCOPES } from "../../src/core/scopes";
import {
  areasWithTools,
  authorizeCode,
  Browser,
  consent,
  consentFields,
  gatingScopes,
  pageText,
  pkce,
  readForms,
  register,
  tokenRequest,
  type ConsentChoice,
} from "./helpers";

let s: TestServer;
let base: string;
let browser: Browser;
let clientId: string;
let acme: { id: number };
let globex: { id: number };
let initech: { id: number };
const REDIRECT = "http://127.0.0.1:7400/callback";

/** An area with both read and change tools to narrow (CRM once it has tools), and one with no tools at all. */
const areas = () => areasWithTools();
const narrowable = () =>
  ["crm", "store", "sites", "branding", ...areas()].find(
    (d) => gatingScopes().includes(`${d}:read`) && gatingScopes().includes(`${d}:write`),
  )!;
const toolless = () =>
  [...new Set(SCOPES.map((x) => x.split(":")[0]!))].find(
    (d) => !areas().includes(d) && SCOPES.includes(`${d}:write` as never),
  )!;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  base = s.config.publicUrl;
  const ana = await createUser(s.deps, { email: "ana@example.test", password: "correct horse battery" });
  acme = await createCompany(s.deps, { name: "Acme", ownerUserId: ana.id });
  globex = await createCompany(s.deps, { name: "Globex" });
  await addMember(s.deps, globex.id, ana.id, "admin");
  initech = await createCompany(s.deps, { name: "Initech" });
  await addMember(s.deps, initech.id, ana.id, "viewer");
  browser = new Browser(base);
  expect((await browser.signIn("ana@example.test", "correct horse battery")).status).toBe(303);
  clientId = (
    await register(base, {
      client_name: "Consent tests",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
    })
  ).body.client_id;
}, 30_000);
afterAll(() => s.stop());

function authorizeUrl(scope: string | null, id = clientId) {
  const u = new URL("/oauth/authorize", base);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: id,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
    code_challenge_method: "S256",
    state: "st",
  }))
    u.searchParams.set(k, v);
  if (scope !== null) u.searchParams.set("scope", scope);
  return u;
}

async function openPage(scope: string | null, id = clientId) {
  const u = authorizeUrl(scope, id);
  const res = await browser.get(u.pathname + u.search);
  expect(res.status).toBe(200);
  const html = await res.text();
  const form = (await readForms(html)).find((f) => f.action === "/oauth/authorize")!;
  return { html, text: await pageText(html), form };
}

/** Elements of a page matching a selector, with an attribute of each. */
async function elements(html: string, selector: string, attr = "class"): Promise<string[]> {
  const out: string[] = [];
  await new HTMLRewriter()
    .on(selector, {
      element(e) {
        out.push(e.getAttribute(attr) ?? "");
      },
    })
    .transform(new Response(html))
    .text();
  return out;
}

/** Visible inputs that are not inside a <label> (and not the target of a label's for=). */
async function unlabelledInputs(html: string): Promise<string[]> {
  let depth = 0;
  const out: string[] = [];
  await new HTMLRewriter()
    .on("label", {
      element(e) {
        depth++;
        e.onEndTag(() => {
          depth--;
        });
      },
    })
    .on("input", {
      element(e) {
        if (e.getAttribute("type") !== "hidden" && depth === 0 && !e.getAttribute("id"))
          out.push(e.getAttribute("name") ?? "?");
      },
    })
    .transform(new Response(html))
    .text();
  return out;
}

/** Consents with `choice` and exchanges the code: the token response (its `scope` is what was granted). */
async function grant(scope: string, choice: ConsentChoice) {
  const c = await authorizeCode(browser, base, { clientId, redirectUri: REDIRECT, scope, ...choice });
  const t = await tokenRequest(base, {
    grant_type: "authorization_code",
    code: c.code,
    code_verifier: c.verifier,
    client_id: clientId,
  });
  expect(t.status).toBe(200);
  return t.body as { access_token: string; scope: string };
}

async function whoamiScopes(token: string): Promise<string[]> {
  const mcp = await mcpClient(s.url, token);
  const who = await callTool(mcp, "whoami");
  await mcp.close();
  return who.data.scopes;
}

describe("an SDK-like request for every scope", () => {
  const everything = async () => {
    const m = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as {
      scopes_supported: string[];
    };
    return m.scopes_supported.join(" ");
  };

  test("shows one line per area with tools plus the full-access line, not a checkbox per scope", async () => {
    const { html, text, form } = await openPage(await everything());
    const lines = await elements(html, "fieldset.area");
    expect(lines.length).toBe(areas().length);
    expect(lines.length).toBeLessThan(SCOPES.length);
    // One radio group per area, each pre-set to read and change (what `*` asked for), or to
    // read where the area has no write scope (ai, hosting, billing are read-only areas).
    // (The tool listing's radio is its own group: test/oauth/listing-flow.test.ts.)
    const groups = [
      ...new Set(form.fields.filter((f) => f.type === "radio" && f.name !== "listing").map((f) => f.name)),
    ];
    expect(groups).toEqual(areas().map((d) => `access_${d}`));
    for (const g of groups) {
      const _area = g.slice("access_".length);
      expect(form.fields.filter((f) => f.name === g).length).toBeLessThanOrEqual(3);
      // Areas with no write scope (hosting, billing) are pre-set to read, the most they offer.
      const writable = gatingScopes().some(
        (x) => x.startsWith(`${g.slice("access_".length)}:`) && !x.endsWith(":read"),
      );
      expect(form.fields.find((f) => f.name === g && f.checked)!.value).toBe(writable ? "write" : "read");
    }
    // The full-access line: shown once, with its warning, unticked because `*` was not all that was asked.
    const full = form.fields.filter((f) => f.name === "full_access");
    expect(full.map((f) => [f.type, f.checked])).toEqual([["checkbox", false]]);
    expect(text).toContain("Full access to everything this account can do (includes future tools)");
    expect(text).toContain("Warning: this grants every tool Plinth has, and every tool added later");
    // Checkboxes left: full access and the companies; nothing per scope.
    // (The tool listing's toolset boxes are per toolset, for its chosen-toolsets mode.)
    const boxes = form.fields.filter((f) => f.type === "checkbox" && f.name !== "listing_toolset").map((f) => f.name);
    expect(boxes.sort()).toEqual(["full_access", "grant_company", "grant_company", "grant_company"]);
    expect(form.fields.some((f) => f.name === "grant_scope")).toBe(false);
    // Areas without tools are named once, as not granted, and offer no choice.
    if (toolless()) {
      expect(text).toContain("which this server has no tools for yet; that is not shown and not granted");
      expect(groups).not.toContain(`access_${toolless()}`);
    } else expect(text).not.toContain("no tools for yet");
    // Accessible: every area is a fieldset with a legend, every visible input sits inside its label.
    expect((await elements(html, "fieldset.area legend")).length).toBe(areas().length);
    expect(await unlabelledInputs(html)).toEqual([]);
  });

  test("accepted as pre-set, it grants every scope that gates a tool, spelled out, and nothing else", async () => {
    const t = await grant(await everything(), { companies: [acme.id] });
    expect(t.scope.split(" ")).toEqual(gatingScopes());
    expect(await whoamiScopes(t.access_token)).toEqual(gatingScopes());
    expect(t.scope).not.toContain("*");
    expect(t.scope).not.toContain(`${toolless()}:`);
  });

  test("ticking full access grants * and only *", async () => {
    const t = await grant(await everything(), { companies: [acme.id], fullAccess: true });
    expect(t.scope).toBe("*");
  });
});

describe("narrowing", () => {
  test(`an area asked for read and write, narrowed to read, grants exactly its read scope`, async () => {
    const d = narrowable();
    const { form, text } = await openPage(`${d}:read ${d}:write`);
    expect(form.fields.filter((f) => f.name === `access_${d}`).map((f) => [f.value, f.checked])).toEqual([
      ["none", false],
      ["read", false],
      ["write", true],
    ]);
    expect(text).toMatch(/asks to read and change .+, acting as you in the companies you choose below/);
    const t = await grant(`${d}:read ${d}:write`, { levels: { [d]: "read" }, companies: [acme.id] });
    expect(t.scope).toBe(`${d}:read`);
    expect(await whoamiScopes(t.access_token)).toEqual([`${d}:read`]);
  });

  test("a wildcard request is offered as read and change and granted as explicit scopes", async () => {
    const d = narrowable();
    const t = await grant(`${d}:*`, { companies: [acme.id] });
    expect(t.scope.split(" ").sort()).toEqual(
      gatingScopes()
        .filter((x) => x.startsWith(`${d}:`))
        .sort(),
    );
  });

  test("setting an area to no access leaves it out", async () => {
    const d = narrowable();
    const t = await grant(`${d}:read services:read`, { levels: { [d]: "none" }, companies: [acme.id] });
    expect(t.scope).toBe("services:read");
  });

  test("* asked alone: the full-access box is ticked; unticked, every area is read and change", async () => {
    const { form, text } = await openPage("*");
    expect(form.fields.find((f) => f.name === "full_access")!.checked).toBe(true);
    expect(text).toContain("asks for full access to everything your account can do, including tools added later");
    expect((await grant("*", { companies: [acme.id] })).scope).toBe("*");
    expect((await grant("*", { companies: [acme.id], fullAccess: false })).scope.split(" ")).toEqual(gatingScopes());
  });
});

/** An area whose reading another area's scope includes (src/core/scopes.ts), if the grammar has one: [area, other, other's scope]. */
const implied = (() => {
  for (const a of areasWithTools())
    for (const g of gatingScopes())
      if (
        !g.startsWith(`${a}:`) &&
        covers([g], `${a}:read`) &&
        gatingScopes().includes(`${a}:read`) &&
        g.endsWith(":read")
      )
        return [a, g.split(":")[0]!, g] as const;
  return null;
})();

describe("areas one scope of another includes", () => {
  test.if(implied !== null)(
    "are said so on their line, and cannot be set lower than what the other grants",
    async () => {
      const [area, other, scope] = implied!;
      const { form, text } = await openPage(`${scope} ${area}:read`);
      expect(text).toContain("reading it also comes with");
      // Lowering the included area alone would grant more than the page says: refused, naming both.
      const fields = consentFields(form, { levels: { [area]: "none", [other]: "read" }, companies: [acme.id] });
      const res = await browser.post("/oauth/authorize", fields);
      expect(res.status).toBe(400);
      expect(await pageText(await res.text())).toContain("already includes “Read”");
      // Both at no access, or both at read, are fine.
      expect(
        (
          await grant(`${scope} ${area}:read`, { levels: { [area]: "read", [other]: "read" }, companies: [acme.id] })
        ).scope
          .split(" ")
          .sort(),
      ).toEqual([scope, `${area}:read`].sort());
    },
  );
});

// Every area of interface.md §5.3 has tools now; these run again whenever a scope lands before its tools.
describe.skipIf(!toolless())("areas without tools", () => {
  test("are neither shown nor granted", async () => {
    const x = toolless();
    const d = narrowable();
    const { form, text } = await openPage(`${x}:read ${x}:write ${d}:read`);
    expect(form.fields.some((f) => f.name === `access_${x}`)).toBe(false);
    expect(text).toContain("no tools for yet");
    const t = await grant(`${x}:read ${x}:write ${d}:read`, { companies: [acme.id] });
    expect(t.scope).toBe(`${d}:read`);
  });

  test("a request for nothing but them has nothing to allow, only Deny", async () => {
    const x = toolless();
    const { form, text } = await openPage(`${x}:read`);
    expect(text).toContain("Nothing it asked for exists on this server yet");
    expect(form.fields.filter((f) => f.name === "decision").map((f) => f.value)).toEqual(["deny"]);
  });
});

describe("posts that ask for more than the page offered", () => {
  const post = async (scope: string, extra: Record<string, string>) => {
    const { form } = await openPage(scope);
    const fields = consentFields(form, { companies: [acme.id] });
    for (const [k, v] of Object.entries(extra)) fields.set(k, v);
    return browser.post("/oauth/authorize", fields);
  };
  const codes = async () => ((await row(s.deps, "SELECT count(*) AS n FROM oauth_codes")) as { n: number | string }).n;

  test("a higher level, an area not asked for, an area without tools, or full access not asked: 400, no code", async () => {
    const d = narrowable();
    const before = await codes();
    const cases: [Record<string, string>, string][] = [
      [{ [`access_${d}`]: "write" }, "choose one of the levels offered"],
      [{ access_services: "read" }, "services is not one of the areas offered"],
      ...(toolless()
        ? [
            [{ [`access_${toolless()}`]: "read" }, `${toolless()} is not one of the areas offered`] as [
              Record<string, string>,
              string,
            ],
          ]
        : []),
      [{ full_access: "on" }, "Full access was not asked for"],
      [{ [`access_${d}`]: "everything" }, "choose one of the levels offered"],
    ];
    for (const [extra, message] of cases) {
      const res = await post(`${d}:read`, extra);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(await pageText(await res.text())).toContain(message);
    }
    expect(await codes()).toBe(before);
  });
});

describe("the page", () => {
  test("pre-ticks the companies where the person is owner or admin; viewer memberships start unticked", async () => {
    const { form } = await openPage("services:read");
    const ticked = form.fields.filter((f) => f.name === "grant_company").map((f) => [Number(f.value), f.checked]);
    expect(ticked).toEqual([
      [acme.id, true],
      [globex.id, true],
      [initech.id, false],
    ]);
  });

  test("someone who is a viewer everywhere gets all their companies ticked", async () => {
    const vic = await createUser(s.deps, { email: "vic@example.test", password: "vic's long password" });
    await addMember(s.deps, acme.id, vic.id, "viewer");
    await addMember(s.deps, initech.id, vic.id, "viewer");
    const b = new Browser(base);
    await b.signIn("vic@example.test", "vic's long password");
    const u = authorizeUrl("services:read");
    const form = (await readForms(await (await b.get(u.pathname + u.search)).text())).find(
      (f) => f.action === "/oauth/authorize",
    )!;
    expect(form.fields.filter((f) => f.name === "grant_company").map((f) => f.checked)).toEqual([true, true]);
  }, 15_000);

  test("hostile client names are escaped in the heading, the summary and the title", async () => {
    const name = `</h1><script>alert(1)</script><img src=x onerror=alert(2)> "Evil" & Co`;
    const id = (
      await register(base, { client_name: name, redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" })
    ).body.client_id;
    const { html, text } = await openPage("services:read", id);
    expect(html).not.toContain("<script>alert(1)");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain("</h1><script>");
    expect(text).toContain(`Connect ${name} to Plinth?`);
    expect(text).toContain(`${name} asks to read Services, acting as you in the companies you choose below.`);
    expect(text).toContain("127.0.0.1:7400");
  });

  test("deny still works with the new form", async () => {
    const { response } = await consent(browser, authorizeUrl("services:read"), { decision: "deny" });
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("access_denied");
  });
});
