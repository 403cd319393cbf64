/**
 * The chat verbs on this run's engine: inboxes, visitors opening and
 * reopening conversations, replies and notes, assignment, labels, snooze
 * and its job, canned responses, search, transcripts; events and
 * notifications written with the change; tenancy and roles.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { commits, rows } from "../harness";
import { errorOf, makeChatWorld, type CWorld } from "./world";
import { reopenSnoozed } from "../jobs";
import { REOPEN_WINDOW_MS, visitorMessages, visitorByToken } from "../../src/domains/chat/visitor";
import { chatInboxes } from "../../src/domains/chat/tables";
import { eq } from "drizzle-orm";
import { availability } from "../../src/domains/chat/access";

let w: CWorld;
beforeEach(async () => {
  w = await makeChatWorld();
});
afterEach(async () => {
  await w.close();
});

describe("inboxes", () => {
  test("create returns the embed snippet and a random widget key; list, get, update, delete with its conversations", async () => {
    const created = await w.call("chat_inboxes_create", {
      siteId: w.site,
      name: "Support",
      allowedOrigins: ["https://acme.test/", "https://acme.test"],
    });
    expect(created.widgetKey).toMatch(/^ci_[0-9a-f]{24}$/);
    expect(created.embed).toBe(
      `<script src="${w.deps.config.publicUrl}/chat/widget.js" data-inbox="${created.widgetKey}" async></script>`,
    );
    expect(created.allowedOrigins).toEqual(["https://acme.test"]);
    expect(created.open).toBe(true);
    const list = await w.call("chat_inboxes_list", { siteId: w.site });
    expect(list.items.map((i: any) => i.name)).toEqual(["Website chat", "Support"]);
    expect(list.total).toBe(2);
    const up = await w.call("chat_inboxes_update", { id: created.id, greeting: "Hi there", enabled: false });
    expect(up).toMatchObject({ greeting: "Hi there", enabled: false });
    const e = await w.events("chat.inbox_updated");
    expect(e.at(-1)!.data.fields.sort()).toEqual(["enabled", "greeting"]);
    await w.visit("hello", { inbox: created.id });
    const got = await w.call("chat_inboxes_get", { id: created.id });
    expect(got.conversations).toEqual({ open: 1 });
    const del = await w.call("chat_inboxes_delete", { id: created.id });
    expect(del).toEqual({ id: created.id, status: "deleted", conversationsDeleted: 1 });
    expect(
      (await rows(w.deps, "SELECT count(*) AS n FROM chat_conversations WHERE inbox_id = ?", created.id))[0]!.n,
    ).toBe(0);
  });

  test("another company's site or inbox is not found; origins and hours are checked with clear errors", async () => {
    expect((await errorOf(() => w.call("chat_inboxes_create", { siteId: w.rivalSite, name: "X" }))).code).toBe(
      "not_found",
    );
    expect((await errorOf(() => w.call("chat_inboxes_get", { id: w.rivalInbox }))).message).toContain(
      "not found in Acme",
    );
    expect((await errorOf(() => w.call("chat_inboxes_delete", { id: w.rivalInbox }))).code).toBe("not_found");
    const bad = await errorOf(() =>
      w.call("chat_inboxes_create", { siteId: w.site, name: "X", allowedOrigins: ["https://acme.test/path"] }),
    );
    expect(bad.message).toContain("scheme and host only");
    const js = await errorOf(() =>
      w.call("chat_inboxes_create", { siteId: w.site, name: "X", allowedOrigins: ["javascript:alert(1)"] }),
    );
    expect(js.code).toBe("validation");
    const tz = await errorOf(() =>
      w.call("chat_inboxes_create", {
        siteId: w.site,
        name: "X",
        businessHours: { timeZone: "Mars/Base", hours: { mon: ["09:00-17:00"] } },
      }),
    );
    expect(tz.message).toContain("not an IANA time zone");
    const hours = await errorOf(() =>
      w.call("chat_inboxes_create", {
        siteId: w.site,
        name: "X",
        businessHours: { timeZone: "UTC", hours: { mon: ["17:00-09:00"] } },
      }),
    );
    expect(hours.message).toContain("ends before it starts");
    const day = await errorOf(() =>
      w.call("chat_inboxes_create", {
        siteId: w.site,
        name: "X",
        businessHours: { timeZone: "UTC", hours: { xyz: ["09:00-17:00"] } },
      }),
    );
    expect(day.message).toContain('"xyz" is not a day');
  });

  test("business hours: open inside, closed outside with the next opening (Europe/Berlin, hand-computed)", () => {
    const h = { timeZone: "Europe/Berlin", hours: { mon: ["09:00-17:00"] } };
    // Mon 2025-01-13 08:00 UTC = 09:00 Berlin: open at the exact instant.
    expect(availability(h, Date.parse("2025-01-13T08:00:00Z"))).toEqual({ open: true, opensAt: null });
    // 07:59 UTC = 08:59 Berlin: opens at 08:00 UTC.
    expect(availability(h, Date.parse("2025-01-13T07:59:00Z"))).toEqual({
      open: false,
      opensAt: "2025-01-13T08:00:00.000Z",
    });
    // 16:00 UTC = 17:00 Berlin: closed, next Monday 08:00 UTC.
    expect(availability(h, Date.parse("2025-01-13T16:00:00Z"))).toEqual({
      open: false,
      opensAt: "2025-01-20T08:00:00.000Z",
    });
    expect(availability(null, 0)).toEqual({ open: true, opensAt: null });
  });

  test("a viewer cannot write; a read-only credential cannot create", async () => {
    expect((await errorOf(() => w.call("chat_inboxes_create", { siteId: w.site, name: "X" }, w.ctx("vic")))).code).toBe(
      "forbidden",
    );
    expect(
      (
        await errorOf(() =>
          w.call("chat_inboxes_create", { siteId: w.site, name: "X" }, w.ctx("olga", { scopes: ["chat:read"] })),
        )
      ).code,
    ).toBe("forbidden");
    expect((await w.call("chat_inboxes_list", {}, w.ctx("vic"))).total).toBe(1);
  });
});

describe("visitors and conversations", () => {
  test("a first message makes the visitor, conversation #1, events and a notification to owners and admins, in one go", async () => {
    const v = await w.visit("Do you ship to Norway?", { name: "Nora Berg", email: "Nora@Example.com" });
    expect(v.token).toMatch(/^cv_[0-9a-f]{48}$/);
    expect(v.conversation).toBe(1);
    const stored = await rows(w.deps, "SELECT token_hash FROM chat_visitors");
    expect(stored[0]!.token_hash).not.toContain(v.token.slice(3));
    const types = (await w.events())
      .filter((e) => e.type.startsWith("chat.conversation_created") || e.type === "chat.message_created")
      .map((e) => e.type);
    expect(types).toEqual(["chat.conversation_created", "chat.message_created"]);
    const created = (await w.events("chat.conversation_created"))[0]!;
    expect(created.entityId).toBe(1);
    expect(created.data).toMatchObject({
      number: 1,
      visitorName: "Nora Berg",
      visitorEmail: "nora@example.com",
      body: "Do you ship to Norway?",
      assigneeUserId: null,
    });
    const notes = await rows(w.deps, "SELECT user_id, type, title FROM notifications ORDER BY user_id");
    expect(notes.map((n) => n.user_id)).toEqual([w.users.olga, w.users.ada]); // not the viewer
    expect(notes[0]!.title).toBe("Nora Berg started chat #1 on Website chat");
    const conv = await w.call("chat_conversations_get", { id: 1 });
    expect(conv).toMatchObject({
      id: 1,
      status: "open",
      priority: "none",
      visitor: { name: "Nora Berg", email: "nora@example.com" },
      waitingSince: "2025-01-15T12:00:00.000Z",
    });
    expect(conv.messages.items).toEqual([
      expect.objectContaining({ kind: "visitor", internal: false, body: "Do you ship to Norway?", user: null }),
    ]);
  });

  test("reply reaches the visitor's thread, a note never does; the reply answers waitingSince", async () => {
    const v = await w.visit("Hi");
    const r = await w.call("chat_conversations_reply", { id: 1, body: "Hello! How can we help?" }, w.ctx("ada"));
    expect(r).toMatchObject({ id: 1, status: "open" });
    const n = await w.call("chat_conversations_add_note", { id: 1, body: "SECRET: customer owes us money" });
    expect(n).toMatchObject({ internal: true });
    const inbox = (await w.deps.db.select().from(chatInboxes).where(eq(chatInboxes.id, w.inbox)))[0]!;
    const visitor = (await visitorByToken(w.deps, inbox, v.token))!;
    const seen = await visitorMessages(w.deps, visitor, 0);
    expect(seen.map((m) => [m.from, m.author, m.body])).toEqual([
      ["visitor", null, "Hi"],
      ["agent", "Ada", "Hello! How can we help?"],
    ]);
    expect(JSON.stringify(seen)).not.toContain("SECRET");
    const noteEvent = (await w.events("chat.note_added"))[0]!;
    expect(JSON.stringify(noteEvent.data)).not.toContain("SECRET");
    expect((await w.call("chat_conversations_get", { id: 1 })).waitingSince).toBeNull();
    const all = await w.call("chat_conversations_get", { id: 1 });
    expect(all.messages.items.map((m: any) => [m.kind, m.internal])).toEqual([
      ["visitor", false],
      ["agent", false],
      ["note", true],
    ]);
  });

  test("messages page: the newest page by default, previousOffset pages back", async () => {
    const v = await w.visit("m1");
    for (let i = 2; i <= 7; i++) await w.visit(`m${i}`, { token: v.token });
    const last = await w.call("chat_conversations_get", { id: 1, limit: 3 });
    expect(last.messages.items.map((m: any) => m.body)).toEqual(["m5", "m6", "m7"]);
    expect(last.messages).toMatchObject({ total: 7, offset: 4, previousOffset: 1, nextOffset: null });
    const prev = await w.call("chat_conversations_get", { id: 1, limit: 3, offset: 1 });
    expect(prev.messages.items.map((m: any) => m.body)).toEqual(["m2", "m3", "m4"]);
  });

  test("a visitor's message reopens pending, snoozed and recently resolved conversations; an old resolved one starts a new conversation", async () => {
    const v = await w.visit("first");
    await w.call("chat_conversations_set_status", { id: 1, status: "resolved" });
    await w.visit("again", { token: v.token });
    expect((await w.call("chat_conversations_get", { id: 1 })).status).toBe("open");
    const ev = (await w.events("chat.conversation_status_changed")).at(-1)!;
    expect(ev.data).toMatchObject({ from: "resolved", to: "open", reason: "visitor_message" });
    await w.call("chat_conversations_snooze", { id: 1, minutes: 60 });
    await w.visit("still there?", { token: v.token });
    expect((await w.call("chat_conversations_get", { id: 1 })).status).toBe("open");
    await w.call("chat_conversations_set_status", { id: 1, status: "resolved" });
    // At exactly 24 hours the window is still open: the message reopens this conversation.
    w.clock.advance(REOPEN_WINDOW_MS);
    expect((await w.visit("just in time", { token: v.token })).conversation).toBe(1);
    expect((await w.call("chat_conversations_get", { id: 1 })).status).toBe("open");
    await w.call("chat_conversations_set_status", { id: 1, status: "resolved" });
    // One millisecond past it, a new conversation.
    w.clock.advance(REOPEN_WINDOW_MS + 1);
    const later = await w.visit("new question", { token: v.token });
    expect(later.conversation).toBe(2);
    expect((await w.call("chat_conversations_get", { id: 1 })).status).toBe("resolved");
  });

  test("the assignee is notified of the visitor's new messages; assignment checks membership and role", async () => {
    const v = await w.visit("hello");
    const a = await w.call("chat_conversations_assign", { id: 1, assigneeId: "ada@acme.test" });
    expect(a).toMatchObject({ changed: true, assignee: { id: w.users.ada } });
    expect((await w.call("chat_conversations_assign", { id: 1, assigneeId: w.users.ada })).changed).toBe(false);
    expect(
      (await errorOf(() => w.call("chat_conversations_assign", { id: 1, assigneeId: w.users.rita }))).message,
    ).toContain("not a member of Acme");
    expect(
      (await errorOf(() => w.call("chat_conversations_assign", { id: 1, assigneeId: w.users.vic }))).message,
    ).toContain("is a viewer");
    await w.visit("are you there?", { token: v.token });
    const forAda = await rows(
      w.deps,
      "SELECT type, title FROM notifications WHERE user_id = ? ORDER BY id",
      w.users.ada,
    );
    expect(forAda.map((n) => n.type)).toEqual([
      "chat.conversation_created",
      "chat.conversation_assigned",
      "chat.message_created",
    ]);
    expect(forAda[2]!.title).toBe("A visitor wrote in chat #1");
    const assigned = (await w.events("chat.conversation_assigned"))[0]!;
    expect(assigned.data).toMatchObject({
      assigneeUserId: w.users.ada,
      previousAssigneeUserId: null,
      byUserId: w.users.olga,
    });
    expect((await w.call("chat_conversations_assign", { id: 1, assigneeId: null })).assignee).toBeNull();
  });

  test("priority and labels; list filters by status, assignee, label, priority, inbox; search by text, visitor and #number", async () => {
    await w.visit("Refund for order 1001 please", { name: "Rob Refund" });
    await w.visit("Is the café open on Sunday?", { email: "sunday@example.com" });
    await w.visit("third");
    const up = await w.call("chat_conversations_update", { id: 1, priority: "high", addLabels: ["Billing", "refund"] });
    expect(up).toEqual({ id: 1, priority: "high", labels: ["billing", "refund"], changed: ["priority", "labels"] });
    expect((await w.call("chat_conversations_update", { id: 1, removeLabels: ["refund"] })).labels).toEqual([
      "billing",
    ]);
    await w.call("chat_conversations_assign", { id: 2, assigneeId: "me" });
    await w.call("chat_conversations_set_status", { id: 3, status: "resolved" });
    const ids = async (args: Record<string, unknown>) =>
      (await w.call("chat_conversations_list", args)).items.map((c: any) => c.id);
    expect(await ids({})).toEqual([2, 1]);
    expect(await ids({ status: "all" })).toEqual([3, 2, 1]);
    expect(await ids({ status: "resolved" })).toEqual([3]);
    expect(await ids({ assigneeId: "me" })).toEqual([2]);
    expect(await ids({ assigneeId: "none" })).toEqual([1]);
    expect(await ids({ label: "billing" })).toEqual([1]);
    expect(await ids({ priority: "high" })).toEqual([1]);
    expect(await ids({ inboxId: w.inbox })).toEqual([2, 1]);
    expect(await ids({ q: "ORDER 1001" })).toEqual([1]);
    expect(await ids({ q: "sunday@" })).toEqual([2]);
    expect(await ids({ q: "rob" })).toEqual([1]);
    expect(await ids({ q: "#3" })).toEqual([3]);
    expect(await ids({ q: "100%" })).toEqual([]);
    expect(await ids({ q: "'; DROP TABLE chat_messages; --" })).toEqual([]);
    expect((await w.call("chat_conversations_list", { assigneeId: "nobody@nowhere.test" })).total).toBe(0);
  });

  test("snooze hides until the time; the job reopens exactly at it, once, and tells the assignee", async () => {
    await w.visit("call me tomorrow");
    await w.call("chat_conversations_assign", { id: 1, assigneeId: w.users.ada });
    const s = await w.call("chat_conversations_snooze", { id: 1, until: "2025-01-16T09:00:00Z" });
    expect(s).toEqual({ id: 1, status: "snoozed", snoozedUntil: "2025-01-16T09:00:00.000Z" });
    expect((await w.call("chat_conversations_list", {})).total).toBe(0);
    w.clock.set(Date.parse("2025-01-16T08:59:59.999Z"));
    expect(await reopenSnoozed(w.deps)).toBe(0);
    w.clock.set(Date.parse("2025-01-16T09:00:00Z"));
    expect(await reopenSnoozed(w.deps)).toBe(1);
    expect(await reopenSnoozed(w.deps)).toBe(0);
    const c = await w.call("chat_conversations_get", { id: 1 });
    expect(c).toMatchObject({ status: "open", snoozedUntil: null });
    const ev = (await w.events("chat.conversation_status_changed")).at(-1)!;
    expect(ev.data).toMatchObject({ from: "snoozed", to: "open", reason: "snooze_ended" });
    const n = await rows(
      w.deps,
      "SELECT type FROM notifications WHERE user_id = ? AND type = 'chat.snooze_ended'",
      w.users.ada,
    );
    expect(n.length).toBe(1);
  });

  test("snooze refuses the past, both or neither of until/minutes, more than 90 days, and resolved conversations", async () => {
    await w.visit("x");
    expect(
      (await errorOf(() => w.call("chat_conversations_snooze", { id: 1, until: "2025-01-15T11:59:59Z" }))).message,
    ).toContain("in the future");
    expect(
      (await errorOf(() => w.call("chat_conversations_snooze", { id: 1, until: "2025-01-15T12:00:00Z" }))).message,
    ).toContain("in the future");
    expect((await errorOf(() => w.call("chat_conversations_snooze", { id: 1 }))).message).toContain("either until");
    expect(
      (await errorOf(() => w.call("chat_conversations_snooze", { id: 1, minutes: 5, until: "2026-01-01T00:00:00Z" })))
        .message,
    ).toContain("either until");
    expect(
      (await errorOf(() => w.call("chat_conversations_snooze", { id: 1, until: "2025-05-01T00:00:00Z" }))).message,
    ).toContain("90 days");
    await w.call("chat_conversations_set_status", { id: 1, status: "resolved" });
    expect((await errorOf(() => w.call("chat_conversations_snooze", { id: 1, minutes: 5 }))).code).toBe("conflict");
  });

  test("another company's conversation is not found for every tool; a viewer reads but cannot reply", async () => {
    await w.visit("rival visitor", { inbox: w.rivalInbox });
    for (const [name, args] of [
      ["chat_conversations_get", { id: 1 }],
      ["chat_conversations_reply", { id: 1, body: "x" }],
      ["chat_conversations_add_note", { id: 1, body: "x" }],
      ["chat_conversations_assign", { id: 1, assigneeId: null }],
      ["chat_conversations_snooze", { id: 1, minutes: 5 }],
      ["chat_conversations_set_status", { id: 1, status: "resolved" }],
      ["chat_conversations_send_transcript", { id: 1, to: "a@b.test" }],
    ] as const)
      expect((await errorOf(() => w.call(name, args))).code).toBe("not_found");
    expect((await w.call("chat_conversations_list", { status: "all" })).total).toBe(0);
    await w.visit("acme visitor");
    expect((await w.call("chat_conversations_get", { id: 1 }, w.ctx("vic"))).id).toBe(1);
    expect((await errorOf(() => w.call("chat_conversations_reply", { id: 1, body: "x" }, w.ctx("vic")))).code).toBe(
      "forbidden",
    );
  });

  test("a refused call writes nothing: no message, no event, no commit", async () => {
    await w.visit("hello");
    const before = { commits: commits(w.deps), events: (await w.events()).length };
    expect((await errorOf(() => w.call("chat_conversations_reply", { id: 1, cannedId: "missing" }))).code).toBe(
      "not_found",
    );
    expect((await errorOf(() => w.call("chat_conversations_assign", { id: 1, assigneeId: w.users.rita }))).code).toBe(
      "validation",
    );
    expect(
      (await errorOf(() => w.call("chat_conversations_snooze", { id: 1, until: "2000-01-01T00:00:00Z" }))).code,
    ).toBe("validation");
    expect(commits(w.deps)).toBe(before.commits);
    expect((await w.events()).length).toBe(before.events);
    expect((await w.call("chat_conversations_get", { id: 1 })).messages.total).toBe(1);
  });

  test("hostile input is stored as text and limits hold", async () => {
    const v = await w.visit('<script>alert("x")</script>');
    expect((await w.call("chat_conversations_get", { id: 1 })).messages.items[0].body).toBe(
      '<script>alert("x")</script>',
    );
    expect((await errorOf(() => w.visit("   "))).code).toBe("validation");
    expect((await errorOf(() => w.visit("x".repeat(4001), { token: v.token }))).message).toContain("at most 4000");
    expect((await errorOf(() => w.visit("a\u0000b", { token: v.token }))).code).toBe("validation");
    expect((await errorOf(() => w.visit("hi", { email: "not-an-email" }))).message).toContain("email");
    expect((await errorOf(() => w.call("chat_conversations_reply", { id: 1, body: "x".repeat(8001) }))).code).toBe(
      "validation",
    );
    expect((await errorOf(() => w.call("chat_conversations_reply", { id: 1 }))).message).toContain(
      "either body or cannedId",
    );
    expect((await errorOf(() => w.call("chat_conversations_get", { id: 1e300 }))).code).toBe("validation");
    expect((await errorOf(() => w.call("chat_conversations_get", { id: "1" }))).code).toBe("validation");
  });
});

describe("canned responses", () => {
  test("CRUD; short codes unique per company; a reply by short code fills {{name}}", async () => {
    const c = await w.call("chat_canned_responses_create", {
      shortCode: "Hours",
      content: "Hi {{name}}, we are open 9-17.",
    });
    expect(c).toMatchObject({ shortCode: "hours" });
    expect(
      (await errorOf(() => w.call("chat_canned_responses_create", { shortCode: "hours", content: "dup" }))).code,
    ).toBe("conflict");
    await w.call("chat_canned_responses_create", { shortCode: "hours", content: "theirs" }, w.ctx("rita"));
    await w.visit("when are you open?", { name: "Nora Berg" });
    const r = await w.call("chat_conversations_reply", { id: 1, cannedId: "hours" });
    expect(r.body).toBe("Hi Nora, we are open 9-17.");
    const r2 = await w.call("chat_conversations_reply", { id: 1, cannedId: c.id });
    expect(r2.body).toBe("Hi Nora, we are open 9-17.");
    expect((await errorOf(() => w.call("chat_conversations_reply", { id: 1, cannedId: "nope" }))).code).toBe(
      "not_found",
    );
    const up = await w.call("chat_canned_responses_update", { id: c.id, content: "We open at 9." });
    expect(up.content).toBe("We open at 9.");
    expect((await w.call("chat_canned_responses_list", { q: "open at" })).items.map((x: any) => x.id)).toEqual([c.id]);
    expect(await w.call("chat_canned_responses_delete", { id: c.id })).toEqual({ id: c.id, status: "deleted" });
    expect((await w.call("chat_canned_responses_list", {})).total).toBe(0);
    expect((await w.events("chat.canned_response_updated"))[0]!.data).toEqual({
      shortCode: "hours",
      fields: ["content"],
    });
  });
});

describe("transcripts", () => {
  test("queued to the visitor's email with replies and never notes; no email: a clear error", async () => {
    await w.visit("Need help <b>now</b>", { email: "nora@example.com", name: "Nora" });
    await w.call("chat_conversations_reply", { id: 1, body: "On it." });
    await w.call("chat_conversations_add_note", { id: 1, body: "INTERNAL-ONLY" });
    const t = await w.call("chat_conversations_send_transcript", { id: 1 });
    expect(t).toEqual({ id: 1, to: "nora@example.com", messages: 2, queued: true });
    const mail = (await rows(w.deps, "SELECT * FROM mail_outbox WHERE tag = 'chat.transcript'"))[0]!;
    expect(mail.subject).toBe("Your chat with Acme Coffee (#1)");
    expect(mail.text).toContain("Need help <b>now</b>");
    expect(mail.text).toContain("Olga Owner:\nOn it.");
    expect(mail.html).toContain("Need help &lt;b&gt;now&lt;/b&gt;");
    expect(mail.text + mail.html).not.toContain("INTERNAL-ONLY");
    expect((await w.events("chat.transcript_sent"))[0]!.data).toMatchObject({
      to: "nora@example.com",
      messages: 2,
      requestedBy: "agent",
    });
    await w.visit("anonymous");
    expect((await errorOf(() => w.call("chat_conversations_send_transcript", { id: 2 }))).message).toContain(
      "left no email",
    );
    expect((await w.call("chat_conversations_send_transcript", { id: 2, to: "boss@acme.test" })).to).toBe(
      "boss@acme.test",
    );
  });
});

describe("concurrency", () => {
  test("racing first messages from many visitors get distinct conversation numbers", async () => {
    const n = 12;
    const out = await Promise.all(Array.from({ length: n }, (_, i) => w.visit(`visitor ${i}`)));
    expect(out.map((o) => o.conversation).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  });

  test("racing messages from one visitor land in one conversation", async () => {
    const v = await w.visit("start");
    await w.call("chat_conversations_set_status", { id: 1, status: "resolved" });
    const out = await Promise.all(Array.from({ length: 8 }, (_, i) => w.visit(`burst ${i}`, { token: v.token })));
    expect(new Set(out.map((o) => o.conversation))).toEqual(new Set([1]));
    expect((await w.call("chat_conversations_get", { id: 1 })).messages.total).toBe(9);
    // One reopening, not eight.
    expect(
      (await w.events("chat.conversation_status_changed")).filter((e) => e.data.reason === "visitor_message").length,
    ).toBe(1);
  });

  test("racing replies: one to each of 16 conversations, 10 on one, and a resolve among them all land, ordered, none lost", async () => {
    for (let i = 0; i < 16; i++) await w.visit(`hello ${i}`);
    const calls: Promise<any>[] = [];
    for (let i = 1; i <= 16; i++) calls.push(w.call("chat_conversations_reply", { id: i, body: `answer ${i}` }));
    for (let k = 0; k < 10; k++) calls.push(w.call("chat_conversations_reply", { id: 1, body: `more ${k}` }));
    calls.push(w.call("chat_conversations_set_status", { id: 2, status: "resolved" }));
    const out = await Promise.all(calls);
    const replies = out.slice(0, 26);
    // Unique message ids, each reply in its own conversation.
    expect(new Set(replies.map((r) => r.messageId)).size).toBe(26);
    const one = await w.call("chat_conversations_get", { id: 1, limit: 50 });
    expect(one.messages.total).toBe(12);
    const ids = one.messages.items.map((m: any) => m.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => a - b));
    expect(
      one.messages.items
        .filter((m: any) => m.kind === "agent")
        .map((m: any) => m.body)
        .sort(),
    ).toEqual(["answer 1", ...Array.from({ length: 10 }, (_, k) => `more ${k}`)].sort());
    for (let i = 2; i <= 16; i++) expect((await w.call("chat_conversations_get", { id: i })).messages.total).toBe(2);
    // The resolve and the reply to #2 took turns on its row: it ends resolved whichever came first.
    expect((await w.call("chat_conversations_get", { id: 2 })).status).toBe("resolved");
    // One event and one audit row per reply, naming its message.
    const created = (await w.events("chat.message_created")).filter((e) => e.data.author === "agent");
    expect(created.map((e) => e.data.messageId).sort((a: number, b: number) => a - b)).toEqual(
      replies.map((r) => r.messageId).sort((a, b) => a - b),
    );
    expect((await rows(w.deps, "SELECT count(*) AS n FROM audit_log WHERE action = 'chat.reply'"))[0]!.n).toBe(26);
    // No reply was left out of lastAgentMessageAt, no visitor waits.
    for (const c of (await w.call("chat_conversations_list", { status: "all", limit: 50 })).items)
      expect(c.waitingSince).toBeNull();
  });

  test("racing creates of one short code: one wins, the others are a conflict", async () => {
    const r = await Promise.allSettled(
      Array.from({ length: 6 }, () => w.call("chat_canned_responses_create", { shortCode: "race", content: "x" })),
    );
    expect(r.filter((x) => x.status === "fulfilled").length).toBe(1);
    for (const x of r) if (x.status === "rejected") expect((x.reason as any).code).toBe("conflict");
  });
});
