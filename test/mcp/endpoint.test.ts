/**
 * The MCP endpoint over real HTTP: status codes, headers and JSON-RPC shapes
 * of interface.md 4.2 / 5.2 / 7.2, both protocol eras through the SDK client,
 * batches, notifications, narrowing, DNS-rebinding protection and limits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { addCatalogService } from "../../src/domains/services/verbs";
import { maxBodyBytes } from "../../src/mcp/routes";
import { row, startTestServer, type TestServer } from "../harness";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, rawMcp } from "../fixtures/accounts";

let s: TestServer;
let key: string; // owner of Acme only, "*"
let multiKey: string; // Acme (owner) + Beta (viewer), "*"
let acme: { id: number; name: string };
let beta: { id: number; name: string };

const call = (name: string, args: Record<string, unknown> = {}, id: number | string = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  const u = await createUser(s.deps, { email: "owner@acme.test" });
  acme = await createCompany(s.deps, { name: "Acme", ownerUserId: u.id });
  beta = await createCompany(s.deps, { name: "Beta <script>" });
  await addMember(s.deps, beta.id, u.id, "viewer");
  await addCatalogService(s.deps, { companyId: acme.id, name: "SEO audit", priceCents: 50000, unit: "project" });
  await addCatalogService(s.deps, { companyId: beta.id, name: "Beta logo", priceCents: 1000 });
  key = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [acme.id] })).key;
  multiKey = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [acme.id, beta.id] })).key;
});
afterAll(() => s.stop());

describe("authentication challenge", () => {
  const expected = () =>
    `Bearer realm="service-mcp", resource_metadata="${s.config.publicUrl}/.well-known/oauth-protected-resource"`;

  for (const [label, auth] of [
    ["missing", null],
    ["garbage", "Bearer nope"],
    ["REST key prefix", `Bearer svc_live_${"a".repeat(64)}`],
    ["unknown well-formed key", `Bearer svc_mcp_${"a".repeat(64)}`],
    ["Basic scheme", "Basic dXNlcjpwYXNz"],
  ] as const) {
    test(`${label} credential: 401, exact WWW-Authenticate, -32001 Unauthorized`, async () => {
      const headers: Record<string, string> = auth ? { Authorization: auth } : {};
      const r = await rawMcp(s.url, null, call("whoami"), headers);
      expect(r.status).toBe(401);
      expect(r.headers.get("www-authenticate")).toBe(expected());
      const body = await r.json();
      expect(body).toEqual({ jsonrpc: "2.0", error: { code: -32001, message: "Unauthorized" }, id: null });
    });
  }

  test("401 comes before body parsing: an unauthenticated malformed body is still 401", async () => {
    const r = await rawMcp(s.url, null, "{not json");
    expect(r.status).toBe(401);
  });

  test("protected-resource metadata (RFC 9728), plain and path-specific", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/mcp"]) {
      const r = await fetch(new URL(path, s.url));
      expect(r.status).toBe(200);
      const doc = await r.json();
      expect(doc.resource).toBe(`${s.config.publicUrl}/api/mcp`);
      expect(doc.authorization_servers).toEqual([s.config.publicUrl]);
      expect(doc.bearer_methods_supported).toEqual(["header"]);
      for (const scope of ["*", "services:read", "email:send", "brain:approve", "approvals:manage", "crm:*"])
        expect(doc.scopes_supported).toContain(scope);
    }
  });
});

describe("HTTP surface", () => {
  test("GET and DELETE: 405 with Allow: POST", async () => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const r = await fetch(new URL("/api/mcp", s.url), { method, headers: { Authorization: `Bearer ${key}` } });
      expect(r.status).toBe(405);
      expect(r.headers.get("allow")).toBe("POST");
    }
  });

  test("notifications are accepted with 202 and no body", async () => {
    for (const method of ["notifications/cancelled", "notifications/initialized"]) {
      const r = await rawMcp(s.url, key, { jsonrpc: "2.0", method, params: { requestId: 7, reason: "user" } });
      expect(r.status).toBe(202);
      expect(await r.text()).toBe("");
    }
  });

  test("malformed JSON: -32700, never 500", async () => {
    for (const body of ["{", "", "nul", '{"jsonrpc":"2.0",', "\u0000"]) {
      const r = await rawMcp(s.url, key, body);
      expect(r.status).toBe(400);
      const j = await r.json();
      expect(j.error.code).toBe(-32700);
      expect(j.id).toBeNull();
    }
  });

  test("valid JSON that is not JSON-RPC: -32600 Invalid Request", async () => {
    for (const body of [
      {},
      { jsonrpc: "1.0", id: 1, method: "tools/list" },
      42,
      "str",
      null,
      { jsonrpc: "2.0", id: { x: 1 }, method: "x" },
    ]) {
      const r = await rawMcp(s.url, key, JSON.stringify(body));
      expect(r.status).toBe(400);
      expect((await r.json()).error.code).toBe(-32600);
    }
  });

  test("unknown method: -32601 with the request id", async () => {
    const r = await rawMcp(s.url, key, { jsonrpc: "2.0", id: "m-1", method: "tools/frobnicate", params: {} });
    const j = await r.json();
    expect(j.id).toBe("m-1");
    expect(j.error.code).toBe(-32601);
  });

  test("tools/call and resources/read without their params: -32602 saying what is missing", async () => {
    for (const [method, params, needs] of [
      ["tools/call", undefined, "params.name"],
      ["tools/call", { name: 5 }, "params.name"],
      ["resources/read", {}, "params.uri"],
      ["resources/read", { uri: ["x"] }, "params.uri"],
    ] as const) {
      const r = await rawMcp(s.url, key, { jsonrpc: "2.0", id: 9, method, params });
      const j = await r.json();
      expect(j.id).toBe(9);
      expect(j.error.code).toBe(-32602);
      expect(j.error.message).toContain(needs);
    }
  });

  test("wrong Content-Type: 415", async () => {
    const r = await rawMcp(s.url, key, JSON.stringify(call("whoami")), { "Content-Type": "text/plain" });
    expect(r.status).toBe(415);
  });

  test("oversized body: 413 before parsing, for declared and streamed bodies", async () => {
    const limit = maxBodyBytes(s.config);
    expect(limit).toBe(Math.ceil(10 * 1024 * 1024 * 1.4) + 1024 * 1024);
    const big = JSON.stringify(call("whoami", { pad: "x".repeat(limit) }));
    const r = await rawMcp(s.url, key, big);
    expect(r.status).toBe(413);
    // Just under the limit is accepted (and whoami ignores the extra argument).
    const ok = JSON.stringify(call("whoami", { pad: "x".repeat(limit - 200) }));
    const r2 = await rawMcp(s.url, key, ok);
    expect(r2.status).toBe(200);
  });

  test("unknown tool: -32602 Unknown tool, name echoed safely", async () => {
    const r = await rawMcp(s.url, key, call("nope_nothing"));
    const j = await r.json();
    expect(j.error.code).toBe(-32602);
    expect(j.error.message).toBe("Unknown tool: nope_nothing.");
    // A near miss is named: the model learns the real name.
    const near = await (await rawMcp(s.url, key, call("service_request_create"))).json();
    expect(near.error.message).toBe("Unknown tool: service_request_create. Did you mean service_requests_create?");
  });

  test("a tool the scopes hide names the scope it needs; an unknown one stays unknown", async () => {
    const u = await createUser(s.deps, { email: "reader@acme.test" });
    await addMember(s.deps, acme.id, u.id, "admin");
    const readKey = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["services:read"], companyIds: [acme.id] })).key;
    const hidden = await (await rawMcp(s.url, readKey, call("service_requests_create", { serviceId: 1 }, 5))).json();
    const unknown = await (await rawMcp(s.url, readKey, call("service_requests_createx", { serviceId: 1 }, 5))).json();
    expect(hidden.error.code).toBe(-32602);
    expect(unknown.error.code).toBe(-32602);
    expect(hidden.error.message).toBe(
      'service_requests_create needs the services:write scope, which this credential does not have. Ask for a key with it (plinth mcp-keys create … --scopes "services:write") or reconnect and grant it.',
    );
    // Suggestions come from the tools this key can call only: the hidden create is never named.
    expect(unknown.error.message).toBe("Unknown tool: service_requests_createx.");
  });

  test("Host and Origin allow-lists (DNS-rebinding protection)", async () => {
    const evilHost = await rawMcp(s.url, key, call("whoami"), { Host: "evil.example" });
    expect(evilHost.status).toBe(403);
    const hj = await evilHost.json();
    expect(hj.error.message).toContain("Invalid Host: evil.example");
    expect(hj.error.message).toContain("PLINTH_ALLOWED_HOSTS");
    const evilOrigin = await rawMcp(s.url, key, call("whoami"), { Origin: "http://evil.example" });
    expect(evilOrigin.status).toBe(403);
    const local = await rawMcp(s.url, key, call("whoami"), { Origin: "http://localhost:5173" });
    expect(local.status).toBe(200);
  });
});

describe("browser clients (CORS) and the memoised tools/list", () => {
  test("preflight from an allowed origin is answered; from another origin refused", async () => {
    const pre = (origin: string) =>
      fetch(new URL("/api/mcp", s.url), {
        method: "OPTIONS",
        headers: {
          Origin: origin,
          "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization, content-type",
        },
      });
    const ok = await pre("http://localhost:6274");
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    expect(ok.headers.get("access-control-allow-headers")).toContain("authorization");
    expect((await pre("https://evil.example")).status).toBe(403);
    // The 401 challenge is readable by an allowed browser origin.
    const r = await rawMcp(s.url, null, call("whoami"), { Origin: "http://localhost:6274" });
    expect(r.status).toBe(401);
    expect(r.headers.get("access-control-expose-headers")).toContain("www-authenticate");
  });

  test("tools/list: each request gets its own id back; lists differ by credential, filter and era", async () => {
    const list = async (k: string, id: unknown, headers: Record<string, string> = {}) =>
      (await rawMcp(s.url, k, { jsonrpc: "2.0", id, method: "tools/list", params: {} }, headers)).json();
    const a = await list(key, 1);
    const b = await list(key, "second");
    const c = await list(key, 3.5);
    expect([a.id, b.id, c.id]).toEqual([1, "second", 3.5]);
    expect(b.result).toEqual(a.result);
    const narrowed = await list(key, 4, { "X-MCP-Readonly": "1" });
    expect(narrowed.id).toBe(4);
    expect(narrowed.result.tools.length).toBeLessThan(a.result.tools.length);
    const multi = await list(multiKey, 5);
    const m = multi.result.tools.find((t: any) => t.name === "service_catalog_list");
    expect(m.inputSchema.properties.clientId.type).toBe("integer");
    expect(m.inputSchema.required ?? []).not.toContain("clientId");
    const again = await list(key, 6);
    expect(
      again.result.tools.find((t: any) => t.name === "service_catalog_list").inputSchema.properties.clientId,
    ).toBeUndefined();
  });
});

describe("Host/Origin configured for a proxy", () => {
  test("configured hosts and origins are allowed, others still refused; public URL host always allowed", async () => {
    const p = await startTestServer({
      seed: false,
      config: {
        allowedHosts: ["mcp.internal:8443"],
        allowedOrigins: ["https://app.example.com"],
        publicUrl: "https://plinth.example.org",
      },
    });
    try {
      const u = await createUser(p.deps, { email: "x@y.test" });
      const c = await createCompany(p.deps, { name: "P", ownerUserId: u.id });
      const k = (await mintMcpKey(p.deps, { userId: u.id, scopes: ["*"], companyIds: [c.id] })).key;
      expect((await rawMcp(p.url, k, call("whoami"), { Host: "mcp.internal" })).status).toBe(200);
      expect((await rawMcp(p.url, k, call("whoami"), { Host: "plinth.example.org" })).status).toBe(200);
      expect((await rawMcp(p.url, k, call("whoami"), { Origin: "https://app.example.com" })).status).toBe(200);
      expect((await rawMcp(p.url, k, call("whoami"), { Origin: "https://plinth.example.org" })).status).toBe(200);
      expect((await rawMcp(p.url, k, call("whoami"), { Host: "other.example" })).status).toBe(403);
      expect((await rawMcp(p.url, k, call("whoami"), { Origin: "https://evil.example.com" })).status).toBe(403);
      const r = await rawMcp(p.url, null, call("whoami"), { Host: "plinth.example.org" });
      expect(r.headers.get("www-authenticate")).toContain(
        'resource_metadata="https://plinth.example.org/.well-known/oauth-protected-resource"',
      );
    } finally {
      await p.stop();
    }
  });
});

describe("batches", () => {
  test("several tools/call items are answered item by item, notifications add nothing", async () => {
    const r = await rawMcp(s.url, multiKey, [
      call("service_catalog_list", { clientId: acme.id }, 1),
      call("whoami", {}, 2),
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } },
      call("service_catalog_get", { clientId: acme.id, serviceId: "seven" }, 3),
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
      { broken: true },
    ]);
    expect(r.status).toBe(200);
    const items = (await r.json()) as any[];
    expect(items.map((i) => i.id)).toEqual([1, 2, 3, 4, null]);
    expect(JSON.parse(items[0].result.content[0].text).services[0].name).toBe("SEO audit");
    expect(JSON.parse(items[1].result.content[0].text).userId).toBeGreaterThan(0);
    expect(items[2].result.isError).toBe(true);
    expect(items[2].result.content[0].text).toContain("serviceId");
    expect(items[3].result.tools.length).toBeGreaterThan(1);
    expect(items[4].error.code).toBe(-32600);
  });

  test("a batch naming two companies is refused as a whole, and nothing runs", async () => {
    const before = (await row(s.deps, "SELECT count(*) AS n FROM service_requests")) as { n: number };
    const r = await rawMcp(s.url, multiKey, [
      call("service_requests_create", { clientId: acme.id, serviceId: 1 }, 1),
      call("service_catalog_list", { clientId: beta.id }, 2),
    ]);
    expect(r.status).toBe(400);
    const j = await r.json();
    expect(Array.isArray(j)).toBe(false);
    expect(j.error.code).toBe(-32600);
    expect(j.error.message).toContain("same clientId");
    const after = (await row(s.deps, "SELECT count(*) AS n FROM service_requests")) as { n: number };
    expect(after.n).toBe(before.n);
  });

  test("omitting clientId in one item and naming it in another is also mixed", async () => {
    const r = await rawMcp(s.url, multiKey, [
      call("service_catalog_list", {}, 1),
      call("service_catalog_list", { clientId: acme.id }, 2),
    ]);
    expect(r.status).toBe(400);
    expect((await r.json()).error.message).toContain("same clientId");
  });

  test("empty batch and oversized batch are invalid requests", async () => {
    expect((await (await rawMcp(s.url, key, [])).json()).error.code).toBe(-32600);
    const many = Array.from({ length: 101 }, (_, i) => call("whoami", {}, i));
    const r = await rawMcp(s.url, key, many);
    expect(r.status).toBe(400);
    expect((await r.json()).error.message).toContain("at most 100");
  });

  test("a batch of only notifications: 202", async () => {
    const r = await rawMcp(s.url, key, [
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } },
    ]);
    expect(r.status).toBe(202);
  });
});

describe("2025-era clients (raw initialize) and the SDK client in both eras", () => {
  for (const version of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
    test(`initialize with protocolVersion ${version} is answered in JSON with that version`, async () => {
      const r = await rawMcp(s.url, key, {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "mcp-remote", version: "0.1" } },
      });
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toContain("application/json");
      expect(r.headers.get("mcp-session-id")).toBeNull();
      const j = await r.json();
      expect(j.result.protocolVersion).toBe(version);
      expect(j.result.capabilities.tools).toBeDefined();
      expect(j.result.serverInfo.name).toBe("plinth");
      expect(j.result.serverInfo.version).toBe(pkg.version); // the build's own version, as `plinth --version` prints it
      const list = await rawMcp(
        s.url,
        key,
        { jsonrpc: "2.0", id: 1, method: "tools/list" },
        { "MCP-Protocol-Version": version },
      );
      expect((await list.json()).result.tools.map((t: any) => t.name)).toContain("whoami");
    });
  }

  test("an unsupported legacy protocol version header is refused with a JSON-RPC error, not a 500", async () => {
    const r = await rawMcp(
      s.url,
      key,
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { "MCP-Protocol-Version": "1999-01-01" },
    );
    expect(r.status).toBeLessThan(500);
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect((await r.json()).error).toBeDefined();
  });

  for (const era of ["legacy", "modern"] as const) {
    test(`SDK client (${era}): tools, whoami per spec 2.7, resources`, async () => {
      const c = await mcpClient(s.url, key, { era });
      try {
        const tools = (await c.listTools()).tools;
        const names = tools.map((t) => t.name);
        expect(names).toEqual([...names].sort());
        expect(names).toContain("whoami");
        const whoamiTool = tools.find((t) => t.name === "whoami")!;
        expect(Object.keys((whoamiTool.inputSchema as any).properties ?? {})).not.toContain("clientId");
        const list = tools.find((t) => t.name === "service_catalog_list")!;
        // A one-company key: the company is implied, so no tool offers clientId.
        expect((list.inputSchema as any).properties?.clientId).toBeUndefined();
        expect(list.annotations?.readOnlyHint).toBe(true);
        const create = tools.find((t) => t.name === "service_requests_create")!;
        expect(create.annotations?.readOnlyHint ?? false).toBe(false);
        expect(create.annotations?.destructiveHint).toBe(false);

        const raw = (await c.callTool({ name: "whoami", arguments: {} })) as any;
        expect(raw.content).toHaveLength(1);
        expect(raw.content[0].type).toBe("text");
        const who = JSON.parse(raw.content[0].text);
        expect(who).toEqual({
          userId: expect.any(Number),
          client: { id: acme.id, company: "Acme" },
          defaultClientId: acme.id,
          // Beyond the spec: each company's sites, for a credential that may use site-scoped tools.
          clients: [{ id: acme.id, company: "Acme", role: "owner", sites: expect.any(Array) }],
          scopes: ["*"],
          // Beyond the spec: the tool listing in use (src/mcp/listing.ts).
          listing: { mode: "full", source: "credential", listedTools: tools.length },
        });

        const res = (await c.listResources()).resources.map((r) => r.uri);
        expect(res).toContain("blocks://schema");
        expect(res).toContain("catalog://services");
        const schema = await c.readResource({ uri: "blocks://schema" });
        expect((schema.contents[0] as any).mimeType).toBe("text/markdown");
        expect((schema.contents[0] as any).text).toContain("#");
        const cat = await c.readResource({ uri: "catalog://services" });
        expect(JSON.parse((cat.contents[0] as any).text).services[0].name).toBe("SEO audit");
        await expect(c.readResource({ uri: "brand://nope" })).rejects.toThrow();
      } finally {
        await c.close();
      }
    });
  }

  test("multi-company connection: catalog://services is not offered; schemas offer clientId (optional) and the call needs it", async () => {
    const c = await mcpClient(s.url, multiKey);
    try {
      const res = (await c.listResources()).resources.map((r) => r.uri);
      expect(res).toEqual([
        // Company-free: the guides and the automation shapes come from the code, not from a company's data.
        "automations://actions",
        "automations://events",
        "blocks://schema",
        "docs://automations",
        "docs://webhooks",
      ]);
      await expect(c.readResource({ uri: "catalog://services" })).rejects.toThrow();
      const list = (await c.listTools()).tools.find((t) => t.name === "service_catalog_list")!;
      expect((list.inputSchema as any).properties.clientId.type).toBe("integer");
      expect((await callTool(c, "service_catalog_list", {})).text).toContain("clientId is required");
      const r = await callTool(c, "service_catalog_list", { clientId: beta.id });
      expect(r.isError).toBe(false);
      expect(r.data.services.map((x: any) => x.name)).toEqual(["Beta logo"]);
    } finally {
      await c.close();
    }
  });
});

describe("narrowing: X-MCP-Toolsets / ?toolsets= and X-MCP-Readonly / ?readonly=1", () => {
  const names = async (headers: Record<string, string>, query = "") => {
    const r = await fetch(new URL(`/api/mcp${query}`, s.url), {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        Authorization: `Bearer ${key}`,
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    const j = await r.json();
    return j.result ? (j.result.tools as any[]).map((t) => t.name) : j;
  };

  test("toolsets keep only those toolsets plus whoami", async () => {
    expect(await names({ "X-MCP-Toolsets": "services" })).toEqual([
      "service_catalog_get",
      "service_catalog_list",
      "service_requests_create",
      "service_requests_list",
      "whoami",
    ]);
    expect(await names({ "X-MCP-Toolsets": "accounts" })).toEqual(["whoami"]);
    expect(await names({}, "?toolsets=services")).toContain("service_catalog_list");
  });

  test("read-only keeps only read-only tools; narrowed-away tools are unknown to tools/call", async () => {
    const ro = await names({ "X-MCP-Readonly": "true" });
    expect(ro).toContain("service_catalog_list");
    expect(ro).not.toContain("service_requests_create");
    expect(await names({}, "?readonly=1")).toEqual(ro);
    const r = await rawMcp(s.url, key, call("service_requests_create", { serviceId: 1 }), { "X-MCP-Readonly": "1" });
    expect((await r.json()).error.message).toBe(
      "Unknown tool: service_requests_create. Did you mean service_requests_list?",
    );
  });

  test("an unknown toolset or a bad switch is a clear 400, not a silent empty list", async () => {
    const j = await names({ "X-MCP-Toolsets": "servces" });
    expect(j.error.code).toBe(-32602);
    expect(j.error.message).toContain('"servces"');
    expect(j.error.message).toContain("services");
    const k = await names({ "X-MCP-Readonly": "maybe" });
    expect(k.error.message).toContain("X-MCP-Readonly");
  });
});

describe("hostile input stays data", () => {
  test("SQL and script in string arguments are stored verbatim and returned as JSON text", async () => {
    const details = `'); DROP TABLE service_requests; -- <script>alert(1)</script>`;
    const c = await mcpClient(s.url, key);
    try {
      const created = await callTool(c, "service_requests_create", { serviceId: 1, details });
      expect(created.isError).toBe(false);
      const listed = await callTool(c, "service_requests_list", {});
      expect(listed.data.items.find((i: any) => i.id === created.data.id).details).toBe(details);
    } finally {
      await c.close();
    }
  });

  test("huge and fractional numbers, wrong types: isError naming the argument", async () => {
    for (const serviceId of [1e300, 1.5, -1, "1", null, [1], { a: 1 }]) {
      const j = await (await rawMcp(s.url, key, call("service_catalog_get", { serviceId }))).json();
      expect(j.result.isError).toBe(true);
      expect(j.result.content[0].text).toContain("serviceId");
    }
    for (const clientId of [1.5, "1", 1e300, -1]) {
      const j = await (await rawMcp(s.url, key, call("service_catalog_list", { clientId }))).json();
      expect(j.result.isError).toBe(true);
      expect(j.result.content[0].text).toContain("clientId");
    }
  });

  test("arguments that are not an object: a clear error, never a 500", async () => {
    for (const args of ["x", 5, [1, 2]]) {
      const r = await rawMcp(s.url, key, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "service_catalog_list", arguments: args },
      });
      expect(r.status).toBeLessThan(500);
      const j = await r.json();
      expect(j.error?.code === -32602 || j.result?.isError === true).toBe(true);
    }
  });
});
