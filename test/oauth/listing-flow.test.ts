/**
 * A listing every client can load (issue 29, item 1), end to end as a real
 * client does it: the SDK's own OAuth support against a running server, the
 * person consenting to everything on the consent screen (which says how many
 * tools each listing mode shows and which clients take that), then a model
 * that can only call listed tools: it finds a CRM write it was not shown
 * with tools_search, runs it through the router the search names, and reads
 * it back the same way. The connection's mode is then changed on the
 * connections page and survives a token refresh.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AUTOMATIC_MAX } from "../../src/mcp/listing";
import { registry } from "../../src/mcp/routes";
import { callTool, createCompany, createUser, rawMcp } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { Browser, consent, MemoryProvider, pageText, readForms, tokenRequest } from "./helpers";

let s: TestServer;
let acme: { id: number; name: string };

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  const user = await createUser(s.deps, { email: "lee@example.test", password: "correct horse battery" });
  acme = await createCompany(s.deps, { name: "Acme", ownerUserId: user.id });
});
afterAll(() => s.stop());

async function connected(provider: MemoryProvider) {
  const c = new Client({ name: "listing-test", version: "1.0.0" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", s.config.publicUrl), { authProvider: provider }),
  );
  return c;
}

describe("an OAuth client granted everything", () => {
  test("lists at most 128 tools by default and completes a write in a domain it did not list", async () => {
    const provider = new MemoryProvider("http://127.0.0.1:4999/callback");
    const first = new StreamableHTTPClientTransport(new URL("/api/mcp", s.config.publicUrl), {
      authProvider: provider,
    });
    await new Client({ name: "listing-test", version: "1.0.0" }).connect(first).catch(() => {});
    const browser = new Browser(s.config.publicUrl);
    expect((await browser.signIn("lee@example.test", "correct horse battery")).status).toBe(303);

    // The consent screen counts each mode for what is asked, and says which clients take it.
    const { page, response } = await consent(browser, provider.authorizationUrl!, {
      scopes: ["*"],
      companies: [acme.id],
    });
    const text = await pageText(page);
    const full = registry().tools.length - 5; // every tool but tools_search, toolsets_list and the three routers
    expect(text).toContain("Tool listing");
    expect(text).toContain(`Full — ${full} tools (only clients without a tool cap`);
    expect(text).toContain("Discovery — 6 tools (every client, Cursor included)");
    expect(text).toContain("here discovery");
    expect(response.status).toBe(303);
    await first.finishAuth(new URL(response.headers.get("location")!).searchParams);

    // Connected: the default (automatic) listing is small enough for every client.
    const c = await connected(provider);
    const listed = (await c.listTools()).tools;
    expect(listed.length).toBeLessThanOrEqual(AUTOMATIC_MAX);
    expect(listed.length).toBeLessThanOrEqual(40);
    const names = new Set(listed.map((t) => t.name));
    expect(names.has("crm_companies_create")).toBe(false);
    expect(c.getInstructions()).toContain("tools_search");

    // The model calls only listed tools: search, then the router the search names.
    const call = async (name: string, args: Record<string, unknown>) => {
      expect(names.has(name)).toBe(true);
      return await callTool(c, name, args);
    };
    const found = (await call("tools_search", { query: "add a company to the crm" })).data;
    const create = found.tools.find((t: any) => t.name === "crm_companies_create");
    expect(create.call).toBe("tools_call_write");
    const made = await call(create.call, { name: "crm_companies_create", arguments: { name: "Initech" } });
    expect(made.isError).toBe(false);

    // And reads it back the same way: the write happened.
    const lister = (await call("tools_search", { query: "list crm companies" })).data.tools.find(
      (t: any) => t.name === "crm_companies_list",
    );
    expect(lister.call).toBe("tools_call_read");
    const back = await call(lister.call, { name: "crm_companies_list", arguments: {} });
    expect(JSON.stringify(back.data)).toContain("Initech");
    const got = await call("tools_call_read", { name: "crm_companies_get", arguments: { id: made.data.id } });
    expect(got.data.name).toBe("Initech");
    await c.close();

    // Changeable later: the connections page sets full; the next request lists everything, and so does a refreshed token.
    const pageHtml = await (await browser.get("/settings/connections")).text();
    const form = (await readForms(pageHtml)).find((f) => f.action.endsWith("/listing"))!;
    const csrf = form.fields.find((f) => f.name === "_csrf")!.value;
    const saved = await browser.post(form.action, { _csrf: csrf, listing: "full" });
    expect(saved.status).toBe(303);
    const list = async (token: string) =>
      (await (await rawMcp(s.url, token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).json()).result.tools
        .length as number;
    expect(await list(provider.saved.access_token)).toBe(full);
    const refreshed = await tokenRequest(s.config.publicUrl, {
      grant_type: "refresh_token",
      refresh_token: provider.saved.refresh_token,
      client_id: provider.info.client_id,
    });
    expect(refreshed.status).toBe(200);
    expect(await list(refreshed.body.access_token)).toBe(full);
    // A bad mode is a clear error, not a 500.
    const bad = await browser.post(form.action, { _csrf: csrf, listing: "toolsets", listing_toolset: "nope" });
    expect(bad.status).toBe(400);
    expect(await pageText(await bad.text())).toContain('Unknown toolset "nope"');
  }, 30_000);

  test("a mode chosen on the consent screen is the connection's from the first request", async () => {
    const provider = new MemoryProvider("http://127.0.0.1:4999/callback", { state: "sdk-state-2" });
    const first = new StreamableHTTPClientTransport(new URL("/api/mcp", s.config.publicUrl), {
      authProvider: provider,
    });
    await new Client({ name: "listing-test", version: "1.0.0" }).connect(first).catch(() => {});
    const browser = new Browser(s.config.publicUrl);
    await browser.signIn("lee@example.test", "correct horse battery");
    // Preview recounts for the choice without granting anything.
    const preview = await consent(browser, provider.authorizationUrl!, {
      scopes: ["crm:read", "crm:write"],
      companies: [acme.id],
      listing: "toolsets",
      listingToolsets: ["crm"],
      decision: "preview",
    });
    expect(preview.response.status).toBe(200);
    const crm = registry().tools.filter((t) => t.def.toolset === "crm").length;
    const counted = /Chosen toolsets — (\d+) tools/.exec(await pageText(await preview.response.text()));
    // The CRM's tools, whoami, the two search tools and the routers: far fewer than everything.
    expect(Number(counted?.[1])).toBeGreaterThan(crm);
    expect(Number(counted?.[1])).toBeLessThanOrEqual(crm + 6);
    const { response } = await consent(browser, provider.authorizationUrl!, {
      scopes: ["*"],
      companies: [acme.id],
      listing: "toolsets",
      listingToolsets: ["crm"],
    });
    expect(response.status).toBe(303);
    await first.finishAuth(new URL(response.headers.get("location")!).searchParams);
    const c = await connected(provider);
    const listed = (await c.listTools()).tools.map((t) => t.name);
    expect(listed).toContain("crm_companies_create");
    expect(listed).toContain("tools_call_write");
    expect(listed).not.toContain("bookings_list");
    const who = await callTool(c, "whoami");
    expect(who.data.listing).toMatchObject({ mode: "toolsets", source: "credential", toolsets: ["crm"] });
    await c.close();
  }, 30_000);
});
