/**
 * Memory is bounded whatever one valid key sends: the tools/list memo keys
 * only on what changes the answer (never `_meta`, never the id), holds a
 * bounded number of bytes, and refuses to remember oversized requests. Run
 * against a real server process so its RSS is the server's alone.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "../db";
import { freePort } from "../infra/services";

const ROOT = join(import.meta.dir, "../..");
let proc: ReturnType<typeof Bun.spawn>;
let dataDir: string;
let databaseUrl: string | null = null;
let base: string;
let key: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "plinth-mem-"));
  if (ON_PG) databaseUrl = await freshDatabaseUrl();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  proc = Bun.spawn(
    [
      process.execPath,
      join(ROOT, "src/main.ts"),
      "serve",
      "--port",
      String(port),
      "--data-dir",
      dataDir,
      "--mcp-rate-limit",
      "1000000",
    ],
    {
      cwd: ROOT,
      env: { ...process.env, PLINTH_DATABASE_URL: databaseUrl ?? undefined, PLINTH_LOG: "off" },
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  let out = "";
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  while (!/MCP key[^\n]*\n/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited:\n${out}`);
    out += new TextDecoder().decode(value);
  }
  key = /(svc_mcp_[0-9a-f]{64})/.exec(out)![1]!;
}, 60_000);

afterAll(async () => {
  proc?.kill();
  await proc?.exited;
  rmSync(dataDir, { recursive: true, force: true });
  await dropDatabase(databaseUrl);
});

const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))![1]) / 1024;

async function list(params: Record<string, unknown>, headers: Record<string, string> = {}) {
  const r = await fetch(`${base}/api/mcp`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${key}`,
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params }),
  });
  await r.arrayBuffer();
  return r.status;
}

test("RSS stays under 200 MB through 200 tools/list calls with distinct 5 MB _meta and 4,500 distinct list shapes", async () => {
  expect(await list({})).toBe(200);
  const big = "x".repeat(5 * 1024 * 1024);
  for (let i = 0; i < 200; i++) expect(await list({ _meta: { trace: `${i}:${big}` } })).toBe(200);
  const afterMeta = await (async () => {
    for (let i = 0; i < 30 && rssMb() >= 200; i++) await Bun.sleep(200);
    return rssMb();
  })();
  console.log("rss after _meta", afterMeta.toFixed(1));
  for (let i = 0; i < 4500; i++) {
    const status = await list(
      { cursor: `c${i}-${"y".repeat(900)}` },
      { "mcp-protocol-version": i % 2 ? "2025-06-18" : "2025-03-26" },
    );
    expect(status).toBe(200);
  }
  // The memory guard (src/ops/memory.ts) runs every 2 s: give it one turn.
  const settle = async () => {
    for (let i = 0; i < 30 && rssMb() >= 200; i++) await Bun.sleep(200);
    return rssMb();
  };
  const afterShapes = await settle();
  console.log("rss after shapes", afterShapes.toFixed(1));
  expect(afterMeta).toBeLessThan(200);
  expect(afterShapes).toBeLessThan(200);
}, 180_000);
