/**
 * Listing modes (issue 29, item 1; src/mcp/listing.ts): a credential's
 * stored mode (full, discovery, chosen toolsets, or automatic: full up to
 * 128 tools, else discovery), the per-request switches that win over it,
 * and the routers that let a model run what tools_search found. Driven as a
 * client's model would: only listed tools are called. Over HTTP with the
 * real SDK client; the router's result must be the direct call's, and so
 * must its refusals (scope, role, approval staging), its audit row and its
 * idempotency.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import type { Principal } from "../../src/core/context";
import { DISCOVERY_LISTED, ROUTERS } from "../../src/mcp/discovery";
import { AUTOMATIC_MAX, listingCounts, parseListingMode, resolveListing } from "../../src/mcp/listing";
import { parseNarrowing } from "../../src/mcp/narrowing";
import { NO_FILTER } from "../../src/mcp/registry";
import { registry } from "../../src/mcp/routes";
import { callTool, createCompany, mcpClient, mintMcpKey, rawMcp } from "../fixtures/accounts";
import { rows, startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";

let s: TestServer;
let w: World;
const open: Client[] = [];

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { mcpRateLimit: 100_000 } });
  w = await makeWorld(s);
}, 60_000);
afterAll(async () => {
  for (const c of open) await c.close();
  await s?.stop();
});

async function keyClient(
  opts: { scopes?: string[]; listingMode?: string | null; requireCmsApproval?: boolean } = {},
  headers?: Record<string, string>,
) {
  const { key, id } = await mintMcpKey(s.deps, {
    userId: w.ownerUserId,
    scopes: opts.scopes ?? ["*"],
    companyIds: [w.A.id],
    // Automatic unless the test names a mode (the fixture's own default is full).
    listingMode: opts.listingMode ?? null,
    requireCmsApproval: opts.requireCmsApproval,
  });
  const c = await mcpClient(s.url, key, { headers });
  open.push(c);
  return { c, key, id };
}

const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name);

/** A JSON-RPC refusal (the SDK throws it) as its message, or the tool result when there was none. */
async function outcome(c: Client, name: string, args: Record<string, unknown>) {
  try {
    const r = await c.callTool({ name, arguments: args });
    return { result: r };
  } catch (e) {
    return { error: { code: (e as { code?: number }).code, message: (e as Error).message } };
  }
}

function principal(scopes: string[], listingMode: string | null = null): Principal {
  return {
    userId: 1,
    credential: { kind: "mcp_key", id: 1, name: "k" },
    scopes,
    companies: [{ id: 1, name: "A", role: "owner" }],
    requireCmsApproval: false,
    listingMode,
  };
}

describe("mode resolution", () => {
  const reg = registry();

  test("stored modes are checked and normalised; a bad one is a validation error naming what is known", () => {
    expect(parseListingMode("", reg)).toBeNull();
    expect(parseListingMode(" Auto ", reg)).toBeNull();
    expect(parseListingMode("FULL", reg)).toBe("full");
    expect(parseListingMode("discovery", reg)).toBe("discovery");
    expect(parseListingMode("toolsets: store, cms ,cms", reg)).toBe("toolsets:cms,store");
    expect(() => parseListingMode("toolsets:nope", reg)).toThrow(/Unknown toolset "nope"; known toolsets: accounts/);
    expect(() => parseListingMode("toolsets:", reg)).toThrow(/at least one toolset/);
    expect(() => parseListingMode("everything", reg)).toThrow(/auto, full, discovery or toolsets/);
  });

  test("automatic: full up to 128 tools, else discovery; a stored mode applies; the request's switches win", () => {
    const all = resolveListing(reg, principal(["*"]), NO_FILTER);
    expect(reg.listResult(principal(["*"]), NO_FILTER).tools.length).toBeGreaterThan(AUTOMATIC_MAX);
    expect(all.listing).toMatchObject({ mode: "discovery", source: "automatic", compact: true });
    expect(all.listing.tools).toBeLessThanOrEqual(40);

    const crm = resolveListing(reg, principal(["crm:*"]), NO_FILTER);
    expect(crm.listing).toMatchObject({ mode: "full", source: "automatic", compact: false });
    expect(crm.filter).toBe(NO_FILTER);

    const stored = resolveListing(reg, principal(["*"], "full"), NO_FILTER);
    expect(stored.listing).toMatchObject({ mode: "full", source: "credential" });
    expect(stored.listing.tools).toBeGreaterThan(AUTOMATIC_MAX);

    const sets = resolveListing(reg, principal(["*"], "toolsets:crm"), NO_FILTER);
    expect(sets.listing).toMatchObject({ mode: "toolsets", source: "credential", toolsets: ["crm"], compact: true });

    const req = new Request("http://x/api/mcp", { headers: { "x-mcp-discovery": "false" } });
    const asked = parseNarrowing(req, req.url, reg);
    if (typeof asked === "string") throw new Error(asked);
    const won = resolveListing(reg, principal(["*"], "discovery"), asked);
    expect(won.listing).toMatchObject({ mode: "full", source: "request", compact: false });

    // A stored mode naming a toolset that no longer exists falls back to automatic rather than failing requests.
    expect(resolveListing(reg, principal(["*"], "toolsets:gone"), NO_FILTER).listing.source).toBe("automatic");
  });

  test("counts per mode for the consent screen and the API keys page", () => {
    const c = listingCounts(reg, ["*"], ["crm", "bookings"]);
    expect(c.full).toBeGreaterThan(AUTOMATIC_MAX);
    expect(c.automatic).toBe("discovery");
    expect(c.discovery).toBe(DISCOVERY_LISTED.size);
    const crmTools = reg.tools.filter((t) => t.def.toolset === "crm" || t.def.toolset === "bookings").length;
    expect(c.toolsets).toBe(crmTools + DISCOVERY_LISTED.size);
    // A read-only grant lists only the read router: the others could run nothing.
    expect(listingCounts(reg, ["crm:read"]).discovery).toBe(4);
  });
});

describe("over the wire, as a model that calls only listed tools", () => {
  test("a key granted everything lists the way in by default; initialize says how to find and run tools", async () => {
    const { c } = await keyClient();
    const listed = await names(c);
    expect(listed).toEqual([...DISCOVERY_LISTED].sort());
    expect(listed.length).toBeLessThanOrEqual(40);
    const tools = (await c.listTools()).tools;
    const ann = (n: string) => tools.find((t) => t.name === n)!.annotations;
    expect(ann("tools_call_read")).toMatchObject({ readOnlyHint: true });
    expect(ann("tools_call_write")).toMatchObject({ destructiveHint: false });
    expect(ann("tools_call_write")?.readOnlyHint).toBeUndefined();
    expect(ann("tools_call_destructive")).toMatchObject({ destructiveHint: true });
    const instructions = c.getInstructions() ?? "";
    expect(instructions).toContain("tools_search");
    expect(instructions).toContain("tools_call_write");
    const me = JSON.parse(((await c.callTool({ name: "whoami", arguments: {} })) as any).content[0].text);
    expect(me.listing).toMatchObject({ mode: "discovery", source: "automatic", listedTools: listed.length });
  });

  test("full mode keeps today's listing and instructions", async () => {
    const { c } = await keyClient({ listingMode: "full" });
    const listed = await names(c);
    expect(listed.length).toBeGreaterThan(AUTOMATIC_MAX);
    for (const r of ROUTERS.keys()) expect(listed).not.toContain(r);
    expect(listed).not.toContain("tools_search");
    expect(c.getInstructions()).not.toContain("tools_call");
  });

  test("tools_search says which router runs each find; the router runs it with the direct call's result", async () => {
    const { c } = await keyClient();
    const found = JSON.parse(
      ((await c.callTool({ name: "tools_search", arguments: { query: "create a crm company" } })) as any).content[0]
        .text,
    );
    const hit = found.tools.find((t: any) => t.name === "crm_companies_create");
    expect(hit.call).toBe("tools_call_write");
    const del = JSON.parse(
      ((await c.callTool({ name: "tools_search", arguments: { toolset: "crm", readOnly: false, limit: 25 } })) as any)
        .content[0].text,
    );
    expect(del.tools.find((t: any) => t.name === "crm_companies_delete").call).toBe("tools_call_destructive");

    const made = await callTool(c, "tools_call_write", {
      name: "crm_companies_create",
      arguments: { name: "Routed Ltd", idempotencyKey: "routed-1" },
    });
    expect(made.isError).toBe(false);
    expect(made.data.name).toBe("Routed Ltd");
    // The same idempotency key again, routed and direct: one store, the same replayed answer, byte for byte.
    const routedAgain = await callTool(c, "tools_call_write", {
      name: "crm_companies_create",
      arguments: { name: "Routed Ltd", idempotencyKey: "routed-1" },
    });
    const directAgain = await callTool(c, "crm_companies_create", { name: "Routed Ltd", idempotencyKey: "routed-1" });
    expect(routedAgain.data).toEqual({ ...made.data, replayed: true });
    expect(routedAgain.text).toBe(directAgain.text);
    // A read through the router answers exactly what the direct read does.
    const viaRouter = await callTool(c, "tools_call_read", {
      name: "crm_companies_get",
      arguments: { id: made.data.id },
    });
    const direct = await callTool(c, "crm_companies_get", { id: made.data.id });
    expect(viaRouter.isError).toBe(false);
    expect(viaRouter.text).toBe(direct.text);
  });

  test("a routed write leaves the same audit row a direct one does", async () => {
    const { c, id } = await keyClient();
    const r = await callTool(c, "tools_call_write", {
      name: "posts_create",
      arguments: { siteId: w.siteA, title: "Routed post" },
    });
    expect(r.isError).toBe(false);
    const audit = await rows(
      s.deps,
      "select action, entity_id, credential_kind, credential_id from audit_log where entity_type = 'post' and entity_id = ?",
      [r.data.id],
    );
    expect(audit.length).toBeGreaterThan(0);
    expect(audit[0]).toMatchObject({ credential_kind: "mcp_key", credential_id: id });
  });

  test("the same refusals as a direct call: missing scope, viewer role, approval staging", async () => {
    // Missing scope: the same JSON-RPC error naming the scope.
    const { c: reader } = await keyClient({ scopes: ["sites:read"] });
    const args = { siteId: w.siteA, title: "No" };
    const direct = await outcome(reader, "posts_create", args);
    const routed = await outcome(reader, "tools_call_write", { name: "posts_create", arguments: args });
    expect(direct.error?.message).toContain("needs the sites:write scope");
    expect(routed).toEqual(direct);

    // Viewer role: the same Forbidden tool result.
    const viewerDirect = await callTool(w.viewer, "posts_create", args);
    const viewerRouted = await callTool(w.viewer, "tools_call_write", { name: "posts_create", arguments: args });
    expect(viewerDirect.isError).toBe(true);
    expect(viewerRouted).toEqual(viewerDirect);

    // require_cms_approval: the routed write is staged as a pending change, like a direct one.
    const { c: gated } = await keyClient({ requireCmsApproval: true });
    const before = await rows(s.deps, "select id from approval_links where link_type = 'pending_change'");
    const staged = await callTool(gated, "tools_call_write", {
      name: "posts_create",
      arguments: { siteId: w.siteA, title: "Staged" },
    });
    const stagedDirect = await callTool(gated, "posts_create", { siteId: w.siteA, title: "Staged" });
    expect(staged.isError).toBe(false);
    expect(Object.keys(staged.data).sort()).toEqual(Object.keys(stagedDirect.data).sort());
    expect(staged.data.status).toBe(stagedDirect.data.status);
    const after = await rows(s.deps, "select id from approval_links where link_type = 'pending_change'");
    expect(after.length).toBe(before.length + 2);
    expect(await rows(s.deps, "select id from posts where title = 'Staged'")).toEqual([]);
  });

  test("a tool of the wrong class is refused with the right router's name, and nothing runs", async () => {
    const { c } = await keyClient();
    const co = await callTool(c, "tools_call_write", { name: "crm_companies_create", arguments: { name: "Keep me" } });
    const n = w.changes();
    const wrong = await callTool(c, "tools_call_write", {
      name: "crm_companies_delete",
      arguments: { id: co.data.id },
    });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toBe(
      "crm_companies_delete is destructive: run it with tools_call_destructive, not tools_call_write.",
    );
    const readish = await callTool(c, "tools_call_read", { name: "crm_companies_create", arguments: { name: "X" } });
    expect(readish.text).toContain("run it with tools_call_write, not tools_call_read");
    const up = await callTool(c, "tools_call_destructive", {
      name: "crm_companies_get",
      arguments: { id: co.data.id },
    });
    expect(up.text).toContain("run it with tools_call_read");
    expect(w.changes()).toBe(n);
    const nested = await callTool(c, "tools_call_read", { name: "tools_call_read", arguments: {} });
    expect(nested.text).toContain("is a router itself");
    const stray = await callTool(c, "tools_call_read", { name: "crm_companies_get", id: 1 });
    expect(stray.text).toContain("put id inside arguments");
    const unknown = await outcome(c, "tools_call_read", { name: "crm_nothing_get", arguments: {} });
    expect(unknown.error?.message).toContain("Unknown tool: crm_nothing_get");
    // Deleting through the right router works.
    const gone = await callTool(c, "tools_call_destructive", {
      name: "crm_companies_delete",
      arguments: { id: co.data.id },
    });
    expect(gone.isError).toBe(false);
  });

  test("a batch of router calls keeps to one company, read from the named tool's arguments", async () => {
    const other = await createCompany(s.deps, { name: "Second", ownerUserId: w.ownerUserId });
    const { key } = await mintMcpKey(s.deps, {
      userId: w.ownerUserId,
      scopes: ["*"],
      companyIds: [w.A.id, other.id],
      listingMode: null,
    });
    const routed = (id: number, clientId: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "tools_call_read", arguments: { name: "sites_list", arguments: { clientId } } },
    });
    const mixed = await rawMcp(s.url, key, [routed(1, w.A.id), routed(2, other.id)]);
    expect(mixed.status).toBe(400);
    expect(((await mixed.json()) as any).error.message).toContain("one company per batch");
    const same = await rawMcp(s.url, key, [routed(1, w.A.id), routed(2, w.A.id)]);
    expect(same.status).toBe(200);
    expect(((await same.json()) as any[]).map((a) => a.result.isError ?? false)).toEqual([false, false]);
  });

  test("chosen toolsets list those toolsets and the way in; the routers reach the rest", async () => {
    const { c } = await keyClient({ listingMode: "toolsets:crm" });
    const listed = await names(c);
    const crm = registry()
      .tools.filter((t) => t.def.toolset === "crm")
      .map((t) => t.def.name);
    expect(listed.sort()).toEqual([...crm, ...DISCOVERY_LISTED].sort());
    const search = JSON.parse(
      ((await c.callTool({ name: "tools_search", arguments: { query: "create a booking service" } })) as any).content[0]
        .text,
    );
    expect(search.tools.some((t: any) => t.call === "tools_call_write")).toBe(true);
    for (const t of search.tools) expect(t.call === undefined).toBe(crm.includes(t.name));
    const sites = await callTool(c, "tools_call_read", { name: "sites_list", arguments: {} });
    expect(sites.isError).toBe(false);
    const me = JSON.parse(((await c.callTool({ name: "whoami", arguments: {} })) as any).content[0].text);
    expect(me.listing).toMatchObject({ mode: "toolsets", source: "credential", toolsets: ["crm"] });
  });

  test("the request's switches win over the stored mode", async () => {
    const { key } = await keyClient({ listingMode: "discovery" });
    const full = await mcpClient(s.url, key, { headers: { "X-MCP-Discovery": "false" } });
    open.push(full);
    expect((await names(full)).length).toBeGreaterThan(AUTOMATIC_MAX);
    const crmOnly = await mcpClient(s.url, key, { headers: { "X-MCP-Toolsets": "crm" } });
    open.push(crmOnly);
    const crmTools = new Set(
      registry()
        .tools.filter((t) => t.def.toolset === "crm")
        .map((t) => t.def.name),
    );
    const listed = await names(crmOnly);
    expect(listed.filter((n) => !crmTools.has(n))).toEqual(["whoami"]);
    // The hard narrowing keeps its meaning: tools outside it are not callable, by router or by name.
    const outside = await outcome(crmOnly, "tools_call_read", { name: "sites_list", arguments: {} });
    expect(outside.error?.message).toContain("Unknown tool: sites_list");
    const { key: fullKey } = await keyClient({ listingMode: "full" });
    const disc = await mcpClient(s.url, fullKey, { headers: { "X-MCP-Discovery": "true" } });
    open.push(disc);
    expect(await names(disc)).toEqual([...DISCOVERY_LISTED].sort());
    const ro = await mcpClient(s.url, key, { headers: { "X-MCP-Readonly": "true", "X-MCP-Discovery": "1" } });
    open.push(ro);
    expect(await names(ro)).toEqual(["tools_call_read", "tools_search", "toolsets_list", "whoami"]);
    const blocked = await outcome(ro, "tools_call_write", { name: "crm_companies_create", arguments: { name: "N" } });
    expect(blocked.error?.message).toContain("Unknown tool: crm_companies_create");
  });
});
