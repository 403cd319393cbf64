/**
 * Merging: what moves (replies and notes, staying what they were), what the
 * source becomes (closed, pointing at the target), pointers kept one hop,
 * a requester writing to a merged ticket, a waiting target reopened by a
 * merged-in unanswered customer message, and every refusal.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTicketWorld, errorOf, type TWorld } from "./world";

let w: TWorld;
beforeAll(async () => {
  w = await makeTicketWorld();
});
afterAll(async () => await w.close());

const create = async (subject: string, email = "kim@client.test", extra: Record<string, unknown> = {}) =>
  (await w.call("tickets_create", { subject, requesterEmail: email, body: `${subject}: first message`, ...extra }))
    .id as number;

describe("merge", () => {
  test("messages and tags move, notes stay internal, the source closes and points at the target", async () => {
    const a = await create("Login fails", "kim@client.test", { tags: ["login"] });
    const b = await create("Can't sign in", "kim@client.test", { tags: ["auth"] });
    await w.call("tickets_reply", { id: a, body: "Which browser?" });
    await w.call("tickets_add_note", { id: a, body: "Probably the SSO bug." });
    w.clock.advance(60_000);
    const r = await w.call("tickets_merge", { id: `#${a}`, targetId: b });
    expect(r).toEqual({ id: a, status: "closed", mergedIntoId: b, movedMessages: 3 });

    const src = await w.call("tickets_get", { id: a });
    expect(src).toMatchObject({ status: "closed", mergedIntoId: b, messagesTotal: 0, messages: [] });
    expect((await w.call("ticket_messages_list", { ticketId: a })).note).toContain(`merged into #${b}`);

    const dst = await w.call("tickets_get", { id: b });
    expect(dst.mergedTicketIds).toEqual([a]);
    expect(dst.tags).toEqual(["auth", "login"]);
    const moved = dst.messages.filter((m: any) => m.mergedFromId === a);
    expect(moved.map((m: any) => [m.kind, m.internal, m.body])).toEqual([
      ["reply", false, "Login fails: first message"],
      ["reply", false, "Which browser?"],
      ["note", true, "Probably the SSO bug."],
    ]);
    const system = dst.messages.at(-1);
    expect(system).toMatchObject({ kind: "note", internal: true, author: "system" });
    expect(system.body).toContain(`Ticket #${a} ("Login fails", from kim@client.test) was merged into this ticket`);

    expect((await w.events("ticket.merged")).at(-1)!.data).toMatchObject({
      number: a,
      targetNumber: b,
      movedMessages: 3,
      requesterEmail: "kim@client.test",
    });
    expect((await w.events("ticket.status_changed")).at(-1)!.data).toMatchObject({
      number: a,
      from: "open",
      to: "closed",
      reason: "merge",
    }); // the reply had opened it;
    expect((await w.call("tickets_get", { id: a })).sla.resolution.state).toBe("stopped");
  });

  test("a requester writing to the merged ticket lands on the target", async () => {
    const a = await create("Dup 1");
    const b = await create("Dup 2");
    await w.call("tickets_merge", { id: a, targetId: b });
    const r = await w.call("tickets_add_requester_reply", { id: a, body: "Hello again" });
    expect(r).toMatchObject({ id: b, note: `Ticket #${a} was merged into #${b}; the message was added there.` });
    expect((await w.call("tickets_get", { id: b })).messages.at(-1)).toMatchObject({
      author: "requester",
      body: "Hello again",
    });
  });

  test("tickets merged into the source are repointed at the target (one hop)", async () => {
    const c = await create("C");
    const a = await create("A");
    const b = await create("B");
    await w.call("tickets_merge", { id: c, targetId: a });
    await w.call("tickets_merge", { id: a, targetId: b });
    expect((await w.call("tickets_get", { id: c })).mergedIntoId).toBe(b);
    expect((await w.call("tickets_get", { id: b })).mergedTicketIds).toEqual([c, a]);
    const moved = (await w.call("tickets_get", { id: b })).messages.filter((m: any) => m.mergedFromId === c);
    expect(moved.length).toBeGreaterThan(0); // C's messages kept their origin through two merges
  });

  test("an unanswered customer message merged in reopens a pending target, and its resolution clock runs", async () => {
    const b = await create("Invoice wrong");
    await w.call("tickets_reply", { id: b, body: "Could you send the invoice number?", status: "pending" });
    expect((await w.call("tickets_get", { id: b })).sla.resolution.state).toBe("paused");
    w.clock.advance(3_600_000);
    const a = await create("Invoice (again)"); // the customer wrote again, on a new thread
    w.clock.advance(60_000);
    const r = await w.call("tickets_merge", { id: a, targetId: b });
    expect(r).toMatchObject({ id: a, status: "closed", mergedIntoId: b, targetStatus: "open" });
    const dst = await w.call("tickets_get", { id: b });
    expect(dst.status).toBe("open");
    expect(dst.sla.resolution.state).toBe("running");
    expect(dst.sla.resolution.dueAt).not.toBeNull();
    const changes = (await w.events("ticket.status_changed")).slice(-2).map((e) => e.data);
    expect(changes).toMatchObject([
      { number: b, from: "pending", to: "open", reason: "merge" },
      { number: a, to: "closed", reason: "merge" },
    ]);
  });

  test("a solved target reopens too; a merged-in message already answered leaves the target as it was", async () => {
    const solved = await create("Export broken");
    await w.call("tickets_set_status", { id: solved, status: "solved" });
    w.clock.advance(60_000);
    const dup = await create("Export still broken");
    expect(await w.call("tickets_merge", { id: dup, targetId: solved })).toMatchObject({ targetStatus: "open" });
    expect((await w.call("tickets_get", { id: solved })).status).toBe("open");

    // Answered on the source itself: the agent's reply moves along and is the newest.
    const waiting = await create("Password reset");
    await w.call("tickets_reply", { id: waiting, body: "Reset link sent.", status: "pending" });
    const answered = await create("Reset mail missing");
    w.clock.advance(60_000);
    await w.call("tickets_reply", { id: answered, body: "Check spam, please." });
    const r = await w.call("tickets_merge", { id: answered, targetId: waiting });
    expect(r.targetStatus).toBeUndefined();
    const kept = await w.call("tickets_get", { id: waiting });
    expect([kept.status, kept.sla.resolution.state]).toEqual(["pending", "paused"]);

    // Older than the target's last agent reply: already answered there.
    const old = await create("Old duplicate");
    w.clock.advance(60_000);
    const later = await create("Newer thread");
    w.clock.advance(60_000);
    await w.call("tickets_reply", { id: later, body: "Answered both.", status: "pending" });
    await w.call("tickets_merge", { id: old, targetId: later });
    expect((await w.call("tickets_get", { id: later })).status).toBe("pending");
  });

  test("different requesters: allowed, with a warning", async () => {
    const a = await create("From Lee", "lee@other.test");
    const b = await create("From Kim");
    const r = await w.call("tickets_merge", { id: a, targetId: b });
    expect(r.warnings).toEqual([`The requesters differ: replies on #${b} go to kim@client.test, not lee@other.test.`]);
  });

  test("refusals: itself, already merged, into a merged ticket, closed either side, another company's ticket", async () => {
    const a = await create("A");
    const b = await create("B");
    const c = await create("C");
    expect((await errorOf(() => w.call("tickets_merge", { id: a, targetId: a }))).message).toContain(
      "cannot be merged into itself",
    );
    await w.call("tickets_merge", { id: a, targetId: b });
    expect((await errorOf(() => w.call("tickets_merge", { id: a, targetId: c }))).message).toBe(
      `Ticket #${a} was already merged into #${b}.`,
    );
    const into = await errorOf(() => w.call("tickets_merge", { id: c, targetId: a }));
    expect(into).toMatchObject({
      code: "conflict",
      message: `Ticket #${a} was itself merged into #${b}; merge into #${b} instead.`,
    });
    const closed = await create("Closed");
    await w.call("tickets_set_status", { id: closed, status: "solved" });
    await w.call("tickets_set_status", { id: closed, status: "closed" });
    expect((await errorOf(() => w.call("tickets_merge", { id: closed, targetId: c }))).message).toContain(
      "closed tickets are final",
    );
    expect((await errorOf(() => w.call("tickets_merge", { id: c, targetId: closed }))).message).toContain(
      "merge into an open ticket",
    );

    // Rival's tickets have numbers of their own, overlapping Acme's: never reachable from Acme.
    const rival = w.ctx("rita");
    const theirs = (
      await w.call("tickets_create", { subject: "Rival's", requesterEmail: "x@rival.test", body: "secret" }, rival)
    ).id;
    expect(theirs).toBe(1001);
    const highest = (await w.call("tickets_list", { limit: 1, sort: "created" })).items[0].id;
    const foreign = await w.call(
      "tickets_create",
      { subject: "pad", requesterEmail: "x@rival.test", body: "x" },
      rival,
    );
    for (let i = 0; i < highest - foreign.id + 1; i++)
      await w.call("tickets_create", { subject: "pad", requesterEmail: "x@rival.test", body: "x" }, rival);
    const onlyRival = highest + 1; // exists in Rival only
    const e = await errorOf(() => w.call("tickets_merge", { id: c, targetId: onlyRival }));
    expect(e).toMatchObject({
      code: "not_found",
      message: `Ticket #${onlyRival} not found in Acme. Find tickets with tickets_list.`,
    });
    expect((await w.call("tickets_get", { id: 1001 }, rival)).subject).toBe("Rival's");
  });

  test("a ticket other tickets were merged into cannot be deleted; others can", async () => {
    const a = await create("A");
    const b = await create("B");
    await w.call("tickets_merge", { id: a, targetId: b });
    const e = await errorOf(() => w.call("tickets_delete", { id: b }));
    expect(e.message).toContain(`merged tickets #${a}`);
    const d = await create("Spam");
    expect(await w.call("tickets_delete", { id: d })).toEqual({ id: d, status: "deleted" });
    expect((await errorOf(() => w.call("tickets_get", { id: d }))).code).toBe("not_found");
    expect((await w.events("ticket.deleted")).at(-1)!.data).toMatchObject({ number: d, subject: "Spam" });
  });

  test("A into B and B into A at once: exactly one merge happens", async () => {
    const a = await create("Race A");
    const b = await create("Race B");
    const results = await Promise.allSettled([
      w.call("tickets_merge", { id: a, targetId: b }),
      w.call("tickets_merge", { id: b, targetId: a }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled").length).toBe(1);
    const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(rejected.reason.code).toBe("conflict");
    const [ta, tb] = [await w.call("tickets_get", { id: a }), await w.call("tickets_get", { id: b })];
    expect([ta.status, tb.status].sort()).toEqual(["closed", "new"]);
    expect(ta.messagesTotal + tb.messagesTotal).toBe(3); // two first messages + one system note
  });
});
