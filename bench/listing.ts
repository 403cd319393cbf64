/**
 * tools/list size in each listing mode (issue 29, item 1; src/mcp/listing.ts),
 * for a key granted every scope: the bytes of the whole JSON-RPC answer as a
 * client receives it over HTTP (tokens ≈ bytes ÷ 4), the number of tools, and
 * which clients accept that many. In process, on a fresh SQLite server (the
 * listing does not depend on the engine):
 *   bun bench/listing.ts
 */
import { clientsAccepting } from "../src/mcp/listing";
import { createCompany, createUser, mintMcpKey, rawMcp } from "../test/fixtures/accounts";
import { startTestServer } from "../test/harness";

process.env.PLINTH_LOG = "off";

const s = await startTestServer({ seed: false });
try {
  const u = await createUser(s.deps, { email: "bench@listing.test" });
  const a = await createCompany(s.deps, { name: "A", ownerUserId: u.id });
  const b = await createCompany(s.deps, { name: "B", ownerUserId: u.id });
  const key = async (listingMode: string | null, companies = [a.id]) =>
    (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: companies, listingMode })).key;
  const modes: [string, string, Record<string, string>][] = [
    ["automatic (default): discovery", await key(null), {}],
    ["full (stored), single company", await key("full"), {}],
    ["full (stored), several companies", await key("full", [a.id, b.id]), {}],
    ["discovery (stored)", await key("discovery"), {}],
    ["toolsets:crm (stored)", await key("toolsets:crm"), {}],
    ["toolsets:cms,store (stored)", await key("toolsets:cms,store"), {}],
    ["X-MCP-Readonly: true (request, full)", await key("full"), { "X-MCP-Readonly": "true" }],
  ];
  const lines = [
    "| mode | tools | bytes | bytes per tool | ≈ tokens | clients that take it |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const [mode, k, headers] of modes) {
    const r = await rawMcp(s.url, k, { jsonrpc: "2.0", id: 1, method: "tools/list" }, headers);
    const bytes = new Uint8Array(await r.arrayBuffer());
    const n = JSON.parse(new TextDecoder().decode(bytes)).result.tools.length as number;
    lines.push(
      `| ${mode} | ${n} | ${bytes.length} | ${Math.round(bytes.length / n)} | ${Math.round(bytes.length / 4)} | ${clientsAccepting(n)} |`,
    );
  }
  console.log(lines.join("\n"));
} finally {
  await s.stop();
}
