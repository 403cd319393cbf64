/**
 * `plinth mcp-keys create --help` names the scopes a key may be given, one
 * line per area, from the build's catalog (issue 29, item 6): a person
 * learns `brain:approve` from the help, not from reading the source.
 */
import { describe, expect, test } from "bun:test";
import { catalog } from "../../src/catalog";
import { WIDTH } from "../../src/cli/args";
import { childEnv, MAIN, ROOT } from "../ops/child";

async function plinth(...args: string[]) {
  const p = Bun.spawn([process.execPath, MAIN, ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: childEnv(),
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code: await p.exited, out, err };
}

describe("mcp-keys create --help", () => {
  test("lists every scope area with its scopes, one line each, after the flags", async () => {
    const r = await plinth("mcp-keys", "create", "--help");
    expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: "" });
    const lines = r.out.split("\n");
    const head = lines.indexOf('Scopes (also "<area>:*" for a whole area, "*" for every scope):');
    expect(head).toBeGreaterThan(lines.indexOf("Flags:"));
    const areas = catalog.scopeAreas;
    expect(areas.length).toBeGreaterThan(20);
    expect(lines.slice(head + 1, head + 1 + areas.length)).toEqual(
      areas.map((a) => `  ${a.area.padEnd(14)} ${Object.keys(a.words).join(" ")}`),
    );
    expect(lines).toContain("  brain          brain:read brain:write brain:approve");
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(WIDTH);
  });

  test("the other commands' help has no scope list", async () => {
    const r = await plinth("mcp-keys", "list", "--help");
    expect(r.code).toBe(0);
    expect(r.out).not.toContain("brain:approve");
  });
});
