/**
 * Adding a domain touches its folder and one line of src/domains/index.ts
 * (README "Adding a domain"): everything a domain brings is declared on its
 * Domain value and reaches the server through the catalog. A throw-away
 * domain, declared here as its folder would declare it, is added to the
 * build's list and served: its scope area is grantable, its tools are listed
 * and called over MCP with a real SDK client, found by tools_search in its
 * own words, its events are emitted and delivered to its subscriber, its
 * job runs, its notification type is known, its public page is mounted and
 * its demo part runs in the seed. Nothing outside this file was edited for it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import * as v from "valibot";
import { catalog } from "../../src/catalog";
import { ManualClock } from "../../src/core/clock";
import type { ActorContext } from "../../src/core/context";
import { defineEvent, emit } from "../../src/core/events";
import { isGrantable } from "../../src/core/scopes";
import { buildCatalog } from "../../src/mcp/catalog";
import { defineTool, type Domain } from "../../src/mcp/define";
import { Hono } from "hono";
import { callTool, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

const seen: { demo: number; delivered: string[]; ran: number } = { demo: 0, delivered: [], ran: 0 };

const pinged = defineEvent({
  type: "probe.pinged",
  entity: "probe",
  description: "A probe was pinged.",
  payload: v.object({ word: v.string() }),
});

/** The folder's whole contribution, as src/domains/probe/tools.ts would export it. */
const probeDomain: Domain = {
  name: "probe",
  title: "Probe",
  description: "A throw-away domain that checks the plug-in boundary.",
  scopes: [
    {
      area: "probe",
      title: "Probes",
      words: { "probe:read": "read probes", "probe:write": "ping them" },
    },
  ],
  tools: [
    defineTool({
      name: "probes_ping",
      toolset: "probe",
      scope: "probe:write",
      readOnly: false,
      description: "Pings the probe with a word and answers it back; emits probe.pinged.",
      input: v.object({ word: v.pipe(v.string(), v.maxLength(40)) }),
      run: async (ctx: ActorContext, input) =>
        ctx.deps.db.transaction(async (tx) => {
          await emit(tx, ctx, pinged, { id: 1 }, { word: input.word });
          return { word: input.word, company: ctx.company.id };
        }),
    }),
    defineTool({
      name: "probes_list",
      toolset: "probe",
      scope: "probe:read",
      readOnly: true,
      description: "Lists the probes of the company (there is always one).",
      input: v.object({}),
      run: () => ({ items: [{ id: 1, name: "the probe" }] }),
    }),
  ],
  vocabulary: { sonar: ["ping"] },
  events: [pinged],
  subscribers: [
    {
      name: "probe.listen",
      types: ["probe.pinged"],
      handle: async (_deps, e) => {
        seen.delivered.push(String((e.data as { word: string }).word));
      },
    },
  ],
  jobs: [{ name: "probe.tick", description: "Counts its runs.", everyMs: 60_000, run: async () => void seen.ran++ }],
  notificationTypes: [{ type: "probe.pinged", label: "A probe was pinged", inApp: true, email: false }],
  publicPages: [{ prefix: "/probe", routes: () => new Hono().get("/", (c) => c.text("probe page")) }],
  demo: async () => void seen.demo++,
};

let s: TestServer;
let key: string;

beforeAll(async () => {
  s = await startTestServer({
    clock: new ManualClock(new Date("2026-11-02T10:00:00Z")),
    catalog: buildCatalog([...catalog.domains, probeDomain]),
  });
  const u = await createUser(s.deps, { email: "probe@example.test" });
  const co = await createCompany(s.deps, { name: "Probe Co", ownerUserId: u.id });
  key = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["probe:*"], companyIds: [co.id] })).key;
});
afterAll(async () => {
  await s?.stop();
});

test("the domain's scopes are grantable; its tools are listed, called and found in its own words", async () => {
  expect(isGrantable("probe:write")).toBe(true);
  expect(isGrantable("probe:*")).toBe(true);
  const client = await mcpClient(s.url, key);
  const listed = (await client.listTools()).tools.map((t) => t.name);
  expect(listed).toContain("probes_ping");
  expect(listed).toContain("probes_list");
  // probe:* reaches nothing else.
  expect(listed.filter((n) => n !== "whoami" && !n.startsWith("probes_"))).toEqual([]);
  expect(await toolOk(client, "probes_ping", { word: "hello" })).toMatchObject({ word: "hello" });
  await s.dispatcher.drain();
  expect(seen.delivered).toEqual(["hello"]);
  const bad = await callTool(client, "probes_ping", { word: "x".repeat(41) });
  expect(bad.isError).toBe(true);
  const found = await toolOk(client, "tools_search", { query: "sonar" });
  expect(found.tools.map((t: { name: string }) => t.name)).toContain("probes_ping");
  await client.close();
});

test("its notification type, job and public page are the server's", async () => {
  expect(s.deps.catalog.notificationTypes.get("probe.pinged")?.label).toBe("A probe was pinged");
  const before = seen.ran;
  s.clock.advance(61_000);
  await s.jobs.runDue();
  expect(seen.ran).toBe(before + 1);
  const r = await fetch(`${s.url}/probe`);
  expect(r.status).toBe(200);
  expect(await r.text()).toBe("probe page");
});

test("its demo part runs once with the seed", () => {
  expect(seen.demo).toBe(1);
});

test("the catalog refuses what would collide with another domain", () => {
  expect(() => buildCatalog([...catalog.domains, probeDomain, { ...probeDomain, name: "probe2", tools: [] }])).toThrow(
    "scope area probe: declared twice (domains probe and probe2)",
  );
  const stray = { ...probeDomain.tools[0]!, name: "probes_stray", scope: "nowhere:write" };
  expect(() =>
    buildCatalog([...catalog.domains, { ...probeDomain, name: "probe3", scopes: [], tools: [stray] }]),
  ).toThrow("tool probes_stray: scope nowhere:write is not declared by any domain (Domain.scopes)");
});
