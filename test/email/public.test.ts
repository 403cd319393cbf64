/**
 * The email domain on a real server over HTTP with real MCP SDK clients:
 * a campaign drafted over MCP, approved, sent to the loopback SMTP server;
 * the recipient's unsubscribe link (page and RFC 8058 one-click POST), the
 * double opt-in page, open and click tracking, transactional idempotency,
 * and what credentials without email:send see.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { closeMailTransport } from "../../src/core/mail";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { deliver } from "../jobs";
import { emailMemberships, emailSends } from "../../src/domains/email/tables";
import { mcpClient, mintMcpKey } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { makeWorld, toolNames, type World } from "../cms/world";

let s: TestServer;
let w: World;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
  closeMailTransport();
  s = await startTestServer({ seed: false, config: { smtpUrl: smtp.url(), mailFrom: "Acme <news@acme.test>" } });
  w = await makeWorld(s);
}, 120_000);
afterAll(async () => {
  await s?.stop();
  closeMailTransport();
  await smtp?.stop();
});

const unfold = (raw: string) => raw.replace(/=\r\n/g, "").replace(/=3D/g, "=");
const flush = async () => {
  for (let i = 0; i < 20; i++) {
    await deliver(s.deps);
    s.clock.advance(1000);
  }
};

async function sentCampaign(extra: Record<string, unknown> = {}) {
  const list = await w.ok(w.owner, "email_lists_create", { name: `L${Math.random()}`, optIn: "single" });
  const email = `r${Math.random().toString(36).slice(2, 8)}@example.com`;
  await w.ok(w.owner, "email_subscribers_add", { email, name: "Rae <i>", listIds: [list.id] });
  const c = await w.ok(w.owner, "email_campaigns_create", {
    name: "News",
    subject: "News",
    html: '<p>Hi {{ name }}</p><p><a href="https://acme.test/a?x=1&amp;y=2">First</a> <a href="https://acme.test/b">Second</a></p>',
    listIds: [list.id],
    ...extra,
  });
  expect(c.approval.url).toContain("/approve/");
  const o = await decideApproval(s.deps, { token: c.approval.token }, "approve", { decidedBy: "Rita" });
  expect(o.ok).toBe(true);
  await w.ok(w.owner, "email_campaigns_send", { id: c.id });
  const before = smtp.messages.length;
  await flush();
  const m = smtp.messages.slice(before).find((x) => x.envelope.to[0] === email)!;
  const token = /\/e\/u\/([0-9a-f]{48})/.exec(unfold(m.raw))![1]!;
  return { list, email, campaign: c, raw: unfold(m.raw), token };
}

const status = async (listId: number, email: string) => {
  const sub = await w.ok(w.owner, "email_subscribers_get", { email });
  return sub.lists.find((l: any) => l.listId === listId)?.status;
};

describe("unsubscribe", () => {
  test("GET shows the page and changes nothing; the RFC 8058 one-click POST (no cookie, no origin) unsubscribes", async () => {
    const r = await sentCampaign();
    const page = await fetch(`${s.url}/e/u/${r.token}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(r.email);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await status(r.list.id, r.email)).toBe("subscribed");
    const post = await fetch(`${s.url}/e/u/${r.token}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(post.status).toBe(200);
    expect(await status(r.list.id, r.email)).toBe("unsubscribed");
    // Again: still fine, nothing more changes.
    expect(
      (
        await fetch(`${s.url}/e/u/${r.token}`, {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: "List-Unsubscribe=One-Click",
        })
      ).status,
    ).toBe(200);
    const stats = await w.ok(w.owner, "email_campaigns_stats", { id: r.campaign.id });
    expect(stats.unsubscribed).toBe(1);
  });

  test("the page's own form needs its CSRF cookie and same origin; a forged post changes nothing", async () => {
    const r = await sentCampaign();
    const forged = await fetch(`${s.url}/e/u/${r.token}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.test" },
      body: "csrf=abc",
    });
    expect(forged.status).toBe(403);
    expect(await status(r.list.id, r.email)).toBe("subscribed");
    const page = await fetch(`${s.url}/e/u/${r.token}`);
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!;
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(await page.text())![1]!;
    const ok = await fetch(`${s.url}/e/u/${r.token}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, Origin: s.url },
      body: `csrf=${csrf}`,
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("You are unsubscribed");
    expect(await status(r.list.id, r.email)).toBe("unsubscribed");
  });

  test("list names are escaped on the page and the answer; 'every other list' unsubscribes from all of them", async () => {
    const r = await sentCampaign();
    const hostile = ['<img src=x onerror="alert(1)">', "</label><script>alert(2)</script>", 'Q&A "weekly"'];
    await w.ok(w.owner, "email_lists_update", { id: r.list.id, name: hostile[0] });
    const others = [];
    for (const name of hostile.slice(1)) {
      const l = await w.ok(w.owner, "email_lists_create", { name, optIn: "single" });
      await w.ok(w.owner, "email_subscribers_add", { email: r.email, listIds: [l.id] });
      others.push(l.id);
    }
    const page = await fetch(`${s.url}/e/u/${r.token}`);
    const html = await page.text();
    for (const raw of ["<img", "<script", "</label><script", 'Q&A "weekly"']) expect(html).not.toContain(raw);
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).toContain("&lt;/label&gt;&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(html).toContain("Q&amp;A &quot;weekly&quot;");
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!;
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)![1]!;
    const done = await fetch(`${s.url}/e/u/${r.token}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, Origin: s.url },
      body: `csrf=${csrf}&all=1`,
    });
    expect(done.status).toBe(200);
    const answer = await done.text();
    expect(answer).toContain("You are unsubscribed");
    expect(answer).not.toContain("<img");
    expect(answer).not.toContain("<script");
    // All three lists, not only the campaign's.
    for (const id of [r.list.id, ...others]) expect(await status(id, r.email)).toBe("unsubscribed");
  });

  test("without 'every other list' only the campaign's lists are left", async () => {
    const r = await sentCampaign();
    const other = await w.ok(w.owner, "email_lists_create", { name: "Kept", optIn: "single" });
    await w.ok(w.owner, "email_subscribers_add", { email: r.email, listIds: [other.id] });
    const page = await fetch(`${s.url}/e/u/${r.token}`);
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!;
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(await page.text())![1]!;
    await fetch(`${s.url}/e/u/${r.token}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, Origin: s.url },
      body: `csrf=${csrf}`,
    });
    expect(await status(r.list.id, r.email)).toBe("unsubscribed");
    expect(await status(other.id, r.email)).toBe("subscribed");
  });

  test("unknown or malformed tokens are a 404 page that changes nothing", async () => {
    for (const t of ["0".repeat(48), "nope", "../../etc", "preview"]) {
      const res = await fetch(`${s.url}/e/u/${encodeURIComponent(t)}`);
      expect(res.status).toBe(404);
    }
    const post = await fetch(`${s.url}/e/u/${"f".repeat(48)}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(post.status).toBe(404);
  });
});

describe("double opt-in page", () => {
  test("the mailed link shows a button; only the post confirms", async () => {
    const list = await w.ok(w.owner, "email_lists_create", { name: "Double opt-in", optIn: "double" });
    await w.ok(w.owner, "email_subscribers_add", { email: "confirm@example.com", listIds: [list.id] });
    const before = smtp.messages.length;
    await flush();
    const raw = unfold(smtp.messages.slice(before).find((m) => m.envelope.to[0] === "confirm@example.com")!.raw);
    const token = /\/e\/confirm\/([0-9a-f]{48})/.exec(raw)![1]!;
    const page = await fetch(`${s.url}/e/confirm/${token}`);
    expect(page.status).toBe(200);
    expect(await status(list.id, "confirm@example.com")).toBe("unconfirmed");
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!;
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(await page.text())![1]!;
    const ok = await fetch(`${s.url}/e/confirm/${token}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, Origin: s.url },
      body: `csrf=${csrf}`,
    });
    expect(ok.status).toBe(200);
    expect(await status(list.id, "confirm@example.com")).toBe("subscribed");
    const m = (
      await s.deps.db
        .select()
        .from(emailMemberships)
        .where(and(eq(emailMemberships.listId, list.id)))
    )[0]!;
    expect(m.confirmTokenHash).toBeNull();
  });
});

describe("tracking", () => {
  test("opens and clicks are recorded only when enabled; a click goes to that message's own link", async () => {
    const tracked = await sentCampaign({ trackOpens: true, trackClicks: true });
    expect(tracked.raw).toContain(`/e/o/${tracked.token}`);
    expect(tracked.raw).toContain(`/e/c/${tracked.token}/1`);
    const pixel = await fetch(`${s.url}/e/o/${tracked.token}`);
    expect(pixel.headers.get("content-type")).toBe("image/gif");
    const click = await fetch(`${s.url}/e/c/${tracked.token}/0`, { redirect: "manual" });
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe("https://acme.test/a?x=1&y=2");
    expect((await fetch(`${s.url}/e/c/${tracked.token}/7`, { redirect: "manual" })).status).toBe(404);
    const stats = await w.ok(w.owner, "email_campaigns_stats", { id: tracked.campaign.id });
    expect(stats).toMatchObject({
      opened: 1,
      clicked: 1,
      totalOpens: 1,
      totalClicks: 1,
      openRate: 100,
      clickRate: 100,
    });

    const plain = await sentCampaign();
    expect(plain.raw).not.toContain("/e/o/");
    expect(plain.raw).toContain('href="https://acme.test/b"');
    await fetch(`${s.url}/e/o/${plain.token}`);
    expect((await fetch(`${s.url}/e/c/${plain.token}/0`, { redirect: "manual" })).status).toBe(404);
    const row = (await s.deps.db.select().from(emailSends).where(eq(emailSends.token, plain.token)))[0]!;
    expect([row.opens, row.openedAt, row.clicks]).toEqual([0, null, 0]);
    expect((await w.ok(w.owner, "email_campaigns_stats", { id: plain.campaign.id })).opened).toBeNull();
  });
});

describe("over MCP", () => {
  test("transactional send with an idempotencyKey queues one message however often it is retried", async () => {
    const tpl = await w.ok(w.owner, "email_templates_create", { name: "Reset", html: "<p>Code {{ data.code }}</p>" });
    const args = {
      to: "reset@example.com",
      templateId: tpl.id,
      subject: "Your code",
      data: { code: "4711" },
      idempotencyKey: "reset-4711",
    };
    const a = await w.ok(w.owner, "email_transactional_send", args);
    const b = await w.ok(w.owner, "email_transactional_send", args);
    expect(b.replayed).toBe(true);
    expect(b.id).toBe(a.id);
    expect((await s.deps.db.select().from(emailSends).where(eq(emailSends.email, "reset@example.com"))).length).toBe(1);
    expect(await w.err(w.owner, "email_transactional_send", { ...args, subject: "Other" })).toContain("already used");
  });

  test("segments and attributes travel over MCP; malformed rules are a tool error naming the place", async () => {
    const list = await w.ok(w.owner, "email_lists_create", { name: "MCP segment list", optIn: "single" });
    await w.ok(w.owner, "email_subscribers_add", {
      email: "vip@example.com",
      attributes: { tier: "gold", visits: 12 },
      listIds: [list.id],
    });
    await w.ok(w.owner, "email_subscribers_add", {
      email: "new@example.com",
      attributes: { tier: "none", visits: 1 },
      listIds: [list.id],
    });
    const seg = await w.ok(w.owner, "email_segments_create", {
      name: "Regulars",
      rules: {
        conditions: [
          { field: "attributes.visits", op: "gt", value: 10 },
          { field: "list", op: "in", value: list.id },
        ],
      },
    });
    const n = await w.ok(w.owner, "email_segments_count", { id: seg.id });
    expect(n.sample.map((x: any) => x.email)).toEqual(["vip@example.com"]);
    expect(
      await w.err(w.owner, "email_segments_create", {
        name: "Bad",
        rules: { conditions: [{ field: "email", op: "like", value: "x" }] },
      }),
    ).toContain("rules.conditions[0].op");
    expect(
      await w.err(w.owner, "email_subscribers_add", { email: "a@example.com", attributes: { nested: { no: 1 } } }),
    ).toContain("nested");
  });

  test("a key without email:send does not see the send tools and is refused if it calls them", async () => {
    const user = w.ownerUserId;
    const writer = await mcpClient(
      s.url,
      (await mintMcpKey(s.deps, { userId: user, scopes: ["email:write"], companyIds: [w.A.id], name: "Writer" })).key,
    );
    const names = await toolNames(writer);
    expect(names).toContain("email_campaigns_create");
    expect(names).not.toContain("email_campaigns_send");
    expect(names).not.toContain("email_transactional_send");
    // A tool the credential may not use is unknown to it: a protocol error, not a tool result.
    const refused = await w.call(writer, "email_campaigns_send", { id: 1 }).then(
      (r) => (r.isError ? r.text : "ran"),
      (e: Error) => e.message,
    );
    expect(refused).not.toBe("ran");
    expect(await w.err(w.viewer, "email_lists_create", { name: "x" })).toMatch(/role|viewer|admin/i);
  });
});
