/**
 * Racing writers, on whichever engine this run uses (SQLite's single
 * writer; PostgreSQL's serializable transactions with retries): ticket
 * numbers, replies and assignment.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeTicketWorld, type TWorld } from "./world";

let w: TWorld;
beforeAll(async () => {
  w = await makeTicketWorld();
});
afterAll(async () => await w.close());

test("30 concurrent creates in one company and 10 in another: numbers unique and gapless per company", async () => {
  const acme = Array.from({ length: 30 }, (_, i) =>
    w.call(
      "tickets_create",
      { subject: `Acme ${i}`, requesterEmail: `c${i}@client.test`, body: "hi" },
      w.ctx(i % 2 ? "olga" : "ada"),
    ),
  );
  const rival = Array.from({ length: 10 }, (_, i) =>
    w.call("tickets_create", { subject: `Rival ${i}`, requesterEmail: "r@rival.test", body: "hi" }, w.ctx("rita")),
  );
  const [a, r] = [await Promise.all(acme), await Promise.all(rival)];
  expect(a.map((t) => t.id).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => 1001 + i));
  expect(r.map((t) => t.id).sort((x, y) => x - y)).toEqual(Array.from({ length: 10 }, (_, i) => 1001 + i));
  expect((await w.call("tickets_list", { limit: 100 })).total).toBe(30);
  expect((await w.events("ticket.created")).length).toBe(40);
});

test("two agents replying at once: both replies kept, one of them is the first response", async () => {
  const t = await w.call("tickets_create", { subject: "Race", requesterEmail: "kim@client.test", body: "hello" });
  const [x, y] = await Promise.all([
    w.call("tickets_reply", { id: t.id, body: "From Olga" }, w.ctx("olga")),
    w.call("tickets_reply", { id: t.id, body: "From Ada" }, w.ctx("ada")),
  ]);
  expect([x.firstResponse, y.firstResponse].sort()).toEqual([false, true]);
  const got = await w.call("tickets_get", { id: t.id });
  expect(got.messages.map((m: any) => m.body).sort()).toEqual(["From Ada", "From Olga", "hello"]);
  expect(got.status).toBe("open");
  // new → open happened once.
  expect((await w.events("ticket.status_changed")).filter((e) => e.data.number === t.id).length).toBe(1);
  expect((await w.events("ticket.replied")).filter((e) => e.data.number === t.id).length).toBe(2);
});

test("two agents assigning at once: the events form one chain, nothing lost", async () => {
  const t = await w.call("tickets_create", {
    subject: "Who takes it",
    requesterEmail: "kim@client.test",
    body: "hello",
  });
  await Promise.all([
    w.call("tickets_assign", { id: t.id, assigneeId: "me" }, w.ctx("olga")),
    w.call("tickets_assign", { id: t.id, assigneeId: "me" }, w.ctx("ada")),
  ]);
  const ev = (await w.events("ticket.assigned")).filter((e) => e.data.number === t.id);
  expect(ev.length).toBe(2);
  expect(ev[0]!.data.previousAssigneeUserId).toBeNull();
  expect(ev[1]!.data.previousAssigneeUserId).toBe(ev[0]!.data.assigneeUserId);
  const final = await w.call("tickets_get", { id: t.id });
  expect(final.assignee.id).toBe(ev[1]!.data.assigneeUserId);
  expect(final.status).toBe("open");
  expect((await w.events("ticket.status_changed")).filter((e) => e.data.number === t.id).map((e) => e.data.to)).toEqual(
    ["open"],
  );
});
