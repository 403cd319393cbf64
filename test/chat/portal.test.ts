/**
 * Chat in the portal over HTTP: the conversation list and its filters, one
 * conversation's transcript with notes marked internal, every action
 * through the chat verbs (audit rows and events included), the live SSE
 * feeds, escaping of what visitors write, the role matrix (viewers read,
 * another company's conversation is 404) and cross-site refusal.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addNote, assign, reply, setStatus } from "../../src/domains/chat/conversations";
import { createCanned } from "../../src/domains/chat/canned";
import { commits, jsonValue, row, rows } from "../harness";
import { type Browser, pageText, readForms } from "../oauth/helpers";
import { portalChatWorld, readEvents, type PortalChatWorld } from "./portal-world";

const XSS = `<img src=x onerror="alert(1)"><script>alert('pwned')</script>`;

let w: PortalChatWorld;
let olga: Browser;
let vic: Browser;
let ann: { token: string; conversation: number };
let bob: { token: string; conversation: number };
let rivalConv: number;

beforeAll(async () => {
  w = await portalChatWorld();
  ann = await w.visit(`Hello! ${XSS}`, { name: `Ann <b>Bold</b>`, email: "ann@example.test" });
  w.s.clock.advance(60_000);
  bob = await w.visit("Do you ship beans to Canada?", { name: "Bob Baker" });
  await assign(w.as("olga"), { id: bob.conversation, assigneeId: "me" });
  rivalConv = (await w.visit("Rival's visitor", { inbox: w.rivalInbox.id })).conversation;
  await createCanned(w.as("olga"), { shortCode: "thanks", content: "Thanks {{name}}, we are on it." });
  olga = await w.signIn("olga");
  vic = await w.signIn("vic");
}, 30_000);
afterAll(() => w.s.stop());

const html = async (b: Browser, path: string) => {
  const res = await b.get(path);
  return { status: res.status, csp: res.headers.get("content-security-policy") ?? "", html: await res.text() };
};
const post = async (b: Browser, path: string, fields: Record<string, string>) =>
  b.post(path, { _csrf: await b.csrf("/"), ...fields });
const messages = (n: number) =>
  rows<{ kind: string; body: string; user_id: number | null }>(
    w.s.deps,
    "SELECT m.kind, m.body, m.user_id FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id WHERE c.number = ? AND c.company_id = ? ORDER BY m.id",
    n,
    w.acme.id,
  );
const conv = (n: number) =>
  row<{ status: string; assignee_id: number | null; snoozed_until: unknown }>(
    w.s.deps,
    "SELECT status, assignee_id, snoozed_until FROM chat_conversations WHERE number = ? AND company_id = ?",
    n,
    w.acme.id,
  );

describe("the conversation list", () => {
  test("lists the company's conversations with what the visitor wrote escaped, and a nonce'd live script only", async () => {
    const p = await html(olga, "/chat");
    expect(p.status).toBe(200);
    const text = await pageText(p.html);
    expect(text).toContain("Chat of Acme");
    expect(text).toContain("Ann <b>Bold</b>");
    expect(text).toContain("Bob Baker");
    expect(text).not.toContain("Rival's visitor");
    expect(p.html).not.toContain("<b>Bold</b>");
    // One script, carrying the nonce the policy allows; nothing else may run.
    const nonce = /script-src 'nonce-([^']+)'/.exec(p.csp)![1]!;
    expect(p.csp).toContain("connect-src 'self'");
    expect(p.html.match(/<script/g)).toHaveLength(1);
    expect(p.html).toContain(`<script nonce="${nonce}">`);
    // The navigation carries the domains' entries.
    expect(text).toContain("Chat");
    expect(text).toContain("AI credits");
  });

  test("filters by status, assignee, inbox and text", async () => {
    const ids = async (q: string) =>
      [...(await html(olga, `/chat${q}`)).html.matchAll(/<tr id="c(\d+)"/g)].map((m) => Number(m[1]));
    expect((await ids("")).sort()).toEqual([ann.conversation, bob.conversation].sort());
    expect(await ids("?assignee=me")).toEqual([bob.conversation]);
    expect(await ids("?assignee=none")).toEqual([ann.conversation]);
    expect(await ids(`?assignee=${w.users.olga}`)).toEqual([bob.conversation]);
    expect(await ids("?q=Canada")).toEqual([bob.conversation]);
    expect(await ids(`?q=%23${ann.conversation}`)).toEqual([ann.conversation]);
    expect(await ids(`?inbox=${w.inbox.id}`)).toHaveLength(2);
    expect(await ids(`?inbox=${w.rivalInbox.id}`)).toEqual([]);
    expect(await ids("?status=resolved")).toEqual([]);
    // Nonsense filters fall back to the defaults, never a 500.
    expect((await html(olga, "/chat?status=<x>&assignee=';--&inbox=abc&page=-1")).status).toBe(200);
  });
});

describe("one conversation", () => {
  test("shows the transcript in order with notes marked internal; hostile text stays text", async () => {
    await addNote(w.as("ada"), { id: ann.conversation, body: "VIP customer" });
    await reply(w.as("ada"), { id: ann.conversation, body: "Hi Ann, how can we help?" });
    const p = await html(olga, `/chat/${ann.conversation}`);
    expect(p.status).toBe(200);
    const text = await pageText(p.html);
    expect(text).toContain(`Hello! ${XSS}`);
    expect(p.html).not.toContain(`<script>alert('pwned')`);
    expect(p.html).not.toContain(`<img src=x`);
    expect(text).toMatch(/Internal note, never shown to the visitor\s*VIP customer/);
    expect(text.indexOf("Hello!")).toBeLessThan(text.indexOf("VIP customer"));
    expect(text.indexOf("VIP customer")).toBeLessThan(text.indexOf("Hi Ann, how can we help?"));
    expect(p.html).toContain('class="msg note"');
    // The forms an owner gets.
    const actions = (await readForms(p.html)).map((f) => f.action);
    for (const a of ["reply", "note", "assign", "snooze", "status"])
      expect(actions).toContain(`/chat/${ann.conversation}/${a}`);
  });

  test("reply goes through the verb: message, audit row as the session, event; then status", async () => {
    const before = (await messages(ann.conversation)).length;
    const res = await post(olga, `/chat/${ann.conversation}/reply`, { body: "We ship worldwide.", status: "pending" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/chat/${ann.conversation}?done=replied#composer`);
    const m = await messages(ann.conversation);
    expect(m).toHaveLength(before + 1);
    expect(m.at(-1)).toMatchObject({ kind: "agent", body: "We ship worldwide.", user_id: w.users.olga });
    expect((await conv(ann.conversation))!.status).toBe("pending");
    const a = await row<{ credential_kind: string; user_id: number }>(
      w.s.deps,
      "SELECT credential_kind, user_id FROM audit_log WHERE action = 'chat.reply' ORDER BY id DESC LIMIT 1",
    );
    expect(a).toEqual({ credential_kind: "session", user_id: w.users.olga });
    const e = await row<{ data: string }>(
      w.s.deps,
      "SELECT data FROM events WHERE type = 'chat.message_created' ORDER BY id DESC LIMIT 1",
    );
    expect(JSON.stringify(e!.data)).toContain("We ship worldwide.");
    expect(await pageText(await (await olga.get(`/chat/${ann.conversation}?done=replied`)).text())).toContain(
      "Reply sent.",
    );
  });

  test("a canned response fills in the visitor's first name; note, assign, snooze, resolve and reopen", async () => {
    expect((await post(olga, `/chat/${bob.conversation}/reply`, { body: "", canned: "thanks" })).status).toBe(303);
    expect((await messages(bob.conversation)).at(-1)!.body).toBe("Thanks Bob, we are on it.");

    expect((await post(olga, `/chat/${bob.conversation}/note`, { body: "Check customs rules" })).status).toBe(303);
    expect((await messages(bob.conversation)).at(-1)).toMatchObject({ kind: "note", body: "Check customs rules" });

    expect((await post(olga, `/chat/${bob.conversation}/assign`, { assignee: String(w.users.ada) })).status).toBe(303);
    expect((await conv(bob.conversation))!.assignee_id).toBe(w.users.ada);
    expect((await post(olga, `/chat/${bob.conversation}/assign`, { assignee: "" })).status).toBe(303);
    expect((await conv(bob.conversation))!.assignee_id).toBeNull();

    expect((await post(olga, `/chat/${bob.conversation}/snooze`, { for: "60", until: "" })).status).toBe(303);
    let c = (await conv(bob.conversation))!;
    expect(c.status).toBe("snoozed");
    expect(new Date(c.snoozed_until as string | number).getTime()).toBe(w.s.clock.ms() + 3_600_000);
    const until = new Date(w.s.clock.ms() + 2 * 86_400_000).toISOString().slice(0, 16);
    expect(
      (await post(olga, `/chat/${bob.conversation}/snooze`, { for: "60", until: until.replace("T", " ") })).status,
    ).toBe(303);
    c = (await conv(bob.conversation))!;
    expect(new Date(c.snoozed_until as string | number).toISOString().slice(0, 16)).toBe(until);

    expect((await post(olga, `/chat/${bob.conversation}/status`, { status: "resolved" })).status).toBe(303);
    expect((await conv(bob.conversation))!.status).toBe("resolved");
    expect((await post(olga, `/chat/${bob.conversation}/status`, { status: "open" })).status).toBe(303);
    expect((await conv(bob.conversation))!.status).toBe("open");
    const actions = (
      await rows<{ action: string }>(
        w.s.deps,
        "SELECT action FROM audit_log WHERE entity_type = 'chat_conversation' AND entity_id = ? AND credential_kind = 'session' ORDER BY id",
        bob.conversation,
      )
    ).map((r) => r.action);
    // The first assign is beforeAll's.
    expect(actions).toEqual([
      "chat.assign",
      "chat.reply",
      "chat.note",
      "chat.assign",
      "chat.assign",
      "chat.status",
      "chat.status",
      "chat.status",
      "chat.status",
    ]);
  });

  test("bad input is shown beside the form, keeps what was typed, and writes nothing", async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ["reply", { body: "   ", canned: "" }, /Write a message or pick a canned response\./],
      ["reply", { body: "Typed text kept", canned: "thanks" }, /not both/],
      ["reply", { body: "x".repeat(8001) }, /at most 8000/],
      ["reply", { body: "", canned: "nope" }, /Canned response "nope" not found/],
      ["reply", { body: "hi", status: "deleted" }, /from the list/],
      ["note", { body: "" }, /Write the note first/],
      ["assign", { assignee: String(w.users.vic) }, /viewer .* cannot answer chats/],
      ["assign", { assignee: String(w.users.rita) }, /not a member of Acme/],
      ["assign", { assignee: "'; DROP TABLE users; --" }, /at most 20|from the list/],
      ["snooze", { for: "60", until: "2020-01-01 09:00" }, /in the future/],
      ["snooze", { for: "60", until: "tomorrow" }, /like 2026-03-02 09:00/],
      ["snooze", { for: "999" }, /from the list/],
      ["status", { status: "snoozed" }, /open, pending or resolved/],
    ];
    for (const [action, fields, message] of cases) {
      const writes = commits(w.s.deps);
      const res = await post(olga, `/chat/${ann.conversation}/${action}`, fields);
      const text = await pageText(await res.text());
      expect({ action, fields: Object.keys(fields), status: res.status }).toEqual({
        action,
        fields: Object.keys(fields),
        status: 400,
      });
      expect(text).toMatch(message);
      expect(commits(w.s.deps)).toBe(writes);
    }
    const res = await post(olga, `/chat/${ann.conversation}/reply`, { body: "Typed text kept", canned: "thanks" });
    expect(await res.text()).toContain("Typed text kept</textarea>");
  });
});

describe("priority, labels, transcript, long threads", () => {
  test("priority and labels are saved; a label a colleague added meanwhile stays; filters find them", async () => {
    expect(
      (
        await post(olga, `/chat/${bob.conversation}/update`, {
          priority: "high",
          labels: "Billing, vip, billing",
          was: "",
        })
      ).status,
    ).toBe(303);
    const labels = async () =>
      (
        await rows<{ label: string }>(
          w.s.deps,
          "SELECT l.label FROM chat_conversation_labels l JOIN chat_conversations c ON c.id = l.conversation_id WHERE c.number = ? AND c.company_id = ? ORDER BY l.label",
          bob.conversation,
          w.acme.id,
        )
      ).map((r) => r.label);
    expect(await labels()).toEqual(["billing", "vip"]);
    const form = (await readForms((await html(olga, `/chat/${bob.conversation}`)).html)).find((f) =>
      f.action.endsWith("/update"),
    )!;
    const shown = Object.fromEntries(form.fields.map((f) => [f.name, f.value]));
    expect([shown.priority, shown.labels, shown.was]).toEqual(["high", "billing, vip", "billing, vip"]);
    const { update } = await import("../../src/domains/chat/conversations");
    await update(w.as("ada"), { id: bob.conversation, addLabels: ["wholesale"] });
    expect((await post(olga, `/chat/${bob.conversation}/update`, { ...shown, labels: "billing" })).status).toBe(303);
    expect(await labels()).toEqual(["billing", "wholesale"]);
    const ids = async (q: string) =>
      [...(await html(olga, `/chat${q}`)).html.matchAll(/<tr id="c(\d+)"/g)].map((m) => Number(m[1]));
    expect(await ids("?label=wholesale&status=all")).toEqual([bob.conversation]);
    expect(await ids("?priority=high&status=all")).toEqual([bob.conversation]);
    expect(await ids("?priority=urgent&status=all")).toEqual([]);
    const writes = commits(w.s.deps);
    const bad = await post(olga, `/chat/${bob.conversation}/update`, {
      priority: "high",
      labels: "ok, not a label!",
      was: "billing, wholesale",
    });
    expect(bad.status).toBe(400);
    expect(await pageText(await bad.text())).toContain('"not a label!" is not a label');
    expect(
      (await post(olga, `/chat/${bob.conversation}/update`, { priority: "extreme", labels: "", was: "" })).status,
    ).toBe(400);
    expect(commits(w.s.deps)).toBe(writes);
  });

  test("the transcript is queued to the visitor's email (or another), never with notes; a bad address is refused", async () => {
    expect((await post(olga, `/chat/${ann.conversation}/transcript`, { to: "" })).status).toBe(303);
    const mail = await row<{ to: unknown; text: string }>(
      w.s.deps,
      "SELECT \"to\", text FROM mail_outbox WHERE tag = 'chat.transcript' ORDER BY id DESC LIMIT 1",
    );
    expect(jsonValue(mail!.to)).toEqual(["ann@example.test"]);
    expect(mail!.text).toContain("Hello!");
    expect(mail!.text).not.toContain("VIP customer");
    const writes = commits(w.s.deps);
    expect((await post(olga, `/chat/${ann.conversation}/transcript`, { to: "not-an-address" })).status).toBe(400);
    expect((await post(olga, `/chat/${bob.conversation}/transcript`, { to: "" })).status).toBe(400);
    expect(commits(w.s.deps)).toBe(writes);
  });

  test("a long thread shows its newest 50 live; older pages link back and do not follow", async () => {
    const talk = await w.visit("Message 1", { name: "Chatty Cathy" });
    for (let i = 2; i <= 55; i++) await w.visit(`Message ${i}`, { token: talk.token });
    const newest = (await html(olga, `/chat/${talk.conversation}`)).html;
    expect(newest.match(/<li class="msg visitor"/g)).toHaveLength(50);
    expect(newest).toContain('data-live="1"');
    expect(await pageText(newest)).toContain("Message 55");
    expect(await pageText(newest)).not.toMatch(/Message 5\b/);
    expect(newest).toContain(`href="/chat/${talk.conversation}?offset=0"`);
    const older = (await html(olga, `/chat/${talk.conversation}?offset=0`)).html;
    expect(older).toContain('data-live="0"');
    expect(await pageText(older)).toContain("Message 1");
    expect(await pageText(older)).toContain("Newest messages (live)");
  });
});

describe("who may do what", () => {
  test("a viewer reads the list and the transcript, gets no forms, and every post is refused", async () => {
    expect((await html(vic, "/chat")).status).toBe(200);
    const p = await html(vic, `/chat/${ann.conversation}`);
    expect(p.status).toBe(200);
    expect(await pageText(p.html)).toContain("owners and admins of Acme answer chats");
    expect((await readForms(p.html)).filter((f) => f.action.startsWith("/chat/"))).toEqual([]);
    for (const [action, fields] of [
      ["reply", { body: "viewer reply" }],
      ["note", { body: "viewer note" }],
      ["assign", { assignee: "me" }],
      ["snooze", { for: "60" }],
      ["status", { status: "resolved" }],
    ] as const) {
      const writes = commits(w.s.deps);
      const res = await post(vic, `/chat/${ann.conversation}/${action}`, fields);
      expect({ action, status: res.status }).toEqual({ action, status: 403 });
      expect(await pageText(await res.text())).toContain("role in Acme is viewer");
      expect(commits(w.s.deps)).toBe(writes);
    }
  });

  test("another company's conversation is 404 for pages, posts and streams; a number that exists nowhere too", async () => {
    const rita = await w.signIn("rita");
    // Rita's own conversation (her company's #1) is hers; Acme's numbers name Rival's conversations for her, or nothing.
    expect((await html(rita, `/chat/${rivalConv}`)).status).toBe(200);
    expect(await pageText((await html(rita, `/chat/${rivalConv}`)).html)).not.toContain("Hello!");
    expect((await html(rita, `/chat/${bob.conversation}`)).status).toBe(404);
    expect((await post(rita, `/chat/${bob.conversation}/reply`, { body: "not yours" })).status).toBe(404);
    expect((await rita.get(`/chat/${bob.conversation}/stream`)).status).toBe(404);
    expect((await html(olga, "/chat/999999")).status).toBe(404);
    expect((await html(olga, "/chat/99999999999999999999")).status).toBe(404);
    expect((await messages(bob.conversation)).map((m) => m.body)).not.toContain("not yours");
  });

  test("signed out, pages and streams send you to sign in", async () => {
    for (const path of ["/chat", `/chat/${ann.conversation}`, `/chat/${ann.conversation}/stream`, "/chat/live"]) {
      const res = await fetch(new URL(path, w.s.config.publicUrl), { redirect: "manual" });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toStartWith("/login?next=");
    }
  });

  test("cross-site posts and posts without the token are refused and change nothing", async () => {
    const token = await olga.csrf("/");
    const cases: [Record<string, string>, Record<string, string>][] = [
      [{ _csrf: token, body: "forged" }, { origin: "https://evil.example" }],
      [
        { _csrf: token, body: "forged" },
        { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      ],
      [{ body: "forged" }, {}],
      [{ _csrf: "0".repeat(64), body: "forged" }, {}],
    ];
    for (const [fields, headers] of cases) {
      const writes = commits(w.s.deps);
      const res = await olga.post(`/chat/${ann.conversation}/reply`, fields, headers);
      expect(res.status).toBe(403);
      expect(commits(w.s.deps)).toBe(writes);
    }
    expect((await messages(ann.conversation)).map((m) => m.body)).not.toContain("forged");
  });
});

describe("live", () => {
  test("a conversation's stream brings its new messages (notes too) and no other conversation's; resumes by id", async () => {
    const cookie = { cookie: olga.jar.header() };
    const open = (after?: number, headers: Record<string, string> = {}) =>
      fetch(
        new URL(
          `/chat/${ann.conversation}/stream${after === undefined ? "" : `?after=${after}`}`,
          w.s.config.publicUrl,
        ),
        { headers: { ...cookie, ...headers } },
      );
    const res = await open();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const got = readEvents(res, (m) => m.length >= 3);
    await Bun.sleep(100);
    await w.visit("Bob again, other conversation", { token: bob.token });
    const v = await w.visit(`Live from Ann ${XSS}`, { token: ann.token });
    await addNote(w.as("ada"), { id: ann.conversation, body: "Live note" });
    await reply(w.as("ada"), { id: ann.conversation, body: "Live reply" });
    const msgs = await got;
    expect(msgs.map((m) => [m.kind, m.body, m.internal])).toEqual([
      ["visitor", `Live from Ann ${XSS}`, false],
      ["note", "Live note", true],
      ["agent", "Live reply", false],
    ]);
    expect(msgs[0].conversationId).toBe(ann.conversation);
    // Reconnecting with Last-Event-ID (as EventSource does) sends what came after it, and only that.
    const again = await readEvents(await open(0, { "last-event-id": String(v.messageId) }), (m) => m.length >= 2);
    expect(again.map((m) => m.body)).toEqual(["Live note", "Live reply"]);
  });

  test("a viewer may follow the list's feed of the whole company; another company's messages never arrive", async () => {
    const cursor = Number(/data-after="(\d+)"/.exec((await html(vic, "/chat")).html)![1]);
    const res = await fetch(new URL(`/chat/live?after=${cursor}`, w.s.config.publicUrl), {
      headers: { cookie: vic.jar.header() },
    });
    expect(res.status).toBe(200);
    const got = readEvents(res, (m) => m.length >= 2);
    await Bun.sleep(100);
    await w.visit("Rival secret", { inbox: w.rivalInbox.id });
    await w.visit("Ann on the list", { token: ann.token });
    await setStatus(w.as("olga"), { id: bob.conversation, status: "pending" });
    await w.visit("Bob on the list", { token: bob.token });
    expect((await got).map((m) => m.body)).toEqual(["Ann on the list", "Bob on the list"]);
  });
});

describe("streams end and re-authorise", () => {
  test("a stream ends after its lifetime; reconnecting after removal from the company is refused", async () => {
    const { PORTAL_STREAM } = await import("../../src/domains/chat/portal");
    const { addMember, createUser, removeMember } = await import("../fixtures/accounts");
    const { PASSWORD } = await import("./portal-world");
    const u = await createUser(w.s.deps, { email: "temp@acme.test", name: "Temp", password: PASSWORD });
    await addMember(w.s.deps, w.acme.id, u.id, "viewer");
    const { Browser } = await import("../oauth/helpers");
    const temp = new Browser(w.s.config.publicUrl);
    expect((await temp.signIn("temp@acme.test", PASSWORD)).status).toBe(303);
    const saved = PORTAL_STREAM.maxLifetimeMs;
    PORTAL_STREAM.maxLifetimeMs = 600;
    try {
      const url = new URL(`/chat/${ann.conversation}/stream`, w.s.config.publicUrl);
      const res = await fetch(url, { headers: { cookie: temp.jar.header() } });
      expect(res.status).toBe(200);
      await removeMember(w.s.deps, w.acme.id, u.id);
      const started = performance.now();
      // Read to the end: the server closes the stream at its lifetime.
      expect(await res.text()).toContain(": connected");
      expect(performance.now() - started).toBeLessThan(3000);
      const again = await fetch(url, { headers: { cookie: temp.jar.header() }, redirect: "manual" });
      expect(again.status).toBe(404);
    } finally {
      PORTAL_STREAM.maxLifetimeMs = saved;
    }
  });
});

describe("notifications", () => {
  test("opening a chat notification about another company switches to it before showing the conversation", async () => {
    // Olga also helps Rival; Rita assigns Rival's conversation #1 to her. Acme has a #1 too: the switch is what keeps them apart.
    const { addMember } = await import("../fixtures/accounts");
    await addMember(w.s.deps, w.rival.id, w.users.olga, "admin");
    await assign(w.as("rita"), { id: rivalConv, assigneeId: w.users.olga });
    const n = await row<{ id: number; link: string }>(
      w.s.deps,
      "SELECT id, link FROM notifications WHERE user_id = ? AND company_id = ? ORDER BY id DESC LIMIT 1",
      w.users.olga,
      w.rival.id,
    );
    expect(n!.link).toBe(`/chat/${rivalConv}`);
    expect(await pageText((await html(olga, `/chat/${rivalConv}`)).html)).toContain("Hello!");
    const res = await post(olga, `/inbox/${n!.id}/open`, { back: "/inbox" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/chat/${rivalConv}`);
    const text = await pageText((await html(olga, `/chat/${rivalConv}`)).html);
    expect(text).toContain("Rival's visitor");
    expect(text).not.toContain("Hello!");
    expect((await post(olga, "/company", { company_id: String(w.acme.id), next: "/" })).status).toBe(303);
  });
});
