/**
 * Statuses: the whole transitions matrix (expected values written out here,
 * not read from the code), the implicit moves (reply opens a new ticket,
 * assigning opens it, a requester reopens pending and solved, a closed
 * ticket gets a follow-up), and what a closed ticket refuses.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeTicketWorld, errorOf, type TWorld } from "./world";

let w: TWorld;
beforeAll(async () => {
  w = await makeTicketWorld();
});
afterAll(async () => await w.close());

const STATUSES = ["new", "open", "pending", "solved", "closed"] as const;
type S = (typeof STATUSES)[number];
/** The documented table (docs/tickets.md). */
const ALLOWED: Record<S, S[]> = {
  new: ["open", "pending", "solved"],
  open: ["pending", "solved"],
  pending: ["open", "solved"],
  solved: ["open", "closed"],
  closed: [],
};
/** How to reach each status from new. */
const PATH: Record<S, S[]> = {
  new: [],
  open: ["open"],
  pending: ["pending"],
  solved: ["solved"],
  closed: ["solved", "closed"],
};

async function ticketIn(status: S): Promise<number> {
  const t = await w.call("tickets_create", {
    subject: `In ${status}`,
    requesterEmail: "kim@client.test",
    body: "hello",
  });
  for (const s of PATH[status]) await w.call("tickets_set_status", { id: t.id, status: s });
  expect((await w.call("tickets_get", { id: t.id })).status).toBe(status);
  return t.id;
}

describe("transitions matrix", () => {
  for (const from of STATUSES)
    for (const to of STATUSES)
      test(`${from} → ${to}`, async () => {
        const id = await ticketIn(from);
        if (from === to) {
          expect(await w.call("tickets_set_status", { id, status: to })).toMatchObject({
            id,
            status: to,
            unchanged: true,
          });
        } else if (ALLOWED[from].includes(to)) {
          expect(await w.call("tickets_set_status", { id, status: to })).toEqual({
            id,
            status: to,
            previousStatus: from,
          });
          const ev = (await w.events("ticket.status_changed")).at(-1)!;
          expect(ev.data).toMatchObject({ number: id, from, to, reason: "agent", requesterEmail: "kim@client.test" });
        } else {
          const e = await errorOf(() => w.call("tickets_set_status", { id, status: to }));
          expect(e.code).toBe("conflict");
          if (from === "closed") expect(e.message).toContain("closed tickets are final");
          else
            expect(e.message).toBe(
              `Ticket #${id} cannot go from ${from} to ${to}; from ${from} it can go to ${ALLOWED[from].join(" or ")}.`,
            );
          expect((await w.call("tickets_get", { id })).status).toBe(from);
        }
      });
});

describe("implicit moves", () => {
  test("a public reply opens a new ticket; a reply can set pending in the same call", async () => {
    const id = await ticketIn("new");
    expect(await w.call("tickets_reply", { id, body: "Looking into it." })).toMatchObject({
      status: "open",
      firstResponse: true,
    });
    expect(await w.call("tickets_reply", { id, body: "Can you send a screenshot?", status: "pending" })).toMatchObject({
      status: "pending",
      firstResponse: false,
    });
  });

  test("a reply asking for a status the table refuses writes nothing", async () => {
    const id = await ticketIn("solved");
    const before = (await w.call("ticket_messages_list", { ticketId: id })).total;
    const e = await errorOf(() => w.call("tickets_reply", { id, body: "bye", status: "pending" }));
    expect(e.message).toContain("cannot go from solved to pending");
    expect((await errorOf(() => w.call("tickets_reply", { id, body: "bye", status: "closed" }))).message).toContain(
      "status after a reply is open, pending or solved",
    );
    expect((await w.call("ticket_messages_list", { ticketId: id })).total).toBe(before);
  });

  test("assigning a new ticket opens it; unassigning leaves it open", async () => {
    const id = await ticketIn("new");
    expect(await w.call("tickets_assign", { id, assigneeId: "me" })).toEqual({
      id,
      status: "open",
      assigneeId: w.users.olga,
      previousAssigneeId: null,
    });
    expect(await w.call("tickets_assign", { id, assigneeId: null })).toMatchObject({
      status: "open",
      assigneeId: null,
    });
  });

  test("a requester reply reopens pending and solved, leaves new and open", async () => {
    for (const [from, to, reopened] of [
      ["new", "new", false],
      ["open", "open", false],
      ["pending", "open", true],
      ["solved", "open", true],
    ] as const) {
      const id = await ticketIn(from);
      expect(await w.call("tickets_add_requester_reply", { id, body: "Any news?" })).toMatchObject({
        id,
        status: to,
        reopened,
      });
    }
    const ev = (await w.events("ticket.status_changed")).at(-1)!;
    expect(ev.data).toMatchObject({ from: "solved", to: "open", reason: "requester_reply" });
  });

  test("a requester writing to a closed ticket gets a follow-up ticket; the closed one stays closed", async () => {
    const id = await ticketIn("closed");
    await w.call("tickets_update", { id: await ticketIn("open"), addTags: ["x"] }); // unrelated noise
    const r = await w.call("tickets_add_requester_reply", { id, body: "It broke again." });
    expect(r.followUpOfId).toBe(id);
    expect(r.id).not.toBe(id);
    expect(r.status).toBe("new");
    expect((await w.call("tickets_get", { id })).status).toBe("closed");
    const fu = await w.call("tickets_get", { id: r.id });
    expect(fu).toMatchObject({ subject: "In closed", followUpOfId: id, requester: { email: "kim@client.test" } });
    expect(fu.messages.map((m: any) => [m.author, m.body])).toEqual([["requester", "It broke again."]]);
    expect((await w.events("ticket.created")).at(-1)!.data).toMatchObject({
      number: r.id,
      followUpOf: id,
      body: "It broke again.",
    });
  });

  test("a closed ticket refuses replies, notes, assignment and edits", async () => {
    const id = await ticketIn("closed");
    for (const [tool, args] of [
      ["tickets_reply", { id, body: "x" }],
      ["tickets_add_note", { id, body: "x" }],
      ["tickets_assign", { id, assigneeId: "me" }],
      ["tickets_update", { id, subject: "x" }],
    ] as const) {
      const e = await errorOf(() => w.call(tool, args));
      expect(e.code).toBe("conflict");
      expect(e.message).toContain("closed");
    }
  });
});

describe("assignees", () => {
  test("owners and admins of the company, by id, email or me; viewers and outsiders refused", async () => {
    const id = await ticketIn("new");
    expect((await w.call("tickets_assign", { id, assigneeId: "ADA@acme.test" })).assigneeId).toBe(w.users.ada);
    expect((await w.call("tickets_assign", { id, assigneeId: w.users.olga })).assigneeId).toBe(w.users.olga);
    const viewer = await errorOf(() => w.call("tickets_assign", { id, assigneeId: w.users.vic }));
    expect(viewer.message).toContain("is a viewer of Acme");
    const outsider = await errorOf(() => w.call("tickets_assign", { id, assigneeId: w.users.rita }));
    expect(outsider.message).toContain("is not a member of Acme");
    expect(outsider.message).not.toContain("Rita");
    const ev = (await w.events("ticket.assigned")).at(-1)!;
    expect(ev.data).toMatchObject({
      number: id,
      assigneeUserId: w.users.olga,
      previousAssigneeUserId: w.users.ada,
      byUserId: w.users.olga,
    });
  });

  test("assigning the current assignee again changes nothing", async () => {
    const id = await ticketIn("open");
    await w.call("tickets_assign", { id, assigneeId: "me" });
    const n = (await w.events("ticket.assigned")).length;
    expect(await w.call("tickets_assign", { id, assigneeId: "me" })).toMatchObject({ unchanged: true });
    expect((await w.events("ticket.assigned")).length).toBe(n);
  });
});
