import { row, rows, testMediaConfig } from "../harness";
/**
 * The demo seed, checked at the database: it must hold every case the REST
 * API has a rule for, valid block content, media rows backed by real files
 * (named, sized and referenced exactly as uploads are), and credentials whose
 * hashes are what is stored. Seeds a fresh in-memory store (real migrations)
 * with a temporary data dir for the files.
 */
import { catalog } from "../../src/catalog";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, isNull } from "drizzle-orm";
import { loadConfig } from "../../src/config";
import { ManualClock } from "../../src/core/clock";
import type { Deps } from "../../src/core/context";
import { openBlobStore } from "../../src/core/blobs";
import { openTestStore } from "../db";
import { AppError } from "../../src/core/errors";
import { hasShape, KEY_PREFIX, sha256Hex } from "../../src/core/secrets";
import * as t from "../tables";
import { validateContent } from "../../src/domains/blocks/validate";
import { getBlockDefinition, type Block } from "../../src/domains/blocks/catalog";
import { orderTotals } from "../../src/domains/store/pricing";
import { fitWithin, THUMB_MAX } from "../../src/domains/cms/media-image";
import { demoSiteIds, isEmpty, seedDemo, type DemoCredentials } from "../../db/seed/demo";
import { mapSeq } from "../../src/core/maybe";
import { checkDefinitions, checkFieldValues, definitionsOf } from "../../src/domains/cms/custom-fields";

const NOW = new Date("2031-03-15T12:00:00Z");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function freshDeps(): Promise<Deps> {
  const store = await openTestStore();
  const dataDir = mkdtempSync(join(tmpdir(), "plinth-seed-data-"));
  dirs.push(dataDir);
  // The media store this run tests (the data dir on SQLite, the database on PostgreSQL, or S3).
  const config = { ...loadConfig({ "data-dir": dataDir }, {}), ...(await testMediaConfig(store.engine === "pg")) };
  return {
    store,
    db: store.db,
    config,
    clock: new ManualClock(NOW),
    redis: null,
    blobs: openBlobStore({ config, store }),
    catalog,
  };
}

/** Every key in a media store, sorted. */
async function storedKeys(d: Deps): Promise<string[]> {
  const out: string[] = [];
  for await (const k of d.blobs.keys()) out.push(k);
  return out.sort();
}

/** Every file under a directory, relative paths, sorted. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(join(dir, f)).isFile()).sort();
}

let deps: Deps;
let creds: DemoCredentials;
let ids: Awaited<ReturnType<typeof demoSiteIds>>;
const HEX = /^#[0-9a-f]{6}$/i;

beforeAll(async () => {
  deps = await freshDeps();
  expect(await isEmpty(deps)).toBe(true);
  creds = await seedDemo(deps);
  ids = await demoSiteIds(deps);
});

describe("demo seed: accounts and credentials", () => {
  test("credentials have the right shapes and only their hashes are stored", async () => {
    expect(hasShape(creds.restKey, KEY_PREFIX.rest)).toBe(true);
    expect(hasShape(creds.mcpKey, KEY_PREFIX.mcp)).toBe(true);
    expect(creds.email).toBe("demo@plinth.dev");
    expect(creds.password.length).toBeGreaterThanOrEqual(16);
    expect(creds.siteId).toBe(ids.store!);

    const rest = await deps.db.select().from(t.restKeys);
    expect(rest).toHaveLength(1);
    expect(rest[0]!.siteId).toBe(creds.siteId);
    expect(rest[0]!.secretHash).toBe(sha256Hex(creds.restKey));
    expect(creds.restKey.startsWith(rest[0]!.hint)).toBe(true);

    const user = (await deps.db.select().from(t.users).where(eq(t.users.email, creds.email)).limit(1))[0]!;
    const mcp = await deps.db.select().from(t.mcpKeys);
    expect(mcp).toHaveLength(1);
    expect(mcp[0]!.secretHash).toBe(sha256Hex(creds.mcpKey));
    expect(mcp[0]!.userId).toBe(user.id);
    expect(mcp[0]!.scopes).toEqual(["*"]);
    const companies = await deps.db.select().from(t.companies);
    expect([...mcp[0]!.companyIds].sort()).toEqual(companies.map((c) => c.id).sort());

    // No plaintext secret anywhere in the database file.
    const dump = JSON.stringify(await rows(deps, "SELECT * FROM rest_keys, mcp_keys, users"));
    expect(dump).not.toContain(creds.restKey.slice(9));
    expect(dump).not.toContain(creds.mcpKey.slice(8));
    expect(dump).not.toContain(creds.password);

    expect(user.passwordHash).toStartWith("$argon2id$");
    expect(await Bun.password.verify(creds.password, user.passwordHash!)).toBe(true);
    expect(await Bun.password.verify(creds.password + "x", user.passwordHash!)).toBe(false);
  });

  test("the demo user owns one company and administers the other; a viewer exists", async () => {
    const companies = await deps.db.select().from(t.companies);
    expect(companies.map((c) => c.name)).toContain("Northwind Studio");
    expect(companies.length).toBeGreaterThanOrEqual(2);
    const demo = (await deps.db.select().from(t.users).where(eq(t.users.email, "demo@plinth.dev")).limit(1))[0]!;
    const roles = await deps.db.select().from(t.memberships).where(eq(t.memberships.userId, demo.id));
    expect(roles.map((r) => r.role).sort()).toEqual(["admin", "owner"]);
    const owned = roles.find((r) => r.role === "owner")!;
    expect(companies.find((c) => c.id === owned.companyId)!.name).toBe("Northwind Studio");
    const viewers = await deps.db.select().from(t.memberships).where(eq(t.memberships.role, "viewer"));
    expect(viewers.length).toBeGreaterThan(0);
    expect(viewers.every((v) => v.userId !== demo.id)).toBe(true);
  });
});

describe("demo seed: sites and stores", () => {
  test("two active sites with and without an enabled store, one with no store row, one inactive", async () => {
    const all = await deps.db.select().from(t.sites);
    const storesRows = await deps.db.select().from(t.stores);
    const site = (id: number | null) => all.find((s) => s.id === id)!;
    const store = (id: number | null) => storesRows.find((s) => s.siteId === id);
    expect(all.filter((s) => s.active).length).toBeGreaterThanOrEqual(2);
    expect(site(ids.store).active).toBe(true);
    expect(store(ids.store)!.enabled).toBe(true);
    expect(site(ids.storeDisabled).active).toBe(true);
    expect(store(ids.storeDisabled)!.enabled).toBe(false);
    expect(site(ids.noStore).active).toBe(true);
    expect(store(ids.noStore)).toBeUndefined();
    expect(site(ids.inactive).active).toBe(false);
    // Sites belong to companies; the demo user reaches all of them.
    const companyIds = new Set((await deps.db.select().from(t.companies)).map((c) => c.id));
    for (const s of all) expect(companyIds.has(s.companyId)).toBe(true);
    expect(new Set(all.map((s) => s.companyId)).size).toBe(2);
  });
});

describe("demo seed: content", () => {
  test("at least 40 posts over page, blog and case-study, with drafts and spread dates", async () => {
    const rows = await deps.db
      .select({ post: t.posts, type: t.postTypes.slug })
      .from(t.posts)
      .innerJoin(t.postTypes, eq(t.posts.postTypeId, t.postTypes.id));
    expect(rows.length).toBeGreaterThanOrEqual(40);
    const store = rows.filter((r) => r.post.siteId === ids.store);
    expect(new Set(store.map((r) => r.type))).toEqual(new Set(["page", "blog", "case-study"]));
    expect(store.filter((r) => r.post.published).length).toBeGreaterThan(20); // more than one page of 20
    for (const type of ["page", "blog", "case-study"]) {
      expect(store.some((r) => r.type === type && r.post.published)).toBe(true);
      expect(store.some((r) => r.type === type && !r.post.published)).toBe(true);
    }
    for (const { post } of rows) {
      if (post.published) {
        expect(post.status).toBe("published");
        // Served since a past instant, or scheduled: approved and waiting for a future one.
        if (post.awaitingGoLive) expect(post.publishedAt!.getTime()).toBeGreaterThan(NOW.getTime());
        else expect(post.publishedAt!.getTime()).toBeLessThan(NOW.getTime());
      } else {
        expect(post.status).toBe("draft");
        expect(post.publishedAt).toBeNull();
      }
    }
    const days = new Set(
      store.filter((r) => r.post.publishedAt).map((r) => Math.floor(r.post.publishedAt!.getTime() / 86_400_000)),
    );
    expect(days.size).toBeGreaterThan(15);
    // One scheduled post, and its site's next instant is the one it waits for.
    const scheduled = store.filter((r) => r.post.awaitingGoLive);
    expect(scheduled.map((r) => r.post.slug)).toEqual(["winter-blend-first-roast"]);
    const site = (await deps.db.select().from(t.sites).where(eq(t.sites.id, ids.store!)))[0]!;
    expect(site.nextScheduledAt?.getTime()).toBe(scheduled[0]!.post.publishedAt!.getTime());
    // A case study with a history of approved versions, the newest equal to the post as it is.
    const hotel = store.find((r) => r.post.slug === "harbor-lights-hotel")!.post;
    const versions = await deps.db
      .select()
      .from(t.postVersions)
      .where(eq(t.postVersions.postId, hotel.id))
      .orderBy(t.postVersions.version);
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3]);
    expect(versions.every((v) => v.siteId === hotel.siteId && v.approvedBy)).toBe(true);
    const newest = versions[2]!.snapshot as { title: string; excerpt: string; content: unknown };
    expect([newest.title, newest.excerpt]).toEqual([hotel.title, hotel.excerpt!]);
    expect(newest.content).toEqual(hotel.content);
    expect((versions[0]!.snapshot as { excerpt: string }).excerpt).not.toBe(hotel.excerpt);
    expect(versions[0]!.createdAt.getTime()).toBe(hotel.publishedAt!.getTime());
    expect((versions[2]!.snapshot as { fields: unknown }).fields).toEqual(hotel.fields);
    expect((versions[0]!.snapshot as { fields: { results?: unknown } }).fields.results).toBeUndefined();
    // Case studies have custom fields (client, industry, results), and every case study's values pass the write checks.
    for (const siteId of new Set(rows.filter((r) => r.type === "case-study").map((r) => r.post.siteId))) {
      const type = (
        await deps.db
          .select()
          .from(t.postTypes)
          .where(and(eq(t.postTypes.siteId, siteId), eq(t.postTypes.slug, "case-study")))
      )[0]!;
      const defs = checkDefinitions(definitionsOf(type));
      expect(defs.map((d) => d.name)).toEqual(["client", "industry", "results", "featured"]);
      for (const { post } of rows.filter((r) => r.type === "case-study" && r.post.siteId === siteId))
        expect(await checkFieldValues(deps.db, siteId, "case-study", defs, post.fields ?? {})).toEqual(post.fields!);
    }
    expect((hotel.fields as { results: string[] }).results.length).toBeGreaterThan(1);
    const times = store.filter((r) => r.post.publishedAt).map((r) => r.post.publishedAt!.getTime());
    expect(new Set(times).size).toBe(times.length);
    // A child page, SEO fields, noIndex and a title with a LIKE wildcard character.
    expect(
      store.some((r) => r.post.parentPostId !== null && store.some((p) => p.post.id === r.post.parentPostId)),
    ).toBe(true);
    expect(store.some((r) => r.post.seoTitle && r.post.ogImage)).toBe(true);
    expect(store.some((r) => r.post.noIndex === true)).toBe(true);
    expect(store.some((r) => r.post.title.includes("%"))).toBe(true);
    // Slugs unique per site.
    expect(new Set(store.map((r) => r.post.slug)).size).toBe(store.length);
  });

  test("every post's content passes validateContent and is multi-block", async () => {
    const rows = await deps.db.select().from(t.posts);
    let total = 0;
    for (const p of rows) {
      const r = validateContent(p.content);
      if (!r.ok) throw new Error(`${p.slug}: ${JSON.stringify(r.errors)}`);
      expect(r.value).toEqual(p.content as any); // stored in normalised form
      expect(p.content!.blocks.length).toBeGreaterThanOrEqual(1);
      total += p.content!.blocks.length;
    }
    expect(total / rows.length).toBeGreaterThan(3);
    // Between them the posts use every category of block.
    const cats = new Set<string>();
    const walk = (bs: Block[]) =>
      bs.forEach((b) => (cats.add(getBlockDefinition(b.type)!.category), walk(b.children ?? [])));
    for (const p of rows) walk(p.content!.blocks as Block[]);
    expect(cats).toEqual(new Set(["basic", "layout", "component", "media", "ecommerce"]));
  });

  test("store blocks in posts point at products and categories that exist", async () => {
    const slugs = new Set(
      (await deps.db.select({ s: t.products.slug }).from(t.products).where(eq(t.products.siteId, ids.store!))).map(
        (r) => r.s,
      ),
    );
    const cats = new Set(
      (
        await deps.db
          .select({ s: t.productCategories.slug })
          .from(t.productCategories)
          .where(eq(t.productCategories.siteId, ids.store!))
      ).map((r) => r.s),
    );
    const posts = await deps.db.select().from(t.posts).where(eq(t.posts.siteId, ids.store!));
    let refs = 0;
    const walk = (bs: Block[]) =>
      bs.forEach((b) => {
        if (typeof b.props.productSlug === "string") refs++, expect(slugs.has(b.props.productSlug)).toBe(true);
        for (const slug of (b.props.productSlugs as string[] | undefined) ?? [])
          refs++, expect([slug, slugs.has(slug)]).toEqual([slug, true]);
        if (typeof b.props.categorySlug === "string") refs++, expect(cats.has(b.props.categorySlug)).toBe(true);
        walk(b.children ?? []);
      });
    for (const p of posts) walk(p.content!.blocks as Block[]);
    expect(refs).toBeGreaterThan(5);
  });

  test("at least 8 coloured categories and 12 tags, attached to posts", async () => {
    const cats = await deps.db.select().from(t.categories).where(eq(t.categories.siteId, ids.store!));
    expect(cats.filter((c) => c.color && HEX.test(c.color)).length).toBeGreaterThanOrEqual(8);
    expect(cats.every((c) => c.color === null || HEX.test(c.color))).toBe(true);
    const tagRows = await deps.db.select().from(t.tags).where(eq(t.tags.siteId, ids.store!));
    expect(tagRows.length).toBeGreaterThanOrEqual(12);
    const catLinks = await deps.db.select().from(t.postCategories);
    const tagLinks = await deps.db.select().from(t.postTags);
    expect(new Set(catLinks.map((l) => l.categoryId)).size).toBeGreaterThanOrEqual(8);
    expect(new Set(tagLinks.map((l) => l.tagId)).size).toBeGreaterThanOrEqual(12);
    // Links never cross sites.
    const postSite = new Map((await deps.db.select().from(t.posts)).map((p) => [p.id, p.siteId]));
    const catSite = new Map((await deps.db.select().from(t.categories)).map((c) => [c.id, c.siteId]));
    const tagSite = new Map((await deps.db.select().from(t.tags)).map((c) => [c.id, c.siteId]));
    for (const l of catLinks) expect(catSite.get(l.categoryId)).toBe(postSite.get(l.postId)!);
    for (const l of tagLinks) expect(tagSite.get(l.tagId)).toBe(postSite.get(l.postId)!);
  });

  test("at least 30 media items of several MIME types, with dimensions and spread times", async () => {
    const items = await deps.db.select().from(t.media).where(eq(t.media.siteId, ids.store!));
    expect(items.length).toBeGreaterThanOrEqual(30);
    const types = new Set(items.map((m) => m.mimeType));
    for (const mt of ["image/jpeg", "image/png", "image/svg+xml", "video/mp4", "application/pdf"])
      expect(types.has(mt)).toBe(true);
    for (const m of items) {
      if (m.mimeType.startsWith("image/") || m.mimeType.startsWith("video/")) {
        expect(m.width).toBeGreaterThan(0);
        expect(m.height).toBeGreaterThan(0);
        expect(m.alt).toBeTruthy();
      } else {
        expect(m.width).toBeNull();
      }
      expect(m.createdAt.getTime()).toBeLessThanOrEqual(NOW.getTime());
    }
    expect(new Set(items.map((m) => m.createdAt.getTime())).size).toBe(items.length);
    expect(items.some((m) => m.caption)).toBe(true);
  });

  test("every media item is a stored file, named, sized and thumbnailed as an upload would be", async () => {
    const items = await deps.db.select().from(t.media);
    const onDisk = new Set(await storedKeys(deps));
    const EXT: Record<string, string> = {
      "image/jpeg": "jpg",
      "image/png": "png",
      "image/svg+xml": "svg",
      "video/mp4": "mp4",
      "application/pdf": "pdf",
    };
    const expectedFiles = new Set<string>();
    for (const m of items) {
      // The upload's shapes: <siteId>/<24 hex>.<ext>, served at /media/<key> (relative: immune to public URL changes).
      expect(m.storageKey).toMatch(new RegExp(`^${m.siteId}/[0-9a-f]{24}\\.${EXT[m.mimeType]}$`));
      expect(m.url).toBe(`/media/${m.storageKey}`);
      expect(onDisk.has(m.storageKey!)).toBe(true);
      expectedFiles.add(m.storageKey!);
      expect(m.sizeBytes).toBe((await deps.blobs.head(m.storageKey!))!.size);
      const base = m.storageKey!.replace(/\.[a-z0-9]+$/, "");
      const big = m.width !== null && Math.max(m.width, m.height!) > THUMB_MAX;
      if ((m.mimeType === "image/jpeg" || m.mimeType === "image/png") && big) {
        // Large JPEG/PNG: a reduced copy in the same format, like makeThumbnail's.
        expect(m.thumbnailUrl).toBe(`/media/${base}.thumb.${EXT[m.mimeType]}`);
      } else if (m.mimeType.startsWith("image/")) {
        expect(m.thumbnailUrl).toBe(m.url); // small images and SVG show themselves
      } else if (m.mimeType === "video/mp4") {
        expect(m.thumbnailUrl).toBe(`/media/${base}.thumb.jpg`); // a poster frame
      } else {
        expect(m.thumbnailUrl).toBeNull();
      }
      if (m.thumbnailUrl && m.thumbnailUrl !== m.url) {
        const key = m.thumbnailUrl.slice("/media/".length);
        expect(onDisk.has(key)).toBe(true);
        expectedFiles.add(key);
      }
    }
    // Besides the media: the ticket files the demo's tickets carry (test/tickets/seed.test.ts reads them).
    for (const a of await rows(deps, "SELECT storage_key FROM ticket_attachments")) {
      expect(onDisk.has(a.storage_key)).toBe(true);
      expectedFiles.add(a.storage_key);
    }
    // Nothing else was written.
    expect([...onDisk].sort()).toEqual([...expectedFiles].sort());
    expect(items.some((m) => m.thumbnailUrl?.includes(".thumb."))).toBe(true);
    expect(fitWithin(720, 480)).toEqual({ width: 400, height: 267 }); // the thumbnail size the rows imply
  });

  test("every media reference in the data is a stored file's URL; no placeholder is left", async () => {
    const mediaRows = await deps.db.select().from(t.media);
    const known = new Set(mediaRows.flatMap((m) => [m.url, m.thumbnailUrl]).filter(Boolean));
    const tables = [
      "posts",
      "product_images",
      "product_variants",
      "product_categories",
      "brand_profiles",
      "nav_items",
      "block_templates",
    ];
    const dump = (await mapSeq(tables, async (tb) => JSON.stringify(await rows(deps, `SELECT * FROM ${tb}`)))).join(
      "\n",
    );
    expect(dump).not.toContain("/media/demo/");
    const refs = [...dump.matchAll(/\/media\/[^"\\\s)]+/g)].map((m) => m[0]);
    expect(refs.length).toBeGreaterThan(60);
    for (const r of refs) expect(known.has(r)).toBe(true);
    // Each kind of holder shows at least one file.
    const b = (await deps.db.select().from(t.brandProfiles).where(eq(t.brandProfiles.siteId, ids.store!)).limit(1))[0]!
      .data as Record<string, string>;
    for (const k of ["logoUrl", "logoSquareUrl", "logoRectUrl", "logoIconUrl", "faviconUrl", "ogImageUrl"])
      expect(known.has(b[k]!)).toBe(true);
    expect((await deps.db.select().from(t.navItems)).some((n) => n.featuredImage && known.has(n.featuredImage))).toBe(
      true,
    );
    expect((await deps.db.select().from(t.productVariants)).some((v) => v.image && known.has(v.image))).toBe(true);
    expect((await deps.db.select().from(t.productCategories)).some((c) => c.image && known.has(c.image))).toBe(true);
    const posts = await deps.db.select().from(t.posts);
    expect(posts.filter((p) => p.coverImage).every((p) => known.has(p.coverImage!))).toBe(true);
    expect(posts.some((p) => p.siteId === ids.storeDisabled && p.coverImage)).toBe(true);
  });

  test("image blocks that give a size give the file's real size", async () => {
    const byUrl = new Map((await deps.db.select().from(t.media)).map((m) => [m.url, m]));
    let sized = 0;
    const walk = (bs: Block[]) =>
      bs.forEach((b) => {
        if (b.type === "image" && b.props.width !== undefined) {
          const m = byUrl.get(b.props.src as string)!;
          expect([b.props.width, b.props.height]).toEqual([m.width, m.height]);
          sized++;
        }
        walk(b.children ?? []);
      });
    for (const p of await deps.db.select().from(t.posts)) walk(p.content!.blocks as Block[]);
    expect(sized).toBeGreaterThan(4);
  });
});

describe("demo seed: store", () => {
  test("at least 25 products, including inactive and draft, featured, on sale and uncategorised", async () => {
    const ps = await deps.db.select().from(t.products).where(eq(t.products.siteId, ids.store!));
    expect(ps.length).toBeGreaterThanOrEqual(25);
    expect(ps.filter((p) => p.status === "active").length).toBeGreaterThanOrEqual(20);
    expect(ps.some((p) => p.status === "inactive")).toBe(true);
    expect(ps.some((p) => p.status === "draft")).toBe(true);
    expect(ps.some((p) => p.featured && p.status === "active")).toBe(true);
    expect(ps.some((p) => p.compareAtPrice !== null && p.compareAtPrice > p.price)).toBe(true);
    expect(ps.some((p) => p.categoryId === null && p.status === "active")).toBe(true);
    expect(ps.some((p) => p.metadata !== null && p.tags && p.tags.length > 0)).toBe(true);
    for (const p of ps) expect(Number.isInteger(p.price)).toBe(true);
  });

  test("images are ordered, options have labelled values, variants map to option values, some inactive", async () => {
    const images = await deps.db.select().from(t.productImages);
    expect(images.length).toBeGreaterThan(15);
    const byProduct = Map.groupBy(images, (i) => i.productId);
    expect([...byProduct.values()].some((list) => list.length > 1)).toBe(true);
    for (const list of byProduct.values()) expect(list.map((i) => i.order).sort()).toEqual(list.map((_, i) => i));

    const options = await deps.db.select().from(t.productOptions);
    const values = await deps.db.select().from(t.productOptionValues);
    expect(options.some((o) => o.name === "Size")).toBe(true);
    expect(options.some((o) => o.name === "Grind")).toBe(true);
    expect(values.some((v) => v.value === "1kg" && v.label === "1 kg")).toBe(true);
    expect(values.some((v) => v.label === null)).toBe(true);

    const variants = await deps.db.select().from(t.productVariants);
    expect(variants.some((v) => !v.active)).toBe(true);
    const optionProduct = new Map(options.map((o) => [o.id, o.productId]));
    const valueOption = new Map(values.map((v) => [v.id, v.optionId]));
    for (const v of variants) {
      expect(v.optionValues.length).toBe(options.filter((o) => o.productId === v.productId).length);
      for (const ov of v.optionValues) {
        expect(optionProduct.get(ov.optionId)).toBe(v.productId);
        expect(valueOption.get(ov.valueId)).toBe(ov.optionId);
      }
    }
    // No two variants of a product share a combination.
    const keys = variants.map((v) => `${v.productId}:${v.optionValues.map((o) => o.valueId).join(",")}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test("bulk pricing rules of both kinds, product-wide and per variant", async () => {
    const rules = await deps.db.select().from(t.bulkPricingRules);
    const fixed = rules.filter((r) => r.priceType === "fixed");
    const pct = rules.filter((r) => r.priceType === "percent_off");
    expect(fixed.length).toBeGreaterThan(0);
    expect(pct.length).toBeGreaterThan(0);
    expect(pct.every((r) => r.amount > 0 && r.amount < 10000)).toBe(true);
    expect(rules.some((r) => r.variantId !== null)).toBe(true);
    expect(rules.some((r) => r.maxQuantity !== null)).toBe(true);
  });

  test("a product category tree at least two levels deep, with inactive categories and uncategorised products", async () => {
    const cats = await deps.db.select().from(t.productCategories).where(eq(t.productCategories.siteId, ids.store!));
    const byId = new Map(cats.map((c) => [c.id, c]));
    const depth = (c: (typeof cats)[number]): number => (c.parentId === null ? 1 : 1 + depth(byId.get(c.parentId)!));
    expect(Math.max(...cats.map(depth))).toBeGreaterThanOrEqual(3);
    expect(cats.some((c) => !c.active && c.parentId === null)).toBe(true);
    expect(cats.some((c) => !c.active && c.parentId !== null && byId.get(c.parentId)!.active)).toBe(true);
    const products = await deps.db.select().from(t.products).where(eq(t.products.siteId, ids.store!));
    const used = new Set(products.map((p) => p.categoryId));
    expect(cats.filter((c) => used.has(c.id)).length).toBeGreaterThan(5);
  });

  test("orders add up using the store's pricing rules; customers, discounts, reviews, messages exist", async () => {
    const orders = await deps.db.select().from(t.orders).where(eq(t.orders.siteId, ids.store!));
    expect(orders.length).toBeGreaterThanOrEqual(3);
    const items = await deps.db.select().from(t.orderItems);
    for (const o of orders) {
      const lines = items.filter((i) => i.orderId === o.id);
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) expect(l.lineTotal).toBe(l.unitPrice * l.quantity);
      expect(o.subtotal).toBe(lines.reduce((a, l) => a + l.lineTotal, 0));
      expect(o.total).toBe(o.subtotal - o.discountTotal);
      if (o.discountId) {
        const d = (await deps.db.select().from(t.discounts).where(eq(t.discounts.id, o.discountId)).limit(1))[0]!;
        expect(orderTotals(lines, d).discountTotal).toBe(o.discountTotal);
      }
    }
    expect(orders.some((o) => o.discountTotal > 0)).toBe(true);
    // A bulk rule really applied somewhere: some line is priced below its variant's price.
    const variants = new Map((await deps.db.select().from(t.productVariants)).map((v) => [v.id, v]));
    expect(items.some((i) => i.variantId && i.unitPrice < variants.get(i.variantId)!.price)).toBe(true);
    // Each line records its list price and the rule that applied, and each coded order the code's terms, as orders_create does.
    const storeItems = items.filter((i) => orders.some((o) => o.id === i.orderId));
    for (const l of storeItems) {
      expect(l.listPrice).toEqual(l.variantId ? variants.get(l.variantId)!.price : expect.any(Number));
      expect(l.bulkRule === null ? l.unitPrice === l.listPrice : l.unitPrice < l.listPrice!).toBe(true);
    }
    const ruleIds = new Set((await deps.db.select().from(t.bulkPricingRules)).map((r) => r.id));
    expect(storeItems.filter((l) => l.bulkRule).every((l) => ruleIds.has(l.bulkRule!.id))).toBe(true);
    expect(storeItems.some((l) => l.bulkRule)).toBe(true);
    for (const o of orders.filter((o) => o.discountId))
      expect([o.discountCode, o.discountKind, o.discountAmount]).toEqual([
        expect.any(String),
        expect.any(String),
        expect.any(Number),
      ]);
    expect((await deps.db.select().from(t.customers)).length).toBeGreaterThanOrEqual(3);
    const discounts = await deps.db.select().from(t.discounts);
    expect(new Set(discounts.map((d) => d.kind))).toEqual(new Set(["percent", "fixed"]));
    const reviews = await deps.db.select().from(t.reviews);
    expect(new Set(reviews.map((r) => r.status))).toEqual(new Set(["approved", "pending", "hidden"]));
    const msgs = await deps.db.select().from(t.customerMessages);
    const replies = await deps.db.select().from(t.customerMessageReplies);
    expect(msgs.length).toBeGreaterThan(0);
    expect(replies.some((r) => r.author === "staff")).toBe(true);
  });
});

describe("demo seed: branding, navigation, services", () => {
  test("the store site has the full Branding object", async () => {
    const b = (await deps.db.select().from(t.brandProfiles).where(eq(t.brandProfiles.siteId, ids.store!)).limit(1))[0]!
      .data as any;
    for (const k of [
      "primaryColor",
      "secondaryColor",
      "accentColor",
      "backgroundColor",
      "textColor",
      "navBackground",
      "navTextColor",
      "linkColor",
      "linkHoverColor",
    ])
      expect(b[k]).toMatch(HEX);
    for (const k of [
      "headingFont",
      "bodyFont",
      "logoUrl",
      "logoSquareUrl",
      "logoRectUrl",
      "logoIconUrl",
      "logoText",
      "logoAlt",
      "navTemplate",
      "navPosition",
      "borderRadius",
      "faviconUrl",
      "ogImageUrl",
    ])
      expect(typeof b[k]).toBe("string");
    expect(Object.keys(b.buttonStyle).sort()).toEqual([
      "borderRadius",
      "primaryBg",
      "primaryHoverBg",
      "primaryText",
      "secondaryBg",
      "secondaryHoverBg",
      "secondaryText",
      "variant",
    ]);
    expect(b.buttonPresets.length).toBeGreaterThanOrEqual(2);
    for (const p of b.buttonPresets) {
      expect(p.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      for (const k of [
        "name",
        "backgroundColor",
        "color",
        "borderRadius",
        "fontWeight",
        "textTransform",
        "paddingX",
        "paddingY",
      ])
        expect(typeof p[k]).toBe("string");
    }
    expect(Object.keys(b.typography).sort()).toEqual(["body", "h1", "h2", "h3", "h4", "h5", "h6"]);
    for (const v of Object.values(b.typography) as any[])
      expect(Object.keys(v).sort()).toEqual(["font", "letterSpacing", "lineHeight", "size", "weight"]);
    expect(Object.keys(b.darkMode).sort()).toEqual([
      "backgroundColor",
      "navBackground",
      "navTextColor",
      "primaryColor",
      "textColor",
    ]);
    // Every value in the whole object is a string (the spec's Branding has no other leaf type).
    const leaves = (o: unknown): unknown[] => (o && typeof o === "object" ? Object.values(o).flatMap(leaves) : [o]);
    expect(leaves(b).every((x) => typeof x === "string")).toBe(true);
    expect(
      (await deps.db.select().from(t.brandMessaging).where(eq(t.brandMessaging.siteId, ids.store!)).limit(1))[0]!
        .tagline,
    ).toBeTruthy();
    // Preset ids are stable across seeds (not random).
    expect(b.buttonPresets[0].id).toBe("3f1c2a8e-6b4d-4c1e-9a7f-2d5e8b1c0a11");
  });

  test("navigation nests two levels with buttons, new-tab links and mega-menu fields", async () => {
    const nav = await deps.db.select().from(t.navItems).where(eq(t.navItems.siteId, ids.store!));
    const roots = nav.filter((n) => n.parentId === null);
    const children = nav.filter((n) => n.parentId !== null);
    expect(roots.length).toBeGreaterThanOrEqual(4);
    expect(children.length).toBeGreaterThanOrEqual(6);
    const byId = new Map(nav.map((n) => [n.id, n]));
    for (const c of children) expect(byId.get(c.parentId!)!.parentId).toBeNull();
    expect(nav.some((n) => n.isButton)).toBe(true);
    expect(nav.some((n) => n.openInNewTab)).toBe(true);
    expect(children.some((n) => n.description && n.icon && n.featuredImage && n.columnGroup !== null)).toBe(true);
    // Inserted out of sortOrder, so readers must sort.
    const order = roots.map((r) => r.sortOrder);
    expect(order).not.toEqual([...order].sort((a, b) => a - b));
  });

  test("each company has a service catalogue", async () => {
    for (const c of await deps.db.select().from(t.companies)) {
      const rows = await deps.db.select().from(t.serviceCatalog).where(eq(t.serviceCatalog.companyId, c.id));
      expect(rows.length).toBeGreaterThanOrEqual(2);
    }
    expect(
      (
        await deps.db
          .select()
          .from(t.serviceCatalog)
          .where(and(eq(t.serviceCatalog.active, false)))
      ).length,
    ).toBeGreaterThan(0);
    expect(
      (await deps.db.select().from(t.serviceCatalog).where(isNull(t.serviceCatalog.priceCents))).length,
    ).toBeGreaterThan(0);
  });
});

describe("demo seed: behaviour", () => {
  test("is deterministic apart from the secrets", async () => {
    const other = await freshDeps();
    const c2 = await seedDemo(other);
    expect(c2.restKey).not.toBe(creds.restKey);
    expect(c2.mcpKey).not.toBe(creds.mcpKey);
    for (const table of [
      "posts",
      "media",
      "products",
      "product_variants",
      "bulk_pricing_rules",
      "nav_items",
      "brand_profiles",
      "orders",
      "product_categories",
    ]) {
      const dump = async (d: Deps) => JSON.stringify(await rows(d, `SELECT * FROM ${table} ORDER BY 1`));
      expect(await dump(other)).toBe(await dump(deps));
    }
    other.store.close();
  });

  test("a refused seed writes no files; a failed file write leaves no rows", async () => {
    // Refused: a store with a site already.
    const busy = await freshDeps();
    const company = (await busy.db.insert(t.companies).values({ name: "Someone else", createdAt: NOW }).returning())[0];
    await busy.db
      .insert(t.sites)
      .values({ companyId: company.id, name: "Theirs", subdomain: "theirs", createdAt: NOW, updatedAt: NOW });
    await expect(seedDemo(busy)).rejects.toThrow("already has sites");
    expect(filesUnder(busy.config.dataDir)).toEqual([]);
    expect(await storedKeys(busy)).toEqual([]);
    busy.store.close();

    // Failed: a file cannot be written halfway through; the rows roll back and the files written before it go.
    const failing = await freshDeps();
    // The real store underneath, with its fifth write failing.
    const real = failing.blobs;
    let puts = 0;
    failing.blobs = {
      kind: real.kind,
      async put(key, bytes, type) {
        if (++puts === 5) throw new Error("disk full");
        await real.put(key, bytes, type);
      },
      head: (k) => real.head(k),
      read: (k, r) => real.read(k, r),
      remove: (keys) => real.remove(keys),
      keys: (prefix) => real.keys(prefix),
    };
    await expect(seedDemo(failing)).rejects.toThrow("disk full");
    expect(puts).toBe(5);
    expect(await isEmpty(failing)).toBe(true);
    expect(await row(failing, "SELECT count(*) AS n FROM media")).toEqual({ n: 0 });
    expect(await storedKeys(failing)).toEqual([]);
    failing.store.close();

    if (deps.blobs.kind === "local") {
      // Failed: the media folder cannot be created (a file is in its way); the rows roll back.
      const blocked = await freshDeps();
      writeFileSync(join(blocked.config.dataDir, "media"), "not a folder");
      await expect(seedDemo(blocked)).rejects.toThrow();
      expect(await isEmpty(blocked)).toBe(true);
      expect(await row(blocked, "SELECT count(*) AS n FROM media")).toEqual({ n: 0 });
      expect(readFileSync(join(blocked.config.dataDir, "media"), "utf8")).toBe("not a folder");
      blocked.store.close();
    }
  });

  test("refuses to seed into a store that already has sites, and writes nothing", async () => {
    const before = (await row(deps, "SELECT count(*) AS n FROM users")) as { n: number };
    expect(await isEmpty(deps)).toBe(false);
    let err: unknown;
    try {
      await seedDemo(deps);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("conflict");
    expect(await row(deps, "SELECT count(*) AS n FROM users")).toEqual(before);
  });

  test("dates follow the injected clock", async () => {
    const other = await freshDeps();
    (other.clock as ManualClock).set(new Date("2040-01-01T00:00:00Z"));
    await seedDemo(other);
    const newest = { t: new Date((await row(other, "SELECT max(created_at) AS t FROM media"))!.t).getTime() };
    expect(newest.t).toBeLessThanOrEqual(Date.parse("2040-01-01T00:00:00Z"));
    expect(newest.t).toBeGreaterThan(Date.parse("2039-12-01T00:00:00Z"));
    other.store.close();
  });
});
