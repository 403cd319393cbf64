/**
 * Content events: the CMS, store and branding verbs write typed events in
 * the transaction of their change, carrying slugs and cache tags a renderer
 * revalidates with; a refused call writes none.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { events } from "../../src/core/tables";
import { brandingDomain } from "../../src/domains/branding/tools";
import { cmsDomain } from "../../src/domains/cms/tools";
import { storeDomain } from "../../src/domains/store/tools";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { approveHeld, call, errorOf, makeWorld, type World } from "../store/world";

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});
afterAll(() => w.close());

async function eventsSince(id: number) {
  const rows = await w.deps.db.select().from(events).orderBy(events.id);
  return rows
    .filter((r) => r.id > id)
    .map((r) => ({ type: r.type, siteId: r.siteId, entityId: r.entityId, userId: r.userId, data: r.data as any }));
}
async function top() {
  const rows = await w.deps.db.select({ id: events.id }).from(events);
  return rows.reduce((m, r) => Math.max(m, r.id), 0);
}

describe("post events", () => {
  test("draft, publish on approval, rename revision, unpublish, delete", async () => {
    const ctx = w.ctx();
    const t0 = await top();
    const p = await call(cmsDomain, ctx, "posts_create", {
      siteId: w.siteId,
      title: "Autumn menu",
      slug: "autumn-menu",
    });
    let ev = await eventsSince(t0);
    expect(ev.map((e) => e.type)).toContain("post.created");
    const created = ev.find((e) => e.type === "post.created")!;
    expect(created.siteId).toBe(w.siteId);
    expect(created.entityId).toBe(p.id);
    expect(created.data).toMatchObject({
      postId: p.id,
      slug: "autumn-menu",
      postType: "blog",
      published: false,
      status: "pending",
      approvalId: p.approval.id,
    });
    expect(created.data.cacheTags).toEqual([
      `site:${w.siteId}`,
      `site:${w.siteId}:posts`,
      `site:${w.siteId}:post:${p.id}`,
      `site:${w.siteId}:post/autumn-menu`,
    ]);

    const t1 = await top();
    await decideApproval(w.deps, { token: p.approval.token }, "approve", { decidedBy: "Rita" });
    ev = await eventsSince(t1);
    const pub = ev.find((e) => e.type === "post.published")!;
    expect(pub.data).toMatchObject({
      postId: p.id,
      slug: "autumn-menu",
      published: true,
      status: "published",
      proposal: "new",
      previousSlug: null,
      approvedBy: "Rita",
    });
    expect(pub.userId).toBeNull();
    // The approval's own event follows in the same transaction.
    expect(ev.map((e) => e.type)).toContain("approval.decided");

    // A live post's rename waits as a revision; publishing it names both slugs.
    const t2 = await top();
    const u = await call(cmsDomain, ctx, "posts_update", { siteId: w.siteId, id: p.id, slug: "autumn-menu-2026" });
    ev = await eventsSince(t2);
    expect(ev.find((e) => e.type === "post.updated")!.data).toMatchObject({
      fields: ["slug"],
      revisionId: u.pendingRevision.id,
      published: true,
      slug: "autumn-menu",
    });
    const t3 = await top();
    await decideApproval(w.deps, { token: u.approval.token }, "approve", { decidedBy: "Rita" });
    const rev = (await eventsSince(t3)).find((e) => e.type === "post.published")!;
    expect(rev.data).toMatchObject({ slug: "autumn-menu-2026", previousSlug: "autumn-menu", proposal: "revision" });
    expect(rev.data.cacheTags).toContain(`site:${w.siteId}:post/autumn-menu`);
    expect(rev.data.cacheTags).toContain(`site:${w.siteId}:post/autumn-menu-2026`);

    // Taking it down is held; nothing is emitted until a person approves.
    const t4 = await top();
    const held = await call(cmsDomain, ctx, "posts_unpublish", { siteId: w.siteId, id: p.id });
    expect((await eventsSince(t4)).some((e) => e.type === "post.unpublished")).toBe(false);
    await approveHeld(w, held);
    const un = (await eventsSince(t4)).find((e) => e.type === "post.unpublished")!;
    expect(un.data).toMatchObject({ postId: p.id, published: false, status: "archived" });

    const t5 = await top();
    await call(cmsDomain, ctx, "posts_delete", { siteId: w.siteId, id: p.id });
    expect((await eventsSince(t5)).find((e) => e.type === "post.deleted")!.data).toMatchObject({
      postId: p.id,
      wasPublished: false,
      status: "deleted",
    });
  });

  test("a rejected draft says so; a refused call emits nothing", async () => {
    const ctx = w.ctx();
    const p = await call(cmsDomain, ctx, "posts_create", { siteId: w.siteId, title: "Draft to reject" });
    const t0 = await top();
    await decideApproval(w.deps, { token: p.approval.token }, "reject", { decidedBy: "Rita", comment: "Too long" });
    expect((await eventsSince(t0)).find((e) => e.type === "post.rejected")!.data).toMatchObject({
      postId: p.id,
      status: "rejected",
      comment: "Too long",
    });
    const t1 = await top();
    await errorOf(() => call(cmsDomain, ctx, "posts_create", { siteId: w.otherSiteId, title: "Not mine" }));
    await errorOf(() =>
      call(cmsDomain, w.ctx({ role: "viewer" }), "posts_create", { siteId: w.siteId, title: "Viewer" }),
    );
    expect(await eventsSince(t1)).toEqual([]);
  });
});

describe("store events", () => {
  test("products and orders", async () => {
    const ctx = w.ctx();
    await call(storeDomain, ctx, "store_settings_update", { siteId: w.siteId, enabled: true, currency: "eur" });
    const t0 = await top();
    const prod = await call(storeDomain, ctx, "products_create", {
      siteId: w.siteId,
      name: "House blend",
      price: 1250,
      status: "active",
      trackInventory: true,
      quantity: 10,
    });
    await call(storeDomain, ctx, "products_update", {
      siteId: w.siteId,
      id: prod.id,
      slug: "house-blend-1kg",
      price: 1300,
    });
    const order = await call(storeDomain, ctx, "orders_create", {
      siteId: w.siteId,
      items: [{ productId: prod.id, quantity: 3 }],
      customer: { email: "ana@example.test", name: "Ana" },
    });
    await call(storeDomain, ctx, "orders_update_status", { siteId: w.siteId, id: order.id, status: "cancelled" });
    await call(storeDomain, ctx, "orders_delete", { siteId: w.siteId, id: order.id });
    const ev = await eventsSince(t0);
    expect(ev.map((e) => e.type)).toEqual([
      "product.created",
      "product.updated",
      "order.created",
      "order.status_changed",
      "order.deleted",
    ]);
    expect(ev[0]!.data).toMatchObject({ productId: prod.id, status: "active", price: 1250 });
    expect(ev[1]!.data).toMatchObject({ slug: "house-blend-1kg", previousSlug: prod.slug, price: 1300 });
    expect(ev[1]!.data.fields.sort()).toEqual(["price", "slug"]);
    expect(ev[1]!.data.cacheTags).toContain(`site:${w.siteId}:product/${prod.slug}`);
    // 3 × 13.00 = 39.00
    expect(ev[2]!.data).toMatchObject({
      orderId: order.id,
      total: 3900,
      subtotal: 3900,
      currency: order.currency,
      customerEmail: "ana@example.test",
      customerName: "Ana",
    });
    expect(ev[2]!.data.items).toEqual([
      { productId: prod.id, variantId: null, name: "House blend", sku: null, quantity: 3, lineTotal: 3900 },
    ]);
    expect(ev[2]!.data.cacheTags).toEqual([`site:${w.siteId}:orders`, `site:${w.siteId}:product:${prod.id}`]);
    expect(ev[3]!.data).toMatchObject({ status: "cancelled", previousStatus: "pending", restocked: true });
    expect(ev[4]!.data).toMatchObject({ status: "deleted", previousStatus: "cancelled", restocked: false });
    // Withdrawing an active product is held; approving emits the change.
    const t1 = await top();
    const held = await call(storeDomain, ctx, "products_set_status", {
      siteId: w.siteId,
      id: prod.id,
      status: "inactive",
    });
    expect((await eventsSince(t1)).some((e) => e.type.startsWith("product."))).toBe(false);
    await approveHeld(w, held);
    expect((await eventsSince(t1)).find((e) => e.type === "product.status_changed")!.data).toMatchObject({
      status: "inactive",
      previousStatus: "active",
    });
    const t2 = await top();
    await call(storeDomain, ctx, "products_delete", { siteId: w.siteId, id: prod.id });
    expect((await eventsSince(t2)).find((e) => e.type === "product.deleted")!.data).toMatchObject({
      productId: prod.id,
      status: "deleted",
      slug: "house-blend-1kg",
    });
  });
});

describe("branding events", () => {
  test("profile and messaging", async () => {
    const ctx = w.ctx();
    const t0 = await top();
    await call(brandingDomain, ctx, "branding_update_profile", {
      siteId: w.site2Id,
      branding: { primaryColor: "#114477" },
    });
    await call(brandingDomain, ctx, "brand_messaging_update", { siteId: w.site2Id, tagline: "Slow coffee" });
    await call(brandingDomain, ctx, "branding_delete_profile", { siteId: w.site2Id });
    const ev = await eventsSince(t0);
    expect(ev.map((e) => [e.type, e.data.action ?? null])).toEqual([
      ["branding.updated", "update"],
      ["brand_messaging.updated", null],
      ["branding.updated", "delete"],
    ]);
    expect(ev[0]!.data).toEqual({
      siteId: w.site2Id,
      action: "update",
      fields: ["primaryColor"],
      cacheTags: [`site:${w.site2Id}`],
    });
    expect(ev[1]!.data.fields).toEqual(["tagline"]);
  });
});
