/**
 * Internal notes never reach the requester: no event payload (what reply
 * emails and webhooks are built from) carries a note's text, and every
 * read tool shows it only inside a message marked `internal: true`. The
 * read tools are taken from the domain itself, so a read tool added later
 * fails here until it is given arguments and checked too.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ticketsDomain } from "../../src/domains/tickets/tools";
import { makeTicketWorld, type TWorld } from "./world";

let w: TWorld;
const SECRET = "NOTE-SECRET-7f3a";
let ids: { a: number; b: number; c: number };

beforeAll(async () => {
  w = await makeTicketWorld();
  const mk = async (subject: string) =>
    (
      await w.call("tickets_create", {
        subject,
        requesterEmail: "kim@client.test",
        body: "public question",
        tags: ["vip"],
      })
    ).id;
  ids = { a: await mk("A"), b: await mk("B"), c: await mk("C") };
  await w.call("tickets_add_note", { id: ids.a, body: `Customer is on the legacy plan ${SECRET}` });
  await w.call("tickets_reply", { id: ids.a, body: "We are on it." });
  await w.call("tickets_add_note", { id: ids.b, body: `${SECRET} before merge` });
  await w.call("tickets_merge", { id: ids.b, targetId: ids.c });
  await w.call("tickets_add_note", { id: ids.c, body: `last word is a note ${SECRET}` }); // the newest message is a note
  await w.call("tickets_reply", { id: ids.c, body: "Solved for you.", status: "solved" });
  await w.call("tickets_add_requester_reply", { id: ids.c, body: "Thanks!" });
  w.clock.advance(10 * 24 * 3_600_000);
  const { checkBreaches } = await import("../jobs");
  await checkBreaches(w.deps);
});
afterAll(async () => await w.close());

/** Paths where SECRET appears outside a message marked internal. */
function leaks(value: unknown, path = "$", insideNote = false): string[] {
  if (typeof value === "string") return value.includes(SECRET) && !insideNote ? [path] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => leaks(v, `${path}[${i}]`, insideNote));
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    const note = insideNote || (o.internal === true && o.kind === "note");
    return Object.entries(o).flatMap(([k, v]) => leaks(v, `${path}.${k}`, note));
  }
  return [];
}

const READ_CALLS: Record<string, Record<string, unknown>[]> = {
  tickets_list: [
    {},
    { q: SECRET },
    { tag: "vip" },
    { breached: true },
    { sort: "due" },
    { requester: "kim@client.test" },
  ],
  tickets_get: [{ id: 0 }, { id: 1 }, { id: 2 }],
  ticket_messages_list: [
    { ticketId: 0 },
    { ticketId: 1 },
    { ticketId: 2 },
    { ticketId: 2, kind: "reply" },
    { ticketId: 2, kind: "note" },
  ],
  tickets_summary: [{}],
  ticket_tags_list: [{}],
  ticket_sla_policy_get: [{}],
  ticket_macros_list: [{}, { q: SECRET }],
  ticket_mailboxes_list: [{}],
  // Needs a connected mailbox (test/tickets/mailboxes.test.ts); it shows outcomes and ticket numbers, no message text.
  ticket_mailboxes_get: [],
  ticket_attachments_list: [{ ticketId: 0 }, { ticketId: 2 }],
  // Needs a file (test/tickets/attachments.test.ts); it shows a file's metadata and bytes, no message text.
  ticket_attachments_get: [],
  tickets_satisfaction_report: [{}],
};

test("every read tool shows note text only inside messages marked internal", async () => {
  const readTools = ticketsDomain.tools
    .filter((t) => t.readOnly)
    .map((t) => t.name)
    .sort();
  expect(readTools).toEqual(Object.keys(READ_CALLS).sort());
  const list = [ids.a, ids.b, ids.c];
  let sawNote = 0;
  for (const [tool, calls] of Object.entries(READ_CALLS))
    for (const raw of calls) {
      const args = Object.fromEntries(
        Object.entries(raw).map(([k, v]) => [k, k === "id" || k === "ticketId" ? list[v as number] : v]),
      );
      const out = await w.call(tool, args);
      expect(leaks(out)).toEqual([]);
      if (JSON.stringify(out).includes(SECRET)) sawNote++;
    }
  // The check is not vacuous: the notes are there, marked internal, where agents read threads.
  expect(sawNote).toBeGreaterThanOrEqual(4);
  const kinds = (await w.call("ticket_messages_list", { ticketId: ids.c, kind: "reply" })).items.map(
    (m: any) => m.kind,
  );
  expect(new Set(kinds)).toEqual(new Set(["reply"]));
  // Searching by a note's words finds the ticket without showing the words.
  expect((await w.call("tickets_list", { q: SECRET })).items.map((t: any) => t.id).sort()).toEqual([ids.a, ids.c]);
});

test("no event payload carries a note's text; note events carry the note's id only", async () => {
  const all = await w.events();
  expect(all.length).toBeGreaterThan(10);
  expect(all.filter((e) => JSON.stringify(e.data).includes(SECRET)).map((e) => e.type)).toEqual([]);
  const notes = all.filter((e) => e.type === "ticket.note_added");
  expect(notes.length).toBe(3);
  for (const n of notes)
    expect(Object.keys(n.data).sort()).toEqual(["assigneeUserId", "authorUserId", "messageId", "number", "subject"]);
  // What a reply email is built from is the public reply.
  expect((await w.events("ticket.replied")).map((e) => e.data.body)).toEqual(["We are on it.", "Solved for you."]);
});
