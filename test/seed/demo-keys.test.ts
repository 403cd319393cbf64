/**
 * The credentials a first `plinth serve` prints work together: the REST key
 * reads its site, and the MCP key's default company (whoami's
 * defaultClientId, printed on the line after the key) is the company that
 * owns that site, so a model starting from whoami finds the REST key's site
 * without guessing. The demo key reaches two companies, so the spec wants
 * clientId on every tool call: without it the call is refused, naming both.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnServe, type ServeProcess } from "../ops/child";

let c: ServeProcess;
let restKey: string;
let siteId: number;
let mcpKey: string;
let printedDefault: { id: number; name: string };

async function tool(name: string, args: Record<string, unknown>) {
  const r = await fetch(`${c.url}/api/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${mcpKey}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  expect(r.status).toBe(200);
  const body = (await r.json()) as { result: { isError?: boolean; content: { text: string }[] } };
  const text = body.result.content[0]!.text;
  return { isError: body.result.isError === true, text, data: body.result.isError ? null : JSON.parse(text) };
}

beforeAll(async () => {
  c = await spawnServe([], { PLINTH_LOG: "off" });
  const rest = /REST key \(site (\d+)\):\s+(svc_live_[0-9a-f]{64})/.exec(await c.line(/REST key \(site/))!;
  siteId = Number(rest[1]);
  restKey = rest[2]!;
  mcpKey = /MCP key \(demo user\):\s+(svc_mcp_[0-9a-f]{64})/.exec(await c.line(/MCP key \(demo user\)/))![1]!;
  const d = /MCP key's default company: (\d+) "([^"]+)" \(owns site (\d+)\)/.exec(await c.line(/default company/))!;
  printedDefault = { id: Number(d[1]), name: d[2]! };
  expect(Number(d[3])).toBe(siteId);
}, 60_000);
afterAll(async () => {
  await c?.cleanup();
});

test("the printed REST key reads its site", async () => {
  const r = await fetch(`${c.url}/api/v1/sites/${siteId}/posts?limit=5`, {
    headers: { Authorization: `Bearer ${restKey}` },
  });
  expect(r.status).toBe(200);
  expect(((await r.json()) as { data: unknown[] }).data.length).toBe(5);
});

test("the printed MCP key's default company is the one printed, and owns the REST key's site", async () => {
  const who = await tool("whoami", {});
  expect(who.data.defaultClientId).toBe(printedDefault.id);
  expect(who.data.client).toEqual({ id: printedDefault.id, company: printedDefault.name });
  expect(printedDefault.name).toBe("Harbor Coffee Roasters");

  const sites = await tool("sites_list", { clientId: who.data.defaultClientId });
  expect(sites.isError).toBe(false);
  expect((sites.data.items as { id: number }[]).map((s) => s.id)).toContain(siteId);

  // A read tool on that site with the default company: the same posts REST serves.
  const posts = await tool("posts_list", { clientId: who.data.defaultClientId, siteId, status: "published", limit: 3 });
  expect(posts.isError).toBe(false);
  const viaRest = (await (
    await fetch(`${c.url}/api/v1/sites/${siteId}/posts?limit=100`, { headers: { Authorization: `Bearer ${restKey}` } })
  ).json()) as {
    data: { slug: string }[];
  };
  for (const p of posts.data.items as { slug: string }[]) expect(viaRest.data.map((x) => x.slug)).toContain(p.slug);
});

test("the demo key reaches two companies, so a call without clientId is refused and names both (interface.md 7.2)", async () => {
  const who = await tool("whoami", {});
  expect(who.data.clients).toHaveLength(2);
  const bare = await tool("sites_list", {});
  expect(bare.isError).toBe(true);
  expect(bare.text).toContain("clientId is required");
  for (const client of who.data.clients as { id: number; company: string }[])
    expect(bare.text).toContain(`${client.id} "${client.company}"`);
});
