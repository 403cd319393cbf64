/** The product category tree: cycles, depth, order, activation, live counts. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { depthOf, descendantsOf, moveProblem } from "../../src/domains/store/categories";
import { storeDomain } from "../../src/domains/store/tools";
import { approveHeld, call as callAs, errorOf, makeWorld, type World } from "./world";

describe("tree checks (pure)", () => {
  const tree = [
    { id: 1, parentId: null },
    { id: 2, parentId: 1 },
    { id: 3, parentId: 2 },
    { id: 4, parentId: null },
  ];
  test("descendants and depth", () => {
    expect(descendantsOf(tree, 1).sort()).toEqual([2, 3]);
    expect(descendantsOf(tree, 3)).toEqual([]);
    expect(depthOf(tree, 3)).toBe(3);
    expect(depthOf(tree, null)).toBe(0);
  });
  test("cycles are found", () => {
    expect(moveProblem(tree, 1, 1)).toContain("own parent");
    expect(moveProblem(tree, 1, 3)).toContain("cycle");
    expect(moveProblem(tree, 3, 4)).toBeNull();
    expect(moveProblem(tree, 1, null)).toBeNull();
  });
  test("depth limit counts the moved subtree", () => {
    const chain = Array.from({ length: 6 }, (_, i) => ({ id: i + 1, parentId: i === 0 ? null : i }));
    expect(moveProblem([...chain, { id: 10, parentId: null }], 10, 6)).toContain("6 levels");
    expect(moveProblem([...chain, { id: 10, parentId: null }], 10, 5)).toBeNull();
    expect(moveProblem([...chain, { id: 10, parentId: null }, { id: 11, parentId: 10 }], 10, 5)).toContain("6 levels");
  });
});

let w: World;
const call = (name: string, args: Record<string, unknown>) => callAs(storeDomain, w.ctx(), name, args);
const list = async () => (await call("product_categories_list", { siteId: w.siteId })).items as any[];

beforeAll(async () => {
  w = await makeWorld();
});
afterAll(() => w.close());

describe("categories through the tools", () => {
  let clothing: number, shirts: number, tees: number, home: number;
  test("create nests, orders siblings and makes unique slugs", async () => {
    clothing = (await call("product_categories_create", { siteId: w.siteId, name: "Clothing" })).id;
    home = (await call("product_categories_create", { siteId: w.siteId, name: "Home" })).id;
    shirts = (await call("product_categories_create", { siteId: w.siteId, name: "Shirts", parentId: clothing })).id;
    tees = (await call("product_categories_create", { siteId: w.siteId, name: "Tees", parentId: shirts })).id;
    const first = await call("product_categories_create", { siteId: w.siteId, name: "Sale", order: 0 });
    expect(first).toMatchObject({ slug: "sale", order: 0, parentId: null });
    const rows = await list();
    expect(rows.map((r) => [r.name, r.depth, r.order])).toEqual([
      ["Sale", 1, 0],
      ["Clothing", 1, 1],
      ["Shirts", 2, 0],
      ["Tees", 3, 0],
      ["Home", 1, 2],
    ]);
    expect((await call("product_categories_create", { siteId: w.siteId, name: "Home" })).slug).toBe("home-2");
    expect(
      (await errorOf(() => call("product_categories_create", { siteId: w.siteId, name: "X", slug: "home" }))).code,
    ).toBe("conflict");
    expect(
      (await errorOf(() => call("product_categories_create", { siteId: w.siteId, name: "X", parentId: 999999 }))).code,
    ).toBe("validation");
  });

  test("moving under itself or a descendant is refused as a cycle", async () => {
    for (const parentId of [clothing, tees]) {
      const e = await errorOf(() => call("product_categories_move", { siteId: w.siteId, id: clothing, parentId }));
      expect(e.code).toBe("validation");
      expect(e.message).toMatch(/cycle|own parent/);
    }
  });

  test("move re-parents the subtree at a position and keeps both sibling lists dense", async () => {
    await call("product_categories_move", { siteId: w.siteId, id: shirts, parentId: home, position: 0 });
    const rows = await list();
    expect(rows.find((r) => r.id === shirts)).toMatchObject({ parentId: home, order: 0, depth: 2 });
    expect(rows.find((r) => r.id === tees)).toMatchObject({ parentId: shirts, depth: 3 });
    await call("product_categories_move", { siteId: w.siteId, id: shirts, parentId: null, position: 1 });
    const top = (await list()).filter((r) => r.parentId === null);
    expect(top.map((r) => r.order)).toEqual(top.map((_, i) => i));
    expect(top[1].id).toBe(shirts);
  });

  test("reorder needs exactly the children of the parent", async () => {
    const top = (await list()).filter((r) => r.parentId === null).map((r) => r.id);
    const reversed = [...top].reverse();
    await call("product_categories_reorder", { siteId: w.siteId, parentId: null, orderedIds: reversed });
    expect((await list()).filter((r) => r.parentId === null).map((r) => r.id)).toEqual(reversed);
    const missing = await errorOf(() =>
      call("product_categories_reorder", { siteId: w.siteId, parentId: null, orderedIds: reversed.slice(1) }),
    );
    expect(missing.message).toContain("Missing");
    const foreign = await errorOf(() =>
      call("product_categories_reorder", { siteId: w.siteId, parentId: null, orderedIds: [...reversed, tees] }),
    );
    expect(foreign.message).toContain(`Not children there: ${tees}`);
    const twice = await errorOf(() =>
      call("product_categories_reorder", { siteId: w.siteId, parentId: null, orderedIds: [...reversed, reversed[0]] }),
    );
    expect(twice.message).toContain("twice");
  });

  test("deactivation hides the subtree; activation needs an active parent", async () => {
    const r = await call("product_categories_update", { siteId: w.siteId, id: shirts, active: false });
    expect(r.alsoDeactivated).toEqual([tees]);
    expect(
      (await call("product_categories_list", { siteId: w.siteId, includeInactive: false })).items.some(
        (c: any) => c.id === tees,
      ),
    ).toBe(false);
    const e = await errorOf(() => call("product_categories_update", { siteId: w.siteId, id: tees, active: true }));
    expect(e.code).toBe("conflict");
    // An active category cannot move under the inactive one.
    expect(
      (await errorOf(() => call("product_categories_move", { siteId: w.siteId, id: home, parentId: shirts }))).code,
    ).toBe("conflict");
    await call("product_categories_update", { siteId: w.siteId, id: shirts, active: true });
    await call("product_categories_update", { siteId: w.siteId, id: tees, active: true, name: "T-shirts" });
    expect((await list()).find((c) => c.id === tees)).toMatchObject({ active: true, name: "T-shirts", slug: "tees" });
  });

  test("productCount counts active products live; delete uncategorizes them", async () => {
    const a = await call("products_create", {
      siteId: w.siteId,
      name: "A",
      price: 1,
      categoryId: tees,
      status: "active",
    });
    await call("products_create", { siteId: w.siteId, name: "B", price: 1, categoryId: tees });
    expect((await list()).find((c) => c.id === tees)).toMatchObject({ productCount: 1, totalProducts: 2 });
    await approveHeld(w, await call("products_set_status", { siteId: w.siteId, id: a.id, status: "inactive" }));
    expect((await list()).find((c) => c.id === tees)).toMatchObject({ productCount: 0, totalProducts: 2 });
    const parent = await errorOf(() => call("product_categories_delete", { siteId: w.siteId, id: shirts }));
    expect(parent.message).toContain("subcategories");
    expect(await call("product_categories_delete", { siteId: w.siteId, id: tees })).toMatchObject({
      status: "deleted",
      productsUncategorized: 2,
    });
    expect((await call("products_get", { siteId: w.siteId, id: a.id })).category).toBeNull();
  });

  test("the depth limit holds through create", async () => {
    let parent: number | null = null;
    for (let i = 0; i < 6; i++)
      parent = (await call("product_categories_create", { siteId: w.site2Id, name: `L${i}`, parentId: parent })).id;
    const e = await errorOf(() =>
      call("product_categories_create", { siteId: w.site2Id, name: "L7", parentId: parent }),
    );
    expect(e.message).toContain("6 levels");
  });
});
