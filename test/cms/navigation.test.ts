/** The navigation tree over MCP (create, update, move, reorder, delete), and REST getNavigation serving it. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "./world";

let s: TestServer;
let w: World;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
});
afterAll(async () => {
  await s?.stop();
});

const tree = async (siteId = w.siteA) => (await w.ok(w.owner, "nav_items_list", { siteId })).items;
const shape = (items: any[]): any[] =>
  items.map((i) => (i.children.length ? { [i.label]: shape(i.children) } : i.label));
const restNav = async () => ((await (await fetch(`${s.url}/api/v1/sites/${w.siteA}/navigation`)).json()) as any).data;

describe("happy paths", () => {
  test("build a tree, insert at positions, move between parents, reorder; REST serves the same tree", async () => {
    const home = await w.ok(w.owner, "nav_items_create", { siteId: w.siteA, label: "Home", href: "/" });
    const shop = await w.ok(w.owner, "nav_items_create", {
      siteId: w.siteA,
      label: "Shop",
      href: "/shop",
      isButton: true,
    });
    const about = await w.ok(w.owner, "nav_items_create", {
      siteId: w.siteA,
      label: "About",
      href: "/about",
      position: 1,
    });
    expect(home).toEqual({ id: home.id, label: "Home", parentId: null, sortOrder: 0 });
    const beans = await w.ok(w.owner, "nav_items_create", {
      siteId: w.siteA,
      label: "Beans",
      href: "/shop/beans",
      parentId: shop.id,
    });
    const gear = await w.ok(w.owner, "nav_items_create", {
      siteId: w.siteA,
      label: "Gear",
      href: "/shop/gear",
      parentId: shop.id,
      description: "Grinders and kettles",
      columnGroup: 1,
    });
    expect(shape(await tree())).toEqual(["Home", "About", { Shop: ["Beans", "Gear"] }]);

    await w.ok(w.owner, "nav_items_move", { siteId: w.siteA, id: about.id, parentId: null, position: 0 });
    await w.ok(w.owner, "nav_items_move", { siteId: w.siteA, id: gear.id, parentId: about.id });
    expect(shape(await tree())).toEqual([{ About: ["Gear"] }, "Home", { Shop: ["Beans"] }]);
    await w.ok(w.owner, "nav_items_move", { siteId: w.siteA, id: gear.id, parentId: shop.id, position: 0 });
    await w.ok(w.owner, "nav_items_reorder", { siteId: w.siteA, parentId: null, ids: [home.id, shop.id, about.id] });
    const t = await tree();
    expect(shape(t)).toEqual(["Home", { Shop: ["Gear", "Beans"] }, "About"]);
    expect(t.map((i: any) => i.sortOrder)).toEqual([0, 1, 2]);
    expect(t[1].children[0]).toMatchObject({
      label: "Gear",
      parentId: shop.id,
      description: "Grinders and kettles",
      columnGroup: 1,
      isButton: false,
      openInNewTab: false,
      icon: null,
      featuredImage: null,
    });
    expect(t[1].isButton).toBe(true);

    await w.ok(w.owner, "nav_items_update", {
      siteId: w.siteA,
      id: beans.id,
      label: "Coffee beans",
      openInNewTab: true,
      icon: "bean",
    });
    const served = await restNav();
    expect(served.map((i: any) => i.label)).toEqual(["Home", "Shop", "About"]);
    expect(served[1].children.map((i: any) => i.label)).toEqual(["Gear", "Coffee beans"]);
    expect(served[1].children[1]).toMatchObject({ openInNewTab: true, icon: "bean", href: "/shop/beans" });
  });

  test("delete: a leaf goes; a parent is refused unless withChildren, which removes the branch", async () => {
    const root = await w.ok(w.owner, "nav_items_create", { siteId: w.siteA2, label: "Root", href: "/r" });
    const kid = await w.ok(w.owner, "nav_items_create", {
      siteId: w.siteA2,
      label: "Kid",
      href: "/r/k",
      parentId: root.id,
    });
    const grand = await w.ok(w.owner, "nav_items_create", {
      siteId: w.siteA2,
      label: "Grandkid",
      href: "/r/k/g",
      parentId: kid.id,
    });
    const msg = await w.err(w.owner, "nav_items_delete", { siteId: w.siteA2, id: root.id });
    expect(msg).toContain(`${kid.id} ("Kid")`);
    expect(msg).toContain("withChildren");
    expect(await w.ok(w.owner, "nav_items_delete", { siteId: w.siteA2, id: grand.id })).toMatchObject({
      deletedIds: [grand.id],
    });
    const all = await w.ok(w.owner, "nav_items_delete", { siteId: w.siteA2, id: root.id, withChildren: true });
    expect(all.deletedIds.sort()).toEqual([root.id, kid.id].sort());
    expect(await tree(w.siteA2)).toEqual([]);
  });
});

describe("errors", () => {
  test("cycles, too-deep trees, wrong reorder sets and unsafe links are refused without changes", async () => {
    const a = await w.ok(w.owner, "nav_items_create", { siteId: w.siteA2, label: "A", href: "/a" });
    const b = await w.ok(w.owner, "nav_items_create", { siteId: w.siteA2, label: "B", href: "/b", parentId: a.id });
    const c = await w.ok(w.owner, "nav_items_create", { siteId: w.siteA2, label: "C", href: "/c", parentId: b.id });
    const before = w.changes();
    expect(await w.err(w.owner, "nav_items_move", { siteId: w.siteA2, id: a.id, parentId: c.id })).toContain(
      "descendant",
    );
    expect(await w.err(w.owner, "nav_items_move", { siteId: w.siteA2, id: a.id, parentId: a.id })).toContain("itself");
    expect(
      await w.err(w.owner, "nav_items_create", { siteId: w.siteA2, label: "D", href: "/d", parentId: c.id }),
    ).toContain("at most 3 levels");
    const x = await w.ok(w.owner, "nav_items_create", { siteId: w.siteA2, label: "X", href: "/x" });
    const mid = w.changes();
    await w.ok(w.owner, "nav_items_create", { siteId: w.siteA2, label: "Y", href: "/y", parentId: x.id });
    const afterY = w.changes();
    expect(await w.err(w.owner, "nav_items_move", { siteId: w.siteA2, id: x.id, parentId: b.id })).toContain(
      "at most 3 levels",
    );
    expect(await w.err(w.owner, "nav_items_reorder", { siteId: w.siteA2, parentId: null, ids: [a.id] })).toContain(
      "Missing",
    );
    expect(
      await w.err(w.owner, "nav_items_reorder", { siteId: w.siteA2, parentId: null, ids: [a.id, x.id, c.id] }),
    ).toContain("Not children there");
    expect(
      await w.err(w.owner, "nav_items_reorder", { siteId: w.siteA2, parentId: null, ids: [a.id, a.id] }),
    ).toContain("more than once");
    for (const href of [
      "javascript:alert(1)",
      "data:text/html,<script>",
      "//evil.example",
      "java\tscript:x",
      " /spaces",
    ])
      expect(await w.err(w.owner, "nav_items_create", { siteId: w.siteA2, label: "Bad", href })).toContain("href");
    expect(
      await w.err(w.owner, "nav_items_create", {
        siteId: w.siteA2,
        label: "Bad",
        href: "/ok",
        featuredImage: "javascript:x",
      }),
    ).toContain("featuredImage");
    expect(
      await w.err(w.owner, "nav_items_create", { siteId: w.siteA2, label: "Bad", href: "/ok", icon: "<svg>" }),
    ).toStartWith("Invalid arguments");
    expect(
      await w.err(w.owner, "nav_items_create", { siteId: w.siteA2, label: "x".repeat(101), href: "/" }),
    ).toStartWith("Invalid arguments");
    expect(await w.err(w.owner, "nav_items_update", { siteId: w.siteA2, id: 999_999, label: "x" })).toStartWith(
      "Not found",
    );
    expect(w.changes() - afterY).toBe(0);
    expect(mid).toBeGreaterThan(before);
  });
});

describe("security", () => {
  test("another company's items cannot be read, moved under, reordered or deleted", async () => {
    const theirs = await w.ok(w.stranger, "nav_items_create", { siteId: w.siteB, label: "Rival item", href: "/r" });
    const mine = await w.ok(w.owner, "nav_items_create", { siteId: w.siteA, label: "Mine", href: "/m" });
    const before = w.changes();
    for (const [tool, args] of [
      ["nav_items_list", { siteId: w.siteB }],
      ["nav_items_update", { siteId: w.siteA, id: theirs.id, label: "x" }],
      ["nav_items_delete", { siteId: w.siteA, id: theirs.id }],
      ["nav_items_move", { siteId: w.siteA, id: mine.id, parentId: theirs.id }],
      ["nav_items_create", { siteId: w.siteA, label: "x", href: "/x", parentId: theirs.id }],
      ["nav_items_reorder", { siteId: w.siteA, parentId: theirs.id, ids: [] }],
    ] as const) {
      const msg = await w.err(w.owner, tool, args as Record<string, unknown>);
      expect(msg).toStartWith("Not found");
      expect(msg).not.toContain("Rival");
    }
    expect(w.changes()).toBe(before);
  });
});
