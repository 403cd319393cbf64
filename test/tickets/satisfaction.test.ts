/**
 * Satisfaction ratings (issue 33) on the real server: solving a ticket
 * mails "How did we do?" (real SMTP sink) once; one click records the
 * answer, a second click changes nothing and says so, and of many clicks
 * at once exactly one is kept (on SQLite and on PostgreSQL under
 * scripts/with-postgres.ts); a comment is added once; altered links are
 * 404; tickets_satisfaction_report counts per agent and period, within the
 * company. Tools over MCP with the SDK client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { rows, startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { sendDueMail } from "../jobs";

let s: TestServer;
let smtp: TestSmtp;
let owner: Client;
let viewer: Client;
let rival: Client;
let ada: number;
let olga: number;
const START = Date.parse("2025-01-13T09:00:00Z");

const ok = async (name: string, args: Record<string, unknown> = {}, c: Client = owner) => {
  const r = await callTool(c, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r.data;
};
const local = (url: string) => `${s.url}${new URL(url).pathname}`;

/** Delivers what is due: events to subscribers, then the outbox over SMTP. */
async function flush() {
  await s.dispatcher.drain();
  await sendDueMail(s.deps);
}

/** The survey mails to `email` so far, with their good and bad links. */
async function surveys(email: string) {
  const out: { subject: string; good: string; bad: string }[] = [];
  for (const m of smtp.messages.filter((x) => x.envelope.to[0] === email)) {
    const p = await m.parse();
    if (!p.subject?.includes("How did we do?")) continue;
    const good = /Good, I'm satisfied: (\S+)/.exec(p.text ?? "")![1]!;
    const bad = /Bad, I'm not satisfied: (\S+)/.exec(p.text ?? "")![1]!;
    out.push({ subject: p.subject, good: local(good), bad: local(bad) });
  }
  return out;
}

let n = 0;
async function solvedTicket(assignee: number) {
  const email = `req${++n}@customer.test`;
  const t = await ok("tickets_create", { subject: `Question ${n}`, requesterEmail: email, body: "Help?" });
  await ok("tickets_assign", { id: t.id, assigneeId: assignee });
  await ok("tickets_reply", { id: t.id, body: "Done.", status: "solved" });
  await flush();
  return { number: t.id as number, email };
}

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startTestServer({
    seed: false,
    config: { rateLimit: 100_000, smtpUrl: smtp.url(), mailFrom: "Acme Support <support@plinth.test>" },
  });
  s.clock.set(START);
  const u = await createUser(s.deps, { email: "olga@acme.test", name: "Olga Owner" });
  const a = await createUser(s.deps, { email: "ada@acme.test", name: "Ada Admin" });
  const vu = await createUser(s.deps, { email: "vic@acme.test" });
  const ru = await createUser(s.deps, { email: "rita@rival.test" });
  const co = await createCompany(s.deps, { name: "Acme", ownerUserId: u.id });
  const other = await createCompany(s.deps, { name: "Rival", ownerUserId: ru.id });
  await addMember(s.deps, co.id, a.id, "admin");
  await addMember(s.deps, co.id, vu.id, "viewer");
  olga = u.id;
  ada = a.id;
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["tickets:*"], companyIds: [companyId] })).key;
  owner = await mcpClient(s.url, await key(u.id, co.id));
  viewer = await mcpClient(s.url, await key(vu.id, co.id));
  rival = await mcpClient(s.url, await key(ru.id, other.id));
}, 60_000);
afterAll(async () => {
  for (const c of [owner, viewer, rival]) await c?.close();
  await s?.stop();
  await smtp?.stop();
});

let first: { number: number; email: string };

describe("asking and answering", () => {
  test("solving mails one survey; one click records, a second click changes nothing and says so", async () => {
    first = await solvedTicket(ada);
    let mails = await surveys(first.email);
    for (let i = 0; i < 50 && !mails.length; i++) {
      await Bun.sleep(100);
      await flush();
      mails = await surveys(first.email);
    }
    expect(mails.map((m) => m.subject)).toEqual([`[Acme #${first.number}] How did we do?`]);
    const good = await fetch(mails[0]!.good);
    expect(good.status).toBe(200);
    const page = await good.text();
    expect(page).toContain("We recorded your answer: <strong>Good, satisfied</strong>");
    expect(page).toContain('name="comment"');
    expect(good.headers.get("content-security-policy")).toContain("default-src 'none'");
    const again = await (await fetch(mails[0]!.bad)).text();
    expect(again).toContain("Already answered");
    expect(again).toContain("rated <strong>Good, satisfied</strong> on 2025-01-13");
    expect(again).toContain("nothing changed");
    const row = (await rows(s.deps, "SELECT rating, agent_id FROM ticket_ratings"))[0]!;
    expect([row.rating, Number(row.agent_id)]).toEqual(["good", ada]);
    // Reopened and solved again: not asked twice.
    await ok("tickets_set_status", { id: first.number, status: "open" });
    await ok("tickets_set_status", { id: first.number, status: "solved" });
    await flush();
    await Bun.sleep(200);
    expect(await surveys(first.email)).toHaveLength(1);
  });

  test("a comment is added once; an empty one is refused; altered links are 404", async () => {
    const { good } = (await surveys(first.email))[0]!;
    const commentUrl = good.replace(/\/good$/, "/comment");
    const post = (comment: string) =>
      fetch(commentUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ comment }),
      });
    expect((await post("   ")).status).toBe(400);
    const r = await post("Quick <b>and</b> kind");
    expect(r.status).toBe(200);
    expect(await r.text()).toContain("Your comment was added");
    expect(await (await post("Changed my mind")).text()).toContain("nothing changed");
    expect((await rows(s.deps, "SELECT comment FROM ticket_ratings"))[0]!.comment).toBe("Quick <b>and</b> kind");
    const token = good.split("/").at(-2)!;
    const altered = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
    expect((await fetch(`${s.url}/ticket-rating/${altered}/good`)).status).toBe(404);
    expect((await fetch(`${s.url}/ticket-rating/${token}/meh`)).status).toBe(404);
    expect((await fetch(`${s.url}/ticket-rating/not-a-token/good`)).status).toBe(404);
  });

  test("twelve clicks at once, good and bad: exactly one is recorded, eleven are told nothing changed", async () => {
    const t = await solvedTicket(olga);
    let mail = (await surveys(t.email))[0];
    for (let i = 0; i < 50 && !mail; i++) {
      await Bun.sleep(100);
      await flush();
      mail = (await surveys(t.email))[0];
    }
    const pages = await Promise.all(
      Array.from({ length: 12 }, (_, i) => fetch(i % 2 ? mail!.bad : mail!.good).then((r) => r.text())),
    );
    const won = pages.filter((p) => p.includes("We recorded your answer"));
    expect(won).toHaveLength(1);
    expect(pages.filter((p) => p.includes("Already answered"))).toHaveLength(11);
    const kept = (
      await rows(
        s.deps,
        "SELECT r.rating FROM ticket_ratings r JOIN tickets t ON t.id = r.ticket_id WHERE t.number = ?",
        t.number,
      )
    )[0]!.rating;
    expect(won[0]).toContain(kept === "good" ? "Good, satisfied" : "Bad, not satisfied");
  });
});

describe("the report", () => {
  test("per agent and period, within the company; a viewer may read it", async () => {
    // One unanswered survey for Ada.
    const waiting = await solvedTicket(ada);
    for (let i = 0; i < 50 && !(await surveys(waiting.email)).length; i++) {
      await Bun.sleep(100);
      await flush();
    }
    const r = await ok("tickets_satisfaction_report", { from: "2025-01-01", to: "2025-02-01" }, viewer);
    const byEmail = Object.fromEntries(r.agents.map((a: any) => [a.agent.email, a]));
    expect(byEmail["ada@acme.test"]).toMatchObject({ good: 1, bad: 0, unanswered: 1, scorePercent: 100 });
    const o = byEmail["olga@acme.test"];
    expect(o.good + o.bad).toBe(1);
    expect(r.total.good + r.total.bad).toBe(2);
    expect(r.total.unanswered).toBe(1);
    // Another period: nothing.
    const later = await ok("tickets_satisfaction_report", { from: "2025-02-01", to: "2025-03-01" });
    expect(later.total).toEqual({ good: 0, bad: 0, unanswered: 0, scorePercent: null });
    expect(later.agents).toEqual([]);
    // Another company sees none of it.
    expect((await ok("tickets_satisfaction_report", { from: "2025-01-01", to: "2025-02-01" }, rival)).agents).toEqual(
      [],
    );
    // Bad input is a clear error.
    const bad = await callTool(owner, "tickets_satisfaction_report", { from: "2025-02-01", to: "2025-01-01" });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain("from must be before to");
    const junk = await callTool(owner, "tickets_satisfaction_report", { from: "last week" });
    expect(junk.isError).toBe(true);
    expect(junk.text).toContain("a date (2025-01-31)");
  });
});
