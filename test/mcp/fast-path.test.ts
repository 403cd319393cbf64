/**
 * The tools/call hot path (src/mcp/server.ts fastPath) must answer exactly as
 * the SDK path does: same status, same content type, same JSON. Each request
 * below is dispatched both ways and the answers compared. Only read tools and
 * refusals are used, so running a request twice changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolveBearer } from "../../src/domains/accounts/credentials";
import { addCatalogService } from "../../src/domains/services/verbs";
import type { McpEnv } from "../../src/mcp/call";
import { registry } from "../../src/mcp/routes";
import { dispatch, fastPath } from "../../src/mcp/server";
import { startTestServer, type TestServer } from "../harness";
import { addMember, createCompany, createUser, mintMcpKey } from "../fixtures/accounts";
import { sites } from "../../src/domains/sites/tables";

let s: TestServer;
const keys: Record<string, string> = {};

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  const u = await createUser(s.deps, { email: "fast@acme.test" });
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: u.id });
  const beta = await createCompany(s.deps, { name: "Beta" });
  await addMember(s.deps, beta.id, u.id, "viewer");
  await addCatalogService(s.deps, { companyId: acme.id, name: "SEO audit", priceCents: 50000, unit: "project" });
  await s.deps.db.insert(sites).values({ companyId: acme.id, name: 'Acme "Quoted" <b>site</b> \u2028' });
  keys.single = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [acme.id] })).key;
  keys.multi = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [acme.id, beta.id] })).key;
  keys.narrow = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["services:read"], companyIds: [acme.id] })).key;
});
afterAll(() => s.stop());

async function env(key: string): Promise<McpEnv> {
  const principal = (await resolveBearer(s.deps, key))!;
  return {
    deps: s.deps,
    principal,
    registry: registry(),
    filter: { toolsets: null, readOnly: false, discovery: false },
    requestId: "t",
  };
}

function request(body: unknown, version: string | null) {
  const headers: Record<string, string> = {
    host: "localhost",
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  if (version) headers["mcp-protocol-version"] = version;
  return new Request("http://localhost/api/mcp", { method: "POST", headers, body: JSON.stringify(body) });
}

const call = (name: string, args?: unknown, id: string | number = 7) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: args === undefined ? { name } : { name, arguments: args },
});

const cases: [string, string, Record<string, unknown>][] = [
  ["whoami", "single", call("whoami", {})],
  ["whoami, no arguments key", "multi", call("whoami")],
  ["a read tool", "single", call("service_catalog_list", {})],
  ["a cached read tool (answered from src/mcp/result-cache.ts after the first call)", "single", call("sites_list", {})],
  ["a read tool with clientId, string id", "multi", call("service_catalog_list", { clientId: 0 }, "abc")],
  ["clientId missing on a multi-company key", "multi", call("service_catalog_list", {})],
  ["foreign clientId", "multi", call("service_catalog_list", { clientId: 999 })],
  ["wrong-typed argument", "single", call("service_catalog_get", { id: "one" })],
  ["not found", "single", call("service_catalog_get", { id: 424242 })],
  ["unknown tool", "single", call("no_such_tool", {})],
  ["tool hidden by scopes", "narrow", call("sites_list", {})],
  ["hostile strings", "single", call("service_catalog_get", { id: "<script>alert(1)</script>' OR 1=1 --" })],
];

describe("tools/call fast path answers as the SDK does", () => {
  for (const version of [null, "2025-03-26", "2025-06-18", "2025-11-25"]) {
    for (const [label, key, body] of cases) {
      test(`${label} (protocol ${version ?? "header absent"})`, async () => {
        const e = await env(keys[key]!);
        if (label.includes("clientId, string id"))
          (body.params as any).arguments.clientId = e.principal.companies[0]!.id;
        const fast = await fastPath(request(body, version), body, e);
        expect(fast).not.toBeNull();
        const sdk = await dispatch(request(body, version), body, e, { sdkOnly: true });
        expect(fast!.status).toBe(sdk.status);
        expect(fast!.headers.get("content-type")).toBe(sdk.headers.get("content-type"));
        const answer: any = await fast!.json();
        expect(answer).toEqual(await sdk.json());
        // The comparison is only worth something if the answers are the real thing.
        if (label.startsWith("a read tool") || label.startsWith("whoami"))
          expect(answer.result.isError).toBeUndefined();
        if (label === "a read tool") expect(answer.result.content[0].text).toContain("SEO audit");
        if (label.startsWith("a cached read tool"))
          expect(JSON.parse(answer.result.content[0].text).items[0].name).toBe('Acme "Quoted" <b>site</b> \u2028');
        if (label === "unknown tool") expect(answer.error.code).toBe(-32602);
        if (label === "wrong-typed argument") expect(answer.result.isError).toBe(true);
      });
    }
  }

  test("requests it does not take go to the SDK", async () => {
    const e = await env(keys.single!);
    const body = call("whoami", {});
    expect(
      await fastPath(request({ ...body, method: "tools/list" }, null), { ...body, method: "tools/list" }, e),
    ).toBeNull();
    expect(await fastPath(request(body, "2026-07-28"), body, e)).toBeNull();
    expect(await fastPath(request(body, "1999-01-01"), body, e)).toBeNull();
    const { id: _, ...notification } = body;
    expect(await fastPath(request(notification, null), notification, e)).toBeNull();
    const noAccept = new Request("http://localhost/api/mcp", {
      method: "POST",
      headers: { host: "localhost", "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
    });
    expect(await fastPath(noAccept, body, e)).toBeNull();
  });

  test("the remembered era decision never stands in for a message of another shape", async () => {
    const e = await env(keys.single!);
    const body = call("whoami", {});
    // Teach the memo the usual shape first, for each header value.
    for (const v of [null, "2025-06-18"]) expect(await fastPath(request(body, v), body, e)).not.toBeNull();
    const shapes: [string, Record<string, unknown>][] = [
      ["a fractional id", { ...body, id: 1.5 }],
      ["an id past 2^53", { ...body, id: 2 ** 60 }],
      ["an extra top-level member", { ...body, extra: true }],
      ["another jsonrpc version", { ...body, jsonrpc: "1.0" }],
      [
        "a 2026-era envelope claim",
        { ...body, params: { ...body.params, _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } },
      ],
    ];
    for (const v of [null, "2025-06-18"])
      for (const [label, m] of shapes) {
        const fast = await fastPath(request(m, v), m, e);
        const sdk = await dispatch(request(m, v), m, e, { sdkOnly: true });
        if (fast === null) continue; // the SDK answers it: nothing for the memo to get wrong
        expect({ label, status: fast.status, answer: await fast.json() }).toEqual({
          label,
          status: sdk.status,
          answer: await sdk.json(),
        });
      }
  });
});
