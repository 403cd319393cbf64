/** Store settings, reviews and customer messages. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { storeDomain } from "../../src/domains/store/tools";
import { call as callAs, errorOf, makeWorld, type World } from "./world";

let w: World;
const call = (name: string, args: Record<string, unknown>) => callAs(storeDomain, w.ctx(), name, args);

beforeAll(async () => {
  w = await makeWorld();
});
afterAll(() => w.close());

describe("store settings", () => {
  test("a site has no store until configured; update upserts and validates the currency", async () => {
    expect(await call("store_settings_get", { siteId: w.siteId })).toEqual({
      siteId: w.siteId,
      configured: false,
      enabled: false,
      currency: "USD",
      taxInclusive: false,
      updatedAt: null,
    });
    const v0 = await w.contentVersion(w.siteId);
    await call("store_settings_update", { siteId: w.siteId, enabled: true, currency: "gbp" });
    expect(await w.contentVersion(w.siteId)).toBe(v0 + 1);
    await call("store_settings_update", { siteId: w.siteId, taxInclusive: true });
    expect(await call("store_settings_get", { siteId: w.siteId })).toMatchObject({
      configured: true,
      enabled: true,
      currency: "GBP",
      taxInclusive: true,
    });
    for (const currency of ["ABC", "EU", "€€€", "usd'; --"])
      expect((await errorOf(() => call("store_settings_update", { siteId: w.siteId, currency }))).code).toBe(
        "validation",
      );
    expect((await errorOf(() => call("store_settings_update", { siteId: w.siteId, enabled: "yes" }))).code).toBe(
      "validation",
    );
  });
});

describe("reviews", () => {
  test("created pending, moderated, filtered, averaged", async () => {
    const p = await call("products_create", { siteId: w.siteId, name: "Kettle", price: 3000 });
    const r1 = await call("reviews_create", {
      siteId: w.siteId,
      productId: p.id,
      authorName: "Ana",
      rating: 5,
      body: "<b>great</b>",
    });
    const r2 = await call("reviews_create", {
      siteId: w.siteId,
      productId: p.id,
      authorName: "Bo",
      authorEmail: "BO@x.test",
      rating: 2,
      title: "meh",
    });
    expect(r1).toEqual({ id: expect.any(Number), productId: p.id, status: "pending" });
    expect(await call("reviews_moderate", { siteId: w.siteId, id: r1.id, action: "approve" })).toMatchObject({
      status: "approved",
      previousStatus: "pending",
    });
    expect(await call("reviews_moderate", { siteId: w.siteId, id: r2.id, action: "hide" })).toMatchObject({
      status: "hidden",
    });
    const approved = await call("reviews_list", { siteId: w.siteId, status: "approved" });
    expect(approved.items.map((x: any) => [x.id, x.body, x.productName])).toEqual([[r1.id, "<b>great</b>", "Kettle"]]);
    const all = await call("reviews_list", { siteId: w.siteId, productId: p.id });
    expect(all).toMatchObject({ total: 2, averageRating: 3.5 });
    expect(all.items[0].authorEmail).toBe("bo@x.test");
    for (const rating of [0, 6, 4.5, "5"])
      expect(
        (await errorOf(() => call("reviews_create", { siteId: w.siteId, productId: p.id, authorName: "X", rating })))
          .code,
      ).toBe("validation");
    expect(
      (await errorOf(() => call("reviews_moderate", { siteId: w.siteId, id: r1.id, action: "delete" }))).code,
    ).toBe("validation");
    expect(
      (await errorOf(() => call("reviews_create", { siteId: w.siteId, productId: 999999, authorName: "X", rating: 3 })))
        .code,
    ).toBe("not_found");
  });
});

describe("customer messages", () => {
  test("record, reply, close, refuse replies when closed, reopen", async () => {
    const c = await call("customers_create", { siteId: w.siteId, email: "cy@x.test" });
    const m = await call("customer_messages_create", {
      siteId: w.siteId,
      email: "CY@x.test",
      subject: "Where is my order?",
      body: "It's been a week.",
    });
    expect(m).toMatchObject({ status: "open", customerId: c.id });
    let list = await call("customer_messages_list", { siteId: w.siteId, status: "open" });
    expect(list.items[0]).toMatchObject({ id: m.id, awaitingReply: true, messages: 1 });
    const reply = await call("customer_messages_reply", { siteId: w.siteId, id: m.id, body: "Shipped today." });
    expect(reply).toMatchObject({ id: m.id, status: "open" });
    list = await call("customer_messages_list", { siteId: w.siteId });
    expect(list.items[0]).toMatchObject({ awaitingReply: false, messages: 2 });
    expect(await call("customer_messages_close", { siteId: w.siteId, id: m.id })).toEqual({
      id: m.id,
      status: "closed",
      previousStatus: "open",
    });
    const refused = await errorOf(() =>
      call("customer_messages_reply", { siteId: w.siteId, id: m.id, body: "one more thing" }),
    );
    expect(refused.code).toBe("conflict");
    expect(refused.message).toContain("customer_messages_reopen");
    await call("customer_messages_reopen", { siteId: w.siteId, id: m.id });
    await call("customer_messages_reply", { siteId: w.siteId, id: m.id, body: "one more thing" });
    const thread = await call("customer_messages_get", { siteId: w.siteId, id: m.id });
    expect(thread.replies.map((r: any) => [r.author, r.body])).toEqual([
      ["customer", "It's been a week."],
      ["staff", "Shipped today."],
      ["staff", "one more thing"],
    ]);
    expect(thread.replies[1].userId).toBe(w.ctx().principal.userId);
    expect((await call("customer_messages_list", { siteId: w.siteId, status: "closed" })).total).toBe(0);
    expect(
      (await errorOf(() => call("customer_messages_reply", { siteId: w.siteId, id: m.id, body: "   " }))).code,
    ).toBe("validation");
    expect(
      (await errorOf(() => call("customer_messages_reply", { siteId: w.siteId, id: m.id, body: "x".repeat(10_001) })))
        .code,
    ).toBe("validation");
  });
});
