/**
 * Racing writers, on whichever engine this run uses (SQLite's single
 * writer; PostgreSQL's serializable transactions with retries): duplicate
 * creates on one email or domain, stage moves on one deal, merges of one
 * pair from both sides.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { contactEmails } from "../../src/domains/crm/tables";
import { makeCrmWorld, type CWorld } from "./world";

let w: CWorld;
beforeAll(async () => {
  w = await makeCrmWorld();
  await w.call("pipelines_create", { name: "Sales" });
});
afterAll(async () => await w.close());

test("12 racing creates of one email: one contact, everyone answered with it, one event", async () => {
  const rs = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      w.call(
        "contacts_create",
        { firstName: `Racer ${i}`, emails: [i % 2 ? "race@x.example" : "RACE@x.example"] },
        w.ctx(i % 2 ? "olga" : "ada"),
      ),
    ),
  );
  expect(rs.filter((r) => r.created).length).toBe(1);
  const id = rs.find((r) => r.created)!.id;
  expect(new Set(rs.map((r) => r.id))).toEqual(new Set([id]));
  for (const r of rs.filter((x) => !x.created))
    expect(r.duplicate).toEqual({ matchedOn: "email", value: "race@x.example" });
  expect((await w.call("contacts_list", { q: "race@x.example" })).total).toBe(1);
  expect(
    (
      await w.deps.db
        .select()
        .from(contactEmails)
        .where(and(eq(contactEmails.companyId, w.acme), eq(contactEmails.email, "race@x.example")))
    ).length,
  ).toBe(1);
  expect((await w.events("contact.created")).filter((e) => e.data.emails.includes("race@x.example")).length).toBe(1);
});

test("racing creates sharing one of several emails still make one contact", async () => {
  const rs = await Promise.all([
    w.call("contacts_create", { firstName: "P", emails: ["p1@x.example", "shared@x.example"] }),
    w.call("contacts_create", { firstName: "Q", emails: ["shared@x.example", "q1@x.example"] }),
    w.call("contacts_create", { firstName: "R", emails: ["r1@x.example", "shared@x.example"] }),
  ]);
  expect(rs.filter((r) => r.created).length).toBe(1);
  expect(new Set(rs.map((r) => r.id)).size).toBe(1);
});

test("10 racing creates of one domain: one company", async () => {
  const rs = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      w.call("crm_companies_create", { name: `Co ${i}`, domain: i % 2 ? "https://www.same.example" : "same.example" }),
    ),
  );
  expect(rs.filter((r) => r.created).length).toBe(1);
  expect(new Set(rs.map((r) => r.id)).size).toBe(1);
  expect((await w.call("crm_companies_list", { q: "same.example" })).total).toBe(1);
});

test("racing stage moves: every move recorded as one unbroken chain, the deal ends where the chain ends", async () => {
  const d = await w.call("deals_create", { name: "Contested", amountCents: 1000 });
  const targets = ["Qualified", "Proposal", "Negotiation", "Qualified", "Proposal", "Negotiation", "Lead", "Proposal"];
  await Promise.all(
    targets.map((stage, i) => w.call("deals_move_stage", { id: d.id, stage }, w.ctx(i % 2 ? "olga" : "ada"))),
  );
  const got = await w.call("deals_get", { id: d.id });
  const h = got.stageHistory;
  for (let i = 1; i < h.length; i++) expect(h[i].from).toBe(h[i - 1].to);
  expect(h.at(-1).to).toBe(got.stage);
  const ev = (await w.events("deal.stage_changed")).filter((e) => e.entityId === d.id);
  expect(ev.length).toBe(h.length - 1);
  for (let i = 1; i < ev.length; i++) expect(ev[i]!.data.fromStage).toBe(ev[i - 1]!.data.stage);
});

test("racing conditional moves from the same stage: exactly one wins, the others are told", async () => {
  const d = await w.call("deals_create", { name: "Guarded", amountCents: 1000 });
  const rs = await Promise.allSettled(
    ["Qualified", "Proposal", "Negotiation", "Won"].map((stage) =>
      w.call("deals_move_stage", { id: d.id, stage, fromStage: "Lead" }),
    ),
  );
  expect(rs.filter((r) => r.status === "fulfilled").length).toBe(1);
  for (const r of rs.filter((x) => x.status === "rejected"))
    expect((r as PromiseRejectedResult).reason.code).toBe("conflict");
  expect((await w.call("deals_get", { id: d.id })).stageHistory.length).toBe(2);
});

test("merging A into B and B into A at once: one merge happens, the other finds its contact gone", async () => {
  const a = await w.call("contacts_create", { firstName: "A", emails: ["a@m.example"] });
  const b = await w.call("contacts_create", { firstName: "B", emails: ["b@m.example"] });
  const rs = await Promise.allSettled([
    w.call("contacts_merge", { id: a.id, mergeId: b.id }),
    w.call("contacts_merge", { id: b.id, mergeId: a.id }),
  ]);
  expect(rs.filter((r) => r.status === "fulfilled").length).toBe(1);
  expect((rs.find((r) => r.status === "rejected") as PromiseRejectedResult).reason.code).toBe("not_found");
  const survivor = (rs.find((r) => r.status === "fulfilled") as PromiseFulfilledResult<any>).value.id;
  expect((await w.call("contacts_get", { id: survivor })).emails.sort()).toEqual(["a@m.example", "b@m.example"]);
});
