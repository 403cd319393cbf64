/**
 * The compiled executable: built with `bun build --compile`, copied alone into
 * an empty folder, started there, and asked for one authenticated and one
 * public endpoint. Proves migrations, seed and assets are embedded.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { imageSize } from "image-size";
import pkg from "../../package.json" with { type: "json" };
import { linkGuides } from "../../src/mcp/define";
import { mcpClient } from "../fixtures/accounts";
import { Browser } from "../oauth/helpers";

const root = new URL("../..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "plinth-bin-"));
let proc: Bun.Subprocess<"ignore", "pipe", "pipe"> | undefined;
let banner = "";
let base = "";

beforeAll(async () => {
  const build = Bun.spawnSync(
    [process.execPath, "build", "--compile", join(root, "src/main.ts"), "--outfile", join(dir, "build", "plinth")],
    { cwd: root, stdout: "pipe", stderr: "pipe" },
  );
  expect(build.exitCode).toBe(0);
  // Run it from a folder holding nothing but the executable.
  const runDir = join(dir, "run");
  Bun.spawnSync(["mkdir", "-p", runDir]);
  copyFileSync(join(dir, "build", "plinth"), join(runDir, "plinth"));
  Bun.spawnSync(["chmod", "+x", join(runDir, "plinth")]);
  expect(readdirSync(runDir)).toEqual(["plinth"]);
  proc = Bun.spawn([join(runDir, "plinth"), "--port", "0"], {
    stdin: "ignore",
    cwd: runDir,
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: "/usr/bin:/bin", HOME: runDir },
  });
  const reader = proc.stdout.getReader();
  const deadline = Date.now() + 20_000;
  while (!/curl .*config/.test(banner) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    banner += new TextDecoder().decode(value);
  }
  base = /listening on (http:\/\/\S+)/.exec(banner)?.[1] ?? "";
}, 60_000);

afterAll(() => {
  proc?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe("compiled binary", () => {
  test("starts from an empty folder, seeds the demo, prints credentials", () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(banner).toMatch(/svc_live_[0-9a-f]{64}/);
    expect(banner).toMatch(/svc_mcp_[0-9a-f]{64}/);
  });

  test("serves an authenticated endpoint with the printed key", async () => {
    const [, siteId, key] = /REST key \(site (\d+)\):\s+(svc_live_[0-9a-f]{64})/.exec(banner)!;
    const res = await fetch(`${base}/api/v1/sites/${siteId}/posts?limit=2`, { headers: { "x-api-key": key! } });
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body.success).toBe(true);
    expect(body.data).toHaveLength(2);
    const denied = await fetch(`${base}/api/v1/sites/${siteId}/posts`);
    expect(denied.status).toBe(401);
  });

  test("serves the demo's media files, generated into its data dir at first start", async () => {
    const [, siteId, key] = /REST key \(site (\d+)\):\s+(svc_live_[0-9a-f]{64})/.exec(banner)!;
    const list: any = await (
      await fetch(`${base}/api/v1/sites/${siteId}/media?mimeType=image/jpeg&limit=1`, {
        headers: { "x-api-key": key! },
      })
    ).json();
    const file = await fetch(new URL(list.data[0].url, base));
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/jpeg");
    const bytes = new Uint8Array(await file.arrayBuffer());
    const size = imageSize(bytes);
    expect([size.type, size.width, size.height]).toEqual(["jpg", list.data[0].width, list.data[0].height]);
  });

  test("knows its version without package.json beside it, and reads its arguments strictly", () => {
    const bin = join(dir, "run", "plinth");
    const env = { PATH: "/usr/bin:/bin", HOME: join(dir, "run") };
    const version = Bun.spawnSync([bin, "--version"], { cwd: join(dir, "run"), env, stdout: "pipe", stderr: "pipe" });
    expect(version.exitCode).toBe(0);
    expect(version.stdout.toString()).toBe(`plinth ${pkg.version}\n`);
    const typo = Bun.spawnSync([bin, "--dta-dir", "x"], { cwd: join(dir, "run"), env, stdout: "pipe", stderr: "pipe" });
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr.toString()).toStartWith("plinth: unknown flag --dta-dir; did you mean --data-dir?");
    const help = Bun.spawnSync([bin, "keys", "create", "--help"], { cwd: join(dir, "run"), env, stdout: "pipe" });
    expect(help.stdout.toString()).toStartWith("Usage: plinth keys create --site <id>");
  });

  test("carries the guides it serves as MCP resources (docs://automations is docs/automations.md)", async () => {
    const [, key] = /MCP key \(demo user\):\s+(svc_mcp_[0-9a-f]{64})/.exec(banner)!;
    const c = await mcpClient(base, key!);
    try {
      const r = await c.readResource({ uri: "docs://automations" });
      expect((r.contents[0] as { text: string }).text).toBe(
        linkGuides(readFileSync(join(root, "docs/automations.md"), "utf8")),
      );
    } finally {
      await c.close();
    }
  });
  test("draws the portal's charts (Vega, loaded on first use) inside the binary", async () => {
    const [, email, password] = /Portal sign-in:\s+\S+\s+(\S+) \/ (\S+)/.exec(banner)!;
    const b = new Browser(base);
    expect((await b.signIn(email!, password!)).status).toBe(303);
    // The demo's projects are Northwind's; the person lands in their first company.
    const home = await (await b.get("/")).text();
    const northwind = /<option value="(\d+)"[^>]*>Northwind Studio/.exec(home)![1]!;
    await b.post("/company", { _csrf: await b.csrf("/"), company_id: northwind, next: "/projects/HCW" });
    const board = await (await b.get("/projects/HCW")).text();
    const res = await b.get(/href="(\/projects\/HCW\/sprints\/\d+)"/.exec(board)![1]!);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<figure class="chart" id="velocity">');
    expect(html).toMatch(/<svg[^>]*class="marks"/);
  }, 30_000);

  test("serves a public endpoint without a key", async () => {
    const [, siteId] = /REST key \(site (\d+)\)/.exec(banner)!;
    const res = await fetch(`${base}/api/v1/sites/${siteId}/config`);
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body.data.id).toBe(Number(siteId));
    expect(typeof body.data.storeEnabled).toBe("boolean");
  });
});
