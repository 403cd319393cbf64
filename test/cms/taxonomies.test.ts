/** Categories (with colours), tags and post types over MCP, checked against what REST then serves. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mintRestKey } from "../fixtures/rest";
import { row, startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "./world";

let s: TestServer;
let w: World;
let restKey: string;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  restKey = (await mintRestKey(s.deps, w.siteA)).key;
});
afterAll(async () => {
  await s?.stop();
});

const rest = async (path: string) =>
  (await (
    await fetch(`${s.url}/api/v1/sites/${w.siteA}${path}`, { headers: { Authorization: `Bearer ${restKey}` } })
  ).json()) as any;
const version = async () =>
  ((await row(s.deps, "SELECT content_version AS v FROM sites WHERE id = ?", w.siteA)) as { v: number }).v;

describe("categories", () => {
  test("create, update, list and get; colours normalised; REST serves them alphabetically", async () => {
    const v0 = await version();
    const b = await w.ok(w.owner, "categories_create", {
      siteId: w.siteA,
      name: "Beans",
      color: "#A1B2C3",
      description: "Green and roasted",
    });
    expect(b).toEqual({ id: b.id, name: "Beans", slug: "beans", description: "Green and roasted", color: "#a1b2c3" });
    expect(await version()).toBe(v0 + 1);
    const a = await w.ok(w.owner, "categories_create", { siteId: w.siteA, name: "Accessories", color: "#fff" });
    const upd = await w.ok(w.owner, "categories_update", {
      siteId: w.siteA,
      id: b.id,
      name: "Beans & Blends",
      color: null,
    });
    expect(upd).toMatchObject({ name: "Beans & Blends", slug: "beans", color: null });
    expect(await w.ok(w.owner, "categories_get", { siteId: w.siteA, id: a.id })).toMatchObject({
      name: "Accessories",
      color: "#fff",
      postCount: 0,
    });
    const list = await w.ok(w.reader, "categories_list", { siteId: w.siteA });
    expect(list.items.map((c: any) => c.name)).toEqual(["Accessories", "Beans & Blends"]);
    expect((await w.ok(w.owner, "categories_list", { siteId: w.siteA, search: "bean" })).total).toBe(1);
    expect((await rest("/categories")).data.map((c: any) => c.slug)).toEqual(["accessories", "beans"]);
  });

  test("slug conflicts, bad colours and blank names are refused", async () => {
    await w.ok(w.owner, "categories_create", { siteId: w.siteA, name: "Origins", slug: "origins" });
    expect(await w.err(w.owner, "categories_create", { siteId: w.siteA, name: "Other", slug: "origins" })).toStartWith(
      "Conflict",
    );
    const gen = await w.ok(w.owner, "categories_create", { siteId: w.siteA, name: "Origins" });
    expect(gen.slug).toBe("origins-2");
    expect(await w.err(w.owner, "categories_update", { siteId: w.siteA, id: gen.id, slug: "origins" })).toStartWith(
      "Conflict",
    );
    for (const color of ["red", "#12345", "#gggggg", "#1234567", "rgb(0,0,0)", "#fff;background:url(x)"])
      expect(await w.err(w.owner, "categories_create", { siteId: w.siteA, name: "C", color })).toContain("color");
    expect(await w.err(w.owner, "categories_create", { siteId: w.siteA, name: "" })).toStartWith("Invalid arguments");
    expect(await w.err(w.owner, "categories_update", { siteId: w.siteA, id: 99_999, name: "x" })).toStartWith(
      "Not found",
    );
  });

  test("deleting a category in use says which posts hold it; unused ones are deleted", async () => {
    const cat = await w.ok(w.owner, "categories_create", { siteId: w.siteA, name: "Held" });
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Holding post", categoryIds: [cat.id] });
    const msg = await w.err(w.owner, "categories_delete", { siteId: w.siteA, id: cat.id });
    expect(msg).toContain("used by 1 post");
    expect(msg).toContain(`${p.id} ("Holding post")`);
    await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: p.id, categoryIds: [] });
    expect(await w.ok(w.owner, "categories_delete", { siteId: w.siteA, id: cat.id })).toMatchObject({
      status: "deleted",
    });
  });
});

describe("tags", () => {
  test("create, rename, list, delete; in-use refusal names the posts", async () => {
    const t = await w.ok(w.owner, "tags_create", { siteId: w.siteA, name: "Light Roast" });
    expect(t).toEqual({ id: t.id, name: "Light Roast", slug: "light-roast" });
    expect(await w.ok(w.owner, "tags_update", { siteId: w.siteA, id: t.id, name: "Light" })).toMatchObject({
      name: "Light",
      slug: "light-roast",
    });
    expect((await rest("/tags")).data.map((x: any) => x.name)).toContain("Light");
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Tagged", tagIds: [t.id] });
    expect(await w.err(w.owner, "tags_delete", { siteId: w.siteA, id: t.id })).toContain(`${p.id} ("Tagged")`);
    await w.ok(w.owner, "posts_delete", { siteId: w.siteA, id: p.id });
    await w.ok(w.owner, "tags_delete", { siteId: w.siteA, id: t.id });
    expect((await w.ok(w.owner, "tags_list", { siteId: w.siteA })).items.map((x: any) => x.id)).not.toContain(t.id);
  });
});

describe("post types", () => {
  test("built-ins appear on first use; custom types are created, renamed and used", async () => {
    expect((await w.ok(w.owner, "post_types_list", { siteId: w.siteA2 })).total).toBe(0);
    await w.ok(w.owner, "posts_create", { siteId: w.siteA2, title: "First blog post" });
    const types = await w.ok(w.owner, "post_types_list", { siteId: w.siteA2 });
    expect(types.items.find((t: any) => t.slug === "blog")).toMatchObject({ builtIn: true, postCount: 1 });
    const cs = await w.ok(w.owner, "post_types_create", { siteId: w.siteA, name: "Case Study" });
    expect(cs).toMatchObject({ slug: "case-study", name: "Case Study" });
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Acme story", postType: "case-study" });
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id })).postType).toBe("case-study");
    const v0 = await version();
    await w.ok(w.owner, "post_types_update", { siteId: w.siteA, id: cs.id, slug: "stories" });
    expect(await version()).toBe(v0 + 1);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id })).postType).toBe("stories");
    expect(await w.err(w.owner, "post_types_create", { siteId: w.siteA, name: "Stories" })).toStartWith("Conflict");
  });

  test("a post type with posts cannot be deleted; the error says how many and which", async () => {
    const t = await w.ok(w.owner, "post_types_create", { siteId: w.siteA, name: "Recipe" });
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Cold brew", postType: "recipe" });
    const msg = await w.err(w.owner, "post_types_delete", { siteId: w.siteA, id: t.id });
    expect(msg).toContain("used by 1 post");
    expect(msg).toContain(`${p.id} ("Cold brew")`);
    await w.ok(w.owner, "posts_delete", { siteId: w.siteA, id: p.id });
    expect(await w.ok(w.owner, "post_types_delete", { siteId: w.siteA, id: t.id })).toMatchObject({
      status: "deleted",
    });
  });
});

describe("more errors", () => {
  test("slug conflicts on update, unknown ids and malformed input across taxonomy and type tools", async () => {
    const t1 = await w.ok(w.owner, "tags_create", { siteId: w.siteA, name: "One" });
    await w.ok(w.owner, "tags_create", { siteId: w.siteA, name: "Two" });
    expect(await w.err(w.owner, "tags_update", { siteId: w.siteA, id: t1.id, slug: "two" })).toStartWith("Conflict");
    expect(await w.err(w.owner, "tags_update", { siteId: w.siteA, id: 999_999, name: "x" })).toStartWith("Not found");
    expect(await w.err(w.owner, "tags_create", { siteId: w.siteA, name: "x", slug: "-bad-" })).toStartWith(
      "Invalid arguments",
    );
    const p1 = await w.ok(w.owner, "post_types_create", { siteId: w.siteA, name: "Event" });
    await w.ok(w.owner, "post_types_create", { siteId: w.siteA, name: "Podcast" });
    expect(await w.err(w.owner, "post_types_update", { siteId: w.siteA, id: p1.id, slug: "podcast" })).toStartWith(
      "Conflict",
    );
    expect(await w.err(w.owner, "post_types_update", { siteId: w.siteA, id: 999_999, name: "x" })).toStartWith(
      "Not found",
    );
    expect(await w.err(w.owner, "post_types_list", { siteId: w.siteA, offset: -1 })).toStartWith("Invalid arguments");
    expect(await w.err(w.owner, "categories_list", { siteId: w.siteA, search: "x".repeat(201) })).toStartWith(
      "Invalid arguments",
    );
  });
});

describe("security", () => {
  test("another company's terms and types cannot be read or changed, through their site or mine", async () => {
    const cat = await w.ok(w.stranger, "categories_create", { siteId: w.siteB, name: "Rival category" });
    const tag = await w.ok(w.stranger, "tags_create", { siteId: w.siteB, name: "Rival tag" });
    const type = await w.ok(w.stranger, "post_types_create", { siteId: w.siteB, name: "Rival type" });
    const before = w.changes();
    for (const [tool, args] of [
      ["categories_list", { siteId: w.siteB }],
      ["categories_get", { siteId: w.siteA, id: cat.id }],
      ["categories_update", { siteId: w.siteA, id: cat.id, name: "Mine now" }],
      ["categories_delete", { siteId: w.siteA, id: cat.id }],
      ["tags_update", { siteId: w.siteA, id: tag.id, name: "Mine now" }],
      ["tags_delete", { siteId: w.siteB, id: tag.id }],
      ["post_types_update", { siteId: w.siteA, id: type.id, name: "Mine" }],
      ["post_types_delete", { siteId: w.siteA, id: type.id }],
    ] as const) {
      const msg = await w.err(w.owner, tool, args as Record<string, unknown>);
      expect(msg).toStartWith("Not found");
      expect(msg).not.toContain("Rival");
    }
    expect(w.changes()).toBe(before);
  });

  test("viewers cannot write; hostile names are stored as text", async () => {
    await w.ok(w.viewer, "whoami");
    const before = w.changes();
    expect(await w.err(w.viewer, "tags_create", { siteId: w.siteA, name: "nope" })).toContain("viewer");
    expect(w.changes()).toBe(before);
    const evil = `<img src=x onerror=alert(1)>'; DELETE FROM tags;--`;
    const t = await w.ok(w.owner, "tags_create", { siteId: w.siteA, name: evil });
    expect(t.name).toBe(evil);
    expect(t.slug).toBe("img-src-x-onerror-alert-1-delete-from-tags");
  });
});
