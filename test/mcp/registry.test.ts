/**
 * The registry: load-time rules (on custom domain lists), what clients see
 * (annotations, schemas, order, docs/tools.md), and the generic wire suite
 * that every tool of every domain runs automatically, so a tool added by
 * anyone is covered the day it is declared:
 *
 *  - it is listed for `*`, and for a read-only key only when it is read-only;
 *  - a valid call can be built from its published schema (or its v.examples);
 *  - each argument given the wrong type is an isError result naming it;
 *  - without clientId on a multi-company key it is refused, listing companies;
 *  - a foreign clientId is refused like a nonexistent one;
 *  - write tools: refused for a viewer, unknown to a read-only key, and neither changes anything;
 *  - site-scoped tools: another company's siteId is refused, leaks nothing and changes nothing;
 *  - read tools: a valid call never fails with a protocol or internal error.
 */
import { buildCatalog } from "../../src/mcp/catalog";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { requestId } from "hono/request-id";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { SCOPES } from "../../src/core/scopes";
import { domains } from "../../src/domains";
import { siteForActor } from "../../src/domains/sites/access";
import { sites } from "../../src/domains/sites/tables";
import { defineTool, type Domain, type ToolDef } from "../../src/mcp/define";
import { DISCOVERY_ONLY, ROUTERS } from "../../src/mcp/discovery";
import { buildRegistry, RegistryError, type RegisteredTool, type Registry } from "../../src/mcp/registry";
import { mcpRoutes, registry } from "../../src/mcp/routes";
import { renderToolsDoc } from "../../src/mcp/tools-doc";
import { commits, startTestServer, type TestServer } from "../harness";
import { addMember, createCompany, createUser, mintMcpKey, rawMcp } from "../fixtures/accounts";
import { sample, wrongTyped } from "./sample-input";

const reg = registry();
const all = reg.tools;
const props = (t: RegisteredTool) => (t.entrySingle.inputSchema.properties ?? {}) as Record<string, any>;

function tool(over: Partial<ToolDef>): ToolDef {
  return defineTool({
    name: "things_list",
    toolset: "things",
    scope: "crm:read",
    readOnly: true,
    description: "List things, for the registry rule tests.",
    input: v.object({ q: v.optional(v.string()) }),
    run: () => ({ ok: true }),
    ...over,
  } as ToolDef);
}
const domain = (...tools: ToolDef[]): Domain => ({
  name: "things",
  title: "Things",
  description: "Test things.",
  tools,
  scopes: [{ area: "crm", title: "CRM", words: { "crm:read": "read things", "crm:write": "change things" } }],
});

describe("load-time rules", () => {
  const cases: [string, ToolDef[], RegExp][] = [
    ["duplicate names", [tool({}), tool({})], /declared twice/],
    ["not snake_case", [tool({ name: "ThingsList" })], /snake_case/],
    ["no verb", [tool({ name: "things" })], /<noun>_<verb>/],
    ["over 128 characters", [tool({ name: `a_${"b".repeat(127)}` })], /128/],
    [
      "own entity's id not called id",
      [tool({ name: "things_get", input: v.object({ thingId: v.number() }) })],
      /own entity's id is `id`, not `thingId`/,
    ],
    [
      "own entity's id by its last word",
      [tool({ name: "blue_things_get", input: v.object({ thingId: v.number() }) })],
      /not `thingId`/,
    ],
    ["snake_case argument", [tool({ input: v.object({ site_id: v.number() }) })], /argument site_id must be camelCase/],
    ["read-only with a write scope", [tool({ scope: "crm:write" })], /read-only tool needs a :read scope/],
    ["write tool with a read scope", [tool({ readOnly: false })], /write tool cannot use the read scope/],
    ["destructive read-only", [tool({ destructive: true })], /destructive tool cannot be read-only/],
    ["approval on a read tool", [tool({ approval: "post" })], /only write tools use the approval workflow/],
    [
      "a cached write tool",
      [tool({ name: "things_create", scope: "crm:write", readOnly: false, cachedBy: [sites] })],
      /only read-only tools may be cached/,
    ],
    ["cached by no table", [tool({ cachedBy: [] })], /cachedBy names the tables/],
    ["trivial description", [tool({ description: "Lists." })], /description/],
    ["unscoped tool other than whoami", [tool({ scope: null })], /unscoped/],
    ["unknown scope", [tool({ scope: "things:read" })], /scope things:read is not declared by any domain/],
    ["declares clientId itself", [tool({ input: v.object({ clientId: v.number() }) })], /clientId/],
    ["non-object input", [tool({ input: v.string() as any })], /object schema/],
    ["bad toolset", [tool({ toolset: "Things!" })], /toolset/],
  ];
  for (const [label, tools, msg] of cases)
    test(label, () => {
      expect(() => buildRegistry(buildCatalog([domain(...tools)]))).toThrow(RegistryError);
      expect(() => buildRegistry(buildCatalog([domain(...tools)]))).toThrow(msg);
    });

  test("duplicate resource URIs", () => {
    const r = {
      uri: "x://y",
      name: "Y",
      description: "A test resource for duplicates.",
      mimeType: "text/plain",
      scope: null,
      read: () => "",
    };
    expect(() => buildRegistry(buildCatalog([{ ...domain(), resources: [r, r] }]))).toThrow(/declared twice/);
  });

  test("a well-formed test-only domain builds, with schemas computed once", () => {
    const r = buildRegistry(
      buildCatalog([
        domain(tool({}), tool({ name: "things_create", scope: "crm:write", readOnly: false, destructive: true })),
      ]),
    );
    // Every registry also holds its own discovery tools.
    expect(r.tools.map((t) => t.def.name)).toEqual([
      "things_create",
      "things_list",
      "tools_call_destructive",
      "tools_call_read",
      "tools_call_write",
      "tools_search",
      "toolsets_list",
    ]);
    const create = r.byName.get("things_create")!;
    expect(create.entryMulti.inputSchema.required).toBeUndefined();
    expect((create.entryMulti.inputSchema.properties as any).clientId.type).toBe("integer");
    expect((create.entrySingle.inputSchema.properties as any).clientId).toBeUndefined();
    // Only what differs from MCP's defaults: destructiveHint and openWorldHint default to true.
    expect(create.entrySingle.annotations).toEqual({ destructiveHint: true, openWorldHint: false });
    expect(r.byName.get("things_list")!.entrySingle.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
  });
});

describe("the real registry", () => {
  test("has whoami and the services tools, names unique and sorted", () => {
    const names = all.map((t) => t.def.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual([...names].sort());
    for (const n of ["whoami", "service_catalog_list", "service_requests_create"]) expect(names).toContain(n);
  });

  test("building twice gives byte-identical tools/list entries (deterministic)", () => {
    const again = buildRegistry(buildCatalog(domains));
    expect(JSON.stringify(again.tools.map((t) => t.entryMulti))).toBe(JSON.stringify(all.map((t) => t.entryMulti)));
  });

  test("every entry follows its declaration: annotations, clientId, object schema", () => {
    for (const t of all) {
      const d = t.def;
      for (const e of [t.entrySingle, t.entryMulti]) {
        expect(e.name).toBe(d.name);
        expect(e.inputSchema.type).toBe("object");
        expect(e.annotations.readOnlyHint ?? false).toBe(d.readOnly);
        expect(e.annotations.openWorldHint).toBe(d.openWorld ?? false);
        expect(e.annotations.idempotentHint ?? false).toBe(d.idempotent ?? false);
        expect(e.inputSchema.additionalProperties).toBeUndefined();
        expect(t.callSchema.additionalProperties).toBe(false);
        if (d.readOnly) expect(e.annotations.destructiveHint).toBeUndefined();
        else expect(e.annotations.destructiveHint).toBe(d.destructive ?? false);
      }
      const single = t.entrySingle.inputSchema;
      const multi = t.entryMulti.inputSchema;
      if (d.companyFree) {
        expect(Object.keys((single.properties as object) ?? {})).not.toContain("clientId");
      } else {
        // One company: implied, so not offered. Several: offered, optional in the schema, required by the call when several remain.
        expect((single.properties as any).clientId).toBeUndefined();
        expect((multi.properties as any).clientId).toMatchObject({ type: "integer" });
        expect((multi.required as string[] | undefined) ?? []).not.toContain("clientId");
      }
    }
  });

  test("every scope of interface.md 5.3 is grantable and every tool's scope is one of them", () => {
    for (const t of all) if (t.def.scope) expect(SCOPES as readonly string[]).toContain(t.def.scope);
  });

  test("docs/tools.md is up to date (regenerate with `make docs`)", () => {
    const file = readFileSync(join(import.meta.dir, "../../docs/tools.md"), "utf8");
    expect(file).toBe(renderToolsDoc(reg));
  });

  test("a valid call can be built for every tool from its published schema", () => {
    const failures: string[] = [];
    for (const t of all) {
      const args = sample(t.entrySingle.inputSchema);
      if (args === undefined) {
        failures.push(`${t.def.name}: add v.examples([...]) to the arguments the schema alone cannot satisfy`);
        continue;
      }
      const r = v.safeParse(t.def.input, args);
      if (!r.success)
        failures.push(
          `${t.def.name}: sample ${JSON.stringify(args)} rejected: ${r.issues.map((i) => `${v.getDotPath(i)}: ${i.message}`).join("; ")}`,
        );
    }
    expect(failures).toEqual([]);
  });
});

/**
 * Test-only tools served beside the real registry, so the site checks are
 * exercised even before a domain declares site-scoped tools, and a tool that
 * skips the tenancy check ("leaky") proves the suite catches it.
 */
const siteRead = tool({
  name: "fixture_sites_get",
  toolset: "fixture",
  scope: "sites:read",
  description: "Test-only: read one site of the acting company through siteForActor.",
  input: v.object({ siteId: v.pipe(v.number(), v.integer(), v.minValue(1)) }),
  run: async (ctx, input: any) => ({ id: (await siteForActor(ctx, input.siteId)).id }),
});
const siteWrite = tool({
  name: "fixture_sites_rename",
  toolset: "fixture",
  scope: "sites:write",
  readOnly: false,
  destructive: false,
  description: "Test-only: rename a site of the acting company through siteForActor.",
  input: v.object({ siteId: v.pipe(v.number(), v.integer(), v.minValue(1)), name: v.pipe(v.string(), v.minLength(1)) }),
  run: async (ctx, input: any) => {
    const site = await siteForActor(ctx, input.siteId);
    await ctx.deps.db.update(sites).set({ name: input.name }).where(eq(sites.id, site.id));
    return { id: site.id };
  },
});
const leaky = tool({
  name: "fixture_sites_leak",
  toolset: "fixture",
  scope: "sites:read",
  description: "Test-only and deliberately wrong: reads any site by id without the tenancy check.",
  input: v.object({ siteId: v.pipe(v.number(), v.integer(), v.minValue(1)) }),
  run: async (ctx, input: any) =>
    (await ctx.deps.db.select().from(sites).where(eq(sites.id, input.siteId)).limit(1))[0],
});
const fixtureDomain: Domain = {
  name: "fixture",
  title: "Fixture",
  description: "Test-only tools.",
  tools: [siteRead, siteWrite],
};

describe("generic wire suite over every tool", () => {
  let s: TestServer;
  let extra: ReturnType<typeof Bun.serve>; // the same deps, serving registry + fixture tools
  let leakyServer: ReturnType<typeof Bun.serve>;
  let url: string;
  let ownerKey: string; // "*", company A (owner)
  let viewerKey: string; // "*", company C (viewer)
  let readKey: string; // every :read scope, company A
  let multiKey: string; // "*", companies A and C
  let A: { id: number; name: string };
  let B: { id: number; name: string }; // foreign
  let C: { id: number; name: string };
  let siteA: number;
  let siteB: number;

  const suiteReg = buildRegistry(buildCatalog([...domains, fixtureDomain]));
  // The routers run other tools (test/mcp/listing.test.ts); the suite calls each tool itself.
  const tools = suiteReg.tools.filter((t) => !ROUTERS.has(t.def.name));
  const companyTools = tools.filter((t) => !t.def.companyFree);
  const writeTools = tools.filter((t) => !t.def.readOnly);
  // Self-service writes (minRole "viewer": one's own notifications, profile, leaving) are every member's to make.
  const managerWrites = writeTools.filter((t) => t.def.minRole !== "viewer");
  const siteScoped = (list: RegisteredTool[]) => list.filter((t) => !t.def.companyFree && "siteId" in props(t));

  const changes = () => commits(s.deps);

  async function call(key: string, name: string, args: Record<string, unknown>, base = url) {
    const r = await rawMcp(base, key, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args },
    });
    expect(r.status).toBe(200);
    return (await r.json()) as {
      result?: { isError?: boolean; content: { text: string }[] };
      error?: { code: number; message: string };
    };
  }
  const validArgs = (t: RegisteredTool) => (sample(t.entrySingle.inputSchema) ?? {}) as Record<string, unknown>;

  /** The site check, as a function so it can also be run against a deliberately leaky tool. */
  async function siteFailures(list: RegisteredTool[], base: string): Promise<string[]> {
    const failures: string[] = [];
    for (const t of siteScoped(list)) {
      const before = changes();
      const j = await call(ownerKey, t.def.name, { ...validArgs(t), siteId: siteB }, base);
      const text = j.result?.content[0]?.text ?? JSON.stringify(j.error);
      if (
        !j.result?.isError ||
        text.startsWith("Invalid arguments") ||
        text.startsWith("Forbidden") ||
        /Foreign Secret/.test(text)
      )
        failures.push(
          `${t.def.name} must refuse another company's siteId (resolve it with siteForActor), got: ${text.slice(0, 300)}`,
        );
      if (changes() !== before) failures.push(`${t.def.name} changed data with a foreign siteId`);
    }
    return failures;
  }

  function serve(r: Registry) {
    const app = new Hono();
    app.use(requestId());
    app.route("/", mcpRoutes(s.deps, r));
    return Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
  }

  beforeAll(async () => {
    // The suite makes thousands of calls on a frozen clock; rate limits are tested elsewhere.
    s = await startTestServer({ seed: false, config: { mcpRateLimit: 1_000_000 } });
    extra = serve(suiteReg);
    url = `http://127.0.0.1:${extra.port}`;
    leakyServer = serve(buildRegistry(buildCatalog([{ ...fixtureDomain, tools: [leaky] }])));
    const u = await createUser(s.deps, { email: "suite@plinth.test" });
    const stranger = await createUser(s.deps, { email: "stranger@plinth.test" });
    A = await createCompany(s.deps, { name: "Suite Owner Co", ownerUserId: u.id });
    B = await createCompany(s.deps, { name: "Foreign Secret Co", ownerUserId: stranger.id });
    C = await createCompany(s.deps, { name: "Suite Viewer Co", ownerUserId: stranger.id });
    await addMember(s.deps, C.id, u.id, "viewer");
    const site = async (companyId: number, name: string) =>
      (
        await s.deps.db
          .insert(sites)
          .values({ companyId, name, subdomain: name.toLowerCase().replace(/\W+/g, "-") })
          .returning({ id: sites.id })
      )[0].id;
    siteA = await site(A.id, "Suite Site A");
    siteB = await site(B.id, "Foreign Secret Site");
    await site(C.id, "Suite Site C");
    ownerKey = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [A.id] })).key;
    viewerKey = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [C.id] })).key;
    readKey = (
      await mintMcpKey(s.deps, { userId: u.id, scopes: SCOPES.filter((x) => x.endsWith(":read")), companyIds: [A.id] })
    ).key;
    multiKey = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [A.id, C.id] })).key;
    // Touch every key once so last-used writes do not count as changes below.
    for (const k of [ownerKey, viewerKey, readKey, multiKey]) await call(k, "whoami", {});
  });
  afterAll(async () => {
    extra.stop(true);
    leakyServer.stop(true);
    await s.stop();
  });

  test("the real server lists exactly the real registry; * sees all, a read-only key only read-only tools", async () => {
    const list = async (k: string, base: string) =>
      (
        (await (await rawMcp(base, k, { jsonrpc: "2.0", id: 1, method: "tools/list" })).json()).result.tools as any[]
      ).map((t) => t.name);
    // The full listing leaves out the discovery tools (listed only in discovery mode).
    const listed = (ts: RegisteredTool[]) => ts.filter((t) => !DISCOVERY_ONLY.has(t.def.name)).map((t) => t.def.name);
    expect(await list(ownerKey, s.url)).toEqual(listed(all));
    expect(await list(ownerKey, url)).toEqual(listed(tools));
    expect(await list(readKey, url)).toEqual(listed(tools.filter((t) => t.def.readOnly)));
  });

  test("a valid call can be built for the fixture tools too", () => {
    for (const t of tools) expect(v.safeParse(t.def.input, validArgs(t)).success).toBe(true);
  });

  test("every argument of every tool, given the wrong type, is an isError result naming it", async () => {
    const failures: string[] = [];
    let checked = 0;
    for (const t of companyTools) {
      const base = validArgs(t);
      for (const [name, schema] of Object.entries(props(t))) {
        if (name === "clientId") continue;
        const wrong = wrongTyped(schema);
        if (wrong === undefined) continue;
        const j = await call(ownerKey, t.def.name, { ...base, [name]: wrong });
        if (!j.result?.isError || !j.result.content[0]!.text.includes(name))
          failures.push(
            `${t.def.name}.${name} = ${JSON.stringify(wrong)} was not refused by name: ${JSON.stringify(j).slice(0, 300)}`,
          );
        checked++;
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  });

  test("multi-company key without clientId: refused with the company list, nothing changes", async () => {
    const before = changes();
    const failures: string[] = [];
    for (const t of companyTools) {
      const j = await call(multiKey, t.def.name, validArgs(t));
      const text = j.result?.content[0]?.text ?? "";
      if (
        !j.result?.isError ||
        !text.startsWith("clientId is required") ||
        !text.includes(`${A.id} "${A.name}" (owner)`) ||
        !text.includes(`${C.id} "${C.name}" (viewer)`)
      )
        failures.push(`${t.def.name}: ${JSON.stringify(j).slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
    expect(changes()).toBe(before);
  });

  test("a foreign clientId is refused exactly like a nonexistent one, nothing changes", async () => {
    const before = changes();
    const failures: string[] = [];
    for (const t of companyTools) {
      const foreign = await call(ownerKey, t.def.name, { ...validArgs(t), clientId: B.id });
      const missing = await call(ownerKey, t.def.name, { ...validArgs(t), clientId: 99_999 });
      const ft = foreign.result?.content[0]?.text ?? "";
      if (
        !foreign.result?.isError ||
        ft.includes(B.name) ||
        ft.replace(String(B.id), "N") !== missing.result?.content[0]?.text.replace("99999", "N")
      )
        failures.push(
          `${t.def.name}: ${JSON.stringify(foreign).slice(0, 200)} vs ${JSON.stringify(missing).slice(0, 200)}`,
        );
    }
    expect(failures).toEqual([]);
    expect(changes()).toBe(before);
  });

  test("every write tool is refused for a viewer, and changes nothing", async () => {
    const before = changes();
    const failures: string[] = [];
    expect(managerWrites.length).toBeGreaterThan(writeTools.length / 2);
    for (const t of managerWrites) {
      const j = await call(viewerKey, t.def.name, validArgs(t));
      const text = j.result?.content[0]?.text ?? "";
      if (!j.result?.isError || !text.startsWith("Forbidden") || !text.includes("viewer"))
        failures.push(`${t.def.name} was not refused for a viewer: ${JSON.stringify(j).slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
    expect(changes()).toBe(before);
  });

  test("every write tool is refused to a read-only credential, naming the scope it needs, and changes nothing", async () => {
    const before = changes();
    const failures: string[] = [];
    for (const t of writeTools) {
      const j = await call(readKey, t.def.name, validArgs(t));
      if (j.error?.code !== -32602 || !j.error.message.startsWith(`${t.def.name} needs the ${t.def.scope} scope,`))
        failures.push(`${t.def.name}: ${JSON.stringify(j).slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
    expect(changes()).toBe(before);
  });

  test("every site-scoped tool refuses another company's siteId, leaking nothing and changing nothing", async () => {
    expect(siteScoped(tools).length).toBeGreaterThanOrEqual(2);
    expect(await siteFailures(tools, url)).toEqual([]);
    // The same tools with the acting company's own site do get through.
    const own = await call(ownerKey, "fixture_sites_rename", { siteId: siteA, name: "Renamed" });
    expect(own.result?.isError).toBeFalsy();
  });

  test("the site check catches a tool that skips the tenancy check", async () => {
    const failures = await siteFailures(
      buildRegistry(buildCatalog([{ ...fixtureDomain, tools: [leaky] }])).tools,
      `http://127.0.0.1:${leakyServer.port}`,
    );
    expect(failures.join("\n")).toContain("fixture_sites_leak");
  });

  test("every read tool answers a valid call without a protocol or internal error", async () => {
    const failures: string[] = [];
    for (const t of tools.filter((x) => x.def.readOnly)) {
      const args = { ...validArgs(t), ...("siteId" in props(t) ? { siteId: siteA } : {}) };
      const j = await call(ownerKey, t.def.name, args);
      if (j.error) failures.push(`${t.def.name}: ${JSON.stringify(j.error)}`);
      else if (j.result?.isError && j.result.content[0]!.text.startsWith("Invalid arguments"))
        failures.push(`${t.def.name}: sample rejected: ${j.result.content[0]!.text}`);
    }
    expect(failures).toEqual([]);
  });
});
