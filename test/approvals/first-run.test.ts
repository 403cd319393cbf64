/**
 * A first run without SMTP, as a person trying Plinth meets it (issue 30):
 * `plinth serve` on an empty data dir seeds the demo and its start-up lines
 * say how to decide an approval link. The demo's company uses `person` with
 * one listed reviewer; following the printed lines (the agent drafts with
 * the printed MCP key, the page offers a code, the printed outbox query
 * shows it) decides the link as that reviewer, and the printed password
 * signs in a member who is told they asked for this one themself. Runs on
 * whichever engine the suite runs on (the printed query is sqlite3 or psql).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEMO_REVIEWER } from "../../db/seed/demo";
import { callTool, mcpClient } from "../fixtures/accounts";
import { Browser } from "../oauth/helpers";
import { childEnv, spawnServe, type ServeProcess } from "../ops/child";

let p: ServeProcess;

beforeAll(async () => {
  p = await spawnServe();
  await p.line(/Portal sign-in:/);
}, 60_000);
afterAll(async () => {
  await p?.cleanup();
});

const printed = (re: RegExp) => {
  const hit = p.out.map((l) => re.exec(l)).find(Boolean);
  if (!hit) throw new Error(`not printed: ${re}\n${p.out.join("\n")}`);
  return hit;
};

describe("first run without SMTP", () => {
  test("the start-up lines are enough to decide an agent's link as the demo's reviewer", async () => {
    const mcpKey = printed(/MCP key \(demo user\):\s+(svc_mcp_\w+)/)[1]!;
    const siteId = Number(printed(/REST key \(site (\d+)\)/)[1]);
    const clientId = Number(printed(/default company: (\d+)/)[1]);
    const [, email, password] = printed(/Portal sign-in:\s+\S+\s+(\S+) \/ (\S+)/);
    expect(printed(/"Get a code by email" for (\S+)/)[1]).toBe(`${DEMO_REVIEWER}`);
    const query = p.out.find((l) => l.includes("mail_outbox"))!.trim();
    expect(query).toStartWith(p.databaseUrl ? "psql " : "sqlite3 ");

    const agent = await mcpClient(p.url, mcpKey);
    const drafted = await callTool(agent, "posts_create", { clientId, siteId, title: "First-run draft" });
    expect(drafted.isError).toBe(false);
    const path = new URL(drafted.data.approval.url).pathname;

    // The agent (or anyone) with the link sees the preview, not the buttons.
    const visitor = new Browser(p.url);
    const page = await (await visitor.get(path)).text();
    expect(page).toContain("First-run draft");
    expect(page).not.toContain('name="decision"');
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(page)![1]!;
    expect((await visitor.post(`${path}/code`, { csrf, email: DEMO_REVIEWER })).status).toBe(200);

    // The printed query, run as printed, shows the code kept in the outbox.
    const run = Bun.spawnSync(["bash", "-c", query], {
      cwd: process.cwd(),
      env: childEnv({ PLINTH_DATABASE_URL: p.databaseUrl ?? undefined }),
    });
    const shown = run.stdout.toString();
    expect(shown).toContain(DEMO_REVIEWER);
    const code = /Your code: ([0-9]{8})/.exec(shown)![1]!;
    const again = await (await visitor.get(path)).text();
    const decided = await visitor.post(path, {
      csrf: /name="csrf" value="([0-9a-f]+)"/.exec(again)![1]!,
      email: DEMO_REVIEWER,
      code,
      decision: "approve",
    });
    expect(decided.status).toBe(303);
    const got = await callTool(agent, "approvals_get", { clientId, id: drafted.data.approval.id });
    expect(got.data).toMatchObject({ status: "approved", decidedBy: `${DEMO_REVIEWER} (verified reviewer)` });

    // The printed password signs in the demo user, who asked for the next one through their key.
    const next = await callTool(agent, "posts_create", { clientId, siteId, title: "Second draft" });
    const member = new Browser(p.url);
    expect((await member.signIn(email!, password!)).status).toBe(303);
    const own = await (await member.get(new URL(next.data.approval.url).pathname)).text();
    expect(own).toContain("You asked for this change yourself");
    expect(own).not.toContain('name="decision"');
  }, 60_000);
});
