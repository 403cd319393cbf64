/**
 * The bundled demo: Northwind Studio (a small web agency) and its client
 * Harbor Coffee Roasters. Seeded into an empty data dir on first `serve`, and
 * by `plinth seed --demo`. docs/demo.md describes what is in it.
 *
 * The data is written to exercise every rule of the REST API (active and
 * inactive sites, an enabled, a disabled and a missing store, drafts,
 * inactive variants and products, both bulk-pricing kinds, a category tree
 * with inactive branches, nested navigation...) while reading like a real
 * business. The content files beside this one hold the data; this file
 * inserts it, in one transaction, with drizzle.
 *
 * Deterministic except for the secrets: the REST key, the MCP key and the
 * portal password are random and shown once; only their hashes are stored.
 */
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { DAY_MS, type Clock } from "../../src/core/clock";
import type { ActorContext, Deps } from "../../src/core/context";
import { conflict } from "../../src/core/errors";
import { KEY_PREFIX, mintSecret, randomHex } from "../../src/core/secrets";
import { companies, memberships, mcpKeys, users } from "../../src/domains/accounts/tables";
import { approvalSettings } from "../../src/domains/approvals/tables";
import { assertValidContent } from "../../src/domains/blocks/validate";
import { brandMessaging, brandProfiles } from "../../src/domains/branding/tables";
import {
  categories,
  media,
  navItems,
  postCategories,
  posts,
  postTags,
  postTypes,
  postVersions,
  tags,
} from "../../src/domains/cms/tables";
import type { VersionSnapshot } from "../../src/domains/cms/versions";
import { serviceCatalog } from "../../src/domains/services/tables";
import { restKeys, siteDomains, siteEnvVars, sites } from "../../src/domains/sites/tables";
import { orderTotals, unitPrice, type BulkRule } from "../../src/domains/store/pricing";
import {
  bulkPricingRules,
  customerMessageReplies,
  customerMessages,
  customers,
  discounts,
  orderItems,
  orders,
  productCategories,
  productImages,
  productOptions,
  productOptionValues,
  products,
  productVariants,
  reviews,
  stores,
} from "../../src/domains/store/tables";
import {
  HARBOR_BRANDING,
  HARBOR_MESSAGING,
  HARBOR_NAV,
  NORTHWIND_BRANDING,
  NORTHWIND_MESSAGING,
  NORTHWIND_NAV,
  SERVICES_FOR_HARBOR,
  SERVICES_FOR_NORTHWIND,
  type DemoNavItem,
  type DemoService,
} from "./demo-brand";
import { DEMO_MEDIA_PREFIX } from "./demo-blocks";
import { demoFiles, storedDemoFile, writeDemoFiles, type GeneratedFile, type StoredDemoFile } from "./demo-files";
import { HARBOR_MEDIA, NORTHWIND_MEDIA, type DemoMedia } from "./demo-media";
import {
  EVENTS_POSTS,
  HARBOR_CATEGORIES,
  HARBOR_POSTS,
  HARBOR_TAGS,
  NORTHWIND_CATEGORIES,
  NORTHWIND_POSTS,
  NORTHWIND_TAGS,
  RETIRED_POSTS,
  CASE_STUDY_FIELDS,
  type DemoCategory,
  type DemoPost,
} from "./demo-posts";
import { refreshNextScheduled } from "../../src/domains/cms/schedule";
import {
  CUSTOMERS,
  DISCOUNTS,
  MESSAGES,
  ORDERS,
  PRODUCT_CATEGORIES,
  PRODUCTS,
  REVIEWS,
  type DemoProduct,
} from "./demo-store";
import { mapSeq } from "../../src/core/maybe";
import type { DemoWorld } from "../../src/mcp/define";

export interface DemoCredentials {
  siteId: number;
  restKey: string;
  mcpKey: string;
  /**
   * The company the MCP key acts for by default (whoami's defaultClientId,
   * the lowest id it reaches): Harbor Coffee, which owns the REST key's site,
   * so the two printed keys are about the same data.
   */
  defaultCompany: { id: number; name: string };
  /** Every company the MCP key reaches, by id. */
  companies: { id: number; name: string }[];
  email: string;
  password: string;
}

export const DEMO_EMAIL = "demo@plinth.dev";
export const VIEWER_EMAIL = "viewer@plinth.dev";
/** Harbor's listed approval reviewer (no portal password): decides by a one-time code. */
export const DEMO_REVIEWER = "maya@harborcoffee.example";

/** No user, company or site yet: an install where people have started work (even without a site) is never seeded over. */
export async function isEmpty(deps: Deps): Promise<boolean> {
  for (const t of [users, companies, sites] as const)
    if ((await deps.db.select({ id: t.id }).from(t).limit(1)).length) return false;
  return true;
}

/**
 * The demo password and its argon2id hash, made once per process: hashing
 * costs ~150 ms, and the test suite seeds many data dirs in one process. A
 * `serve` process seeds at most once, so every real deployment still gets its
 * own random password.
 */
let passwordOnce: Promise<{ password: string; hash: string }> | undefined;
function demoPassword() {
  passwordOnce ??= (async () => {
    const password = `demo-${randomHex(8)}`;
    return { password, hash: await Bun.password.hash(password, { algorithm: "argon2id" }) };
  })();
  return passwordOnce;
}

type Tx = Parameters<Parameters<Deps["db"]["transaction"]>[0]>[0];
type At = (daysAgo: number, hoursAgo?: number) => Date;
/** Swaps `/media/demo/<file>` references for the stored files' URLs anywhere in a JSON value. */
type MediaRefs = <T>(value: T) => T;
type Placed = { stored: StoredDemoFile; file: GeneratedFile }[];

export async function seedDemo(deps: Deps): Promise<DemoCredentials> {
  // The hash runs on another thread while this one paints the media files.
  const hashing = demoPassword();
  // Made once per process (deterministic); each seed only writes them.
  const files = demoFiles([...HARBOR_MEDIA, ...NORTHWIND_MEDIA]);
  const { password, hash } = await hashing;
  const rest = mintSecret(KEY_PREFIX.rest);
  const mcp = mintSecret(KEY_PREFIX.mcp);
  const at = clockAt(deps.clock);

  const seeded = await deps.db.transaction(async (tx) => {
    if ((await tx.select({ id: sites.id }).from(sites).limit(1))[0])
      throw conflict("The data dir already has sites; the demo is only seeded into an empty one.");

    // --- people and companies ---
    const created = at(720);
    const user = async (v: typeof users.$inferInsert) =>
      (await tx.insert(users).values(v).returning({ id: users.id }))[0];
    const demoUser = await user({ email: DEMO_EMAIL, name: "Demo User", passwordHash: hash, createdAt: created });
    const viewer = await user({ email: VIEWER_EMAIL, name: "Sam Rivera", passwordHash: hash, createdAt: at(200) });
    const maya = await user({
      email: "maya@harborcoffee.example",
      name: "Maya Ortiz",
      passwordHash: null,
      createdAt: at(500),
    });
    const priya = await user({
      email: "priya@northwind.example",
      name: "Priya Shah",
      passwordHash: null,
      createdAt: at(650),
    });
    const leo = await user({
      email: "leo@northwind.example",
      name: "Leo Martin",
      passwordHash: null,
      createdAt: at(400),
    });
    // Harbor first: the MCP key's default company is the lowest id it reaches, and
    // the printed REST key is for Harbor's site, so both keys start on the same data.
    const harbor = (
      await tx
        .insert(companies)
        .values({ name: "Harbor Coffee Roasters", createdAt: at(500) })
        .returning({ id: companies.id })
    )[0];
    const northwind = (
      await tx
        .insert(companies)
        .values({ name: "Northwind Studio", createdAt: created })
        .returning({ id: companies.id })
    )[0];
    await tx.insert(memberships).values([
      { companyId: northwind.id, userId: demoUser.id, role: "owner", createdAt: created },
      { companyId: harbor.id, userId: demoUser.id, role: "admin", createdAt: at(500) },
      { companyId: harbor.id, userId: maya.id, role: "owner", createdAt: at(500) },
      { companyId: harbor.id, userId: viewer.id, role: "viewer", createdAt: at(200) },
      { companyId: northwind.id, userId: viewer.id, role: "viewer", createdAt: at(200) },
      { companyId: northwind.id, userId: priya.id, role: "admin", createdAt: at(650) },
      { companyId: northwind.id, userId: leo.id, role: "admin", createdAt: at(400) },
    ]);

    // --- sites ---
    const site = async (v: typeof sites.$inferInsert) =>
      (await tx.insert(sites).values(v).returning({ id: sites.id }))[0].id;
    const harborSite = await site({
      companyId: harbor.id,
      name: "Harbor Coffee Roasters",
      domain: "harborcoffee.example",
      subdomain: "harbor-coffee",
      description: "Small-batch coffee roasted on the waterfront, with a shop, brew guides and wholesale.",
      customLayout: { container: "1200px", header: "sticky", footer: { columns: 4, newsletter: true } },
      active: true,
      createdAt: at(480),
      updatedAt: at(3),
    });
    const northwindSite = await site({
      companyId: northwind.id,
      name: "Northwind Studio",
      domain: "northwind.example",
      subdomain: "northwind",
      description: "Websites small teams can run themselves.",
      active: true,
      createdAt: at(700),
      updatedAt: at(12),
    });
    const retiredSite = await site({
      companyId: harbor.id,
      name: "Harbor Coffee Wholesale (retired)",
      domain: null,
      subdomain: "harbor-wholesale",
      description: "The old trade ordering site, switched off when wholesale moved to the main site.",
      active: false,
      createdAt: at(950),
      updatedAt: at(400),
    });
    const eventsSite = await site({
      companyId: harbor.id,
      name: "Harbor Coffee Events",
      domain: null,
      subdomain: "harbor-events",
      description: "Cuppings, classes and the latte art throwdown.",
      active: true,
      createdAt: at(60),
      updatedAt: at(10),
    });

    await tx.insert(siteDomains).values([
      { siteId: harborSite, hostname: "harborcoffee.example", isPrimary: true, verified: true, createdAt: at(480) },
      {
        siteId: harborSite,
        hostname: "www.harborcoffee.example",
        isPrimary: false,
        verified: false,
        createdAt: at(10),
      },
      { siteId: northwindSite, hostname: "northwind.example", isPrimary: true, verified: true, createdAt: at(700) },
    ]);
    await tx.insert(siteEnvVars).values([
      {
        siteId: harborSite,
        key: "PUBLIC_CURRENCY",
        value: "USD",
        secret: false,
        createdAt: at(480),
        updatedAt: at(480),
      },
      {
        siteId: harborSite,
        key: "PUBLIC_ANALYTICS_DOMAIN",
        value: "harborcoffee.example",
        secret: false,
        createdAt: at(480),
        updatedAt: at(480),
      },
      {
        siteId: harborSite,
        key: "PAYMENTS_WEBHOOK_SECRET",
        value: "demo-placeholder-not-a-real-secret",
        secret: true,
        createdAt: at(300),
        updatedAt: at(300),
      },
    ]);

    // Store states: enabled (Harbor), a row with enabled = false (Northwind),
    // enabled on an inactive site (retired), and no row at all (events).
    await tx.insert(stores).values([
      { siteId: harborSite, enabled: true, currency: "USD", createdAt: at(480), updatedAt: at(480) },
      { siteId: northwindSite, enabled: false, currency: "USD", createdAt: at(650), updatedAt: at(600) },
      { siteId: retiredSite, enabled: true, currency: "USD", createdAt: at(950), updatedAt: at(950) },
    ]);

    // --- media (real files, written below once every row is in) and content ---
    const placed: Placed = [];
    const urls = new Map<string, string>();
    await insertMedia(tx, harborSite, HARBOR_MEDIA, files, placed, urls, at);
    await insertMedia(tx, northwindSite, NORTHWIND_MEDIA, files, placed, urls, at);
    const refs = mediaRefs(urls);
    await insertContent(tx, harborSite, demoUser.id, HARBOR_POSTS, HARBOR_CATEGORIES, HARBOR_TAGS, refs, at);
    await insertContent(
      tx,
      northwindSite,
      demoUser.id,
      NORTHWIND_POSTS,
      NORTHWIND_CATEGORIES,
      NORTHWIND_TAGS,
      refs,
      at,
    );
    await insertContent(tx, retiredSite, demoUser.id, RETIRED_POSTS, [], [], refs, at);
    await insertContent(tx, eventsSite, demoUser.id, EVENTS_POSTS, [], [], refs, at);

    // --- branding and navigation ---
    await tx.insert(brandProfiles).values([
      { siteId: harborSite, data: refs(HARBOR_BRANDING), createdAt: at(470), updatedAt: at(14) },
      { siteId: northwindSite, data: refs(NORTHWIND_BRANDING), createdAt: at(690), updatedAt: at(90) },
    ]);
    await tx.insert(brandMessaging).values([
      { siteId: harborSite, ...HARBOR_MESSAGING, createdAt: at(470), updatedAt: at(14) },
      { siteId: northwindSite, ...NORTHWIND_MESSAGING, createdAt: at(690), updatedAt: at(90) },
    ]);
    await insertNav(tx, harborSite, refs(HARBOR_NAV), null, at);
    await insertNav(tx, northwindSite, refs(NORTHWIND_NAV), null, at);

    // --- store ---
    await insertStore(tx, harborSite, maya.id, refs, at);
    const trade = (
      await tx
        .insert(products)
        .values({
          siteId: retiredSite,
          name: "Trade Espresso 5 kg",
          slug: "trade-espresso-5kg",
          price: 8900,
          status: "active",
          sku: "TRADE-5KG",
          shortDescription: "Served only while the wholesale site was live.",
          tags: ["wholesale"],
          createdAt: at(900),
          updatedAt: at(900),
        })
        .returning({ id: products.id })
    )[0];
    // The retired site has no media library of its own; its one picture is Harbor's file.
    await tx.insert(productImages).values({
      productId: trade.id,
      url: refs(`${DEMO_MEDIA_PREFIX}bag-house-espresso.png`),
      alt: null,
      order: 0,
      createdAt: at(900),
    });

    // --- services ---
    await insertServices(tx, harbor.id, SERVICES_FOR_HARBOR, at);
    await insertServices(tx, northwind.id, SERVICES_FOR_NORTHWIND, at);

    // --- credentials (hashed) ---
    await tx
      .insert(restKeys)
      .values({ siteId: harborSite, name: "Demo REST key", hint: rest.hint, secretHash: rest.hash, createdAt: at(0) });
    await tx.insert(mcpKeys).values({
      userId: demoUser.id,
      name: "Demo MCP key",
      hint: mcp.hint,
      secretHash: mcp.hash,
      scopes: ["*"],
      companyIds: [harbor.id, northwind.id],
      createdAt: at(0),
    });

    // Who decides Harbor's approval links: a person (the default), and Maya,
    // Harbor's owner without a portal password, as a reviewer by email, so a
    // first run shows the one-time-code flow (docs/approvals.md).
    await tx.insert(approvalSettings).values({
      companyId: harbor.id,
      policy: "person",
      reviewers: [DEMO_REVIEWER],
      updatedByUserId: demoUser.id,
      updatedAt: at(30),
    });

    // --- every domain's own part (Domain.demo, in its folder), in the order the domains are listed ---
    const world: DemoWorld = {
      deps,
      tx,
      clock: deps.clock,
      at,
      companies: { harbor: harbor.id, northwind: northwind.id },
      users: { demo: demoUser.id, viewer: viewer.id, maya: maya.id, priya: priya.id, leo: leo.id },
      sites: { harbor: harborSite, northwind: northwindSite, retired: retiredSite, events: eventsSite },
      async runTool(tool, args, as) {
        const t = deps.catalog.tools.get(tool);
        if (!t) throw new Error(`demo seed: no tool ${tool}`);
        const company = { ...as.company, role: as.role ?? ("owner" as const) };
        const ctx: ActorContext = {
          deps: { ...deps, clock: as.clock },
          principal: {
            userId: as.userId,
            credential: { kind: "cli", id: 0, name: "demo seed" },
            scopes: ["*"],
            companies: [company],
            requireCmsApproval: false,
          },
          company,
          requestId: "demo-seed",
        };
        return t.run(ctx, v.parse(t.input, args));
      },
      storeFile(key, bytes, ext) {
        placed.push({
          stored: { url: "", storageKey: key, thumbnailUrl: null, sizeBytes: bytes.length },
          file: { bytes, ext, thumb: null },
        });
      },
    };
    for (const part of deps.catalog.demoParts) await part(world);

    // Last, so a refused or failed seed writes no files; a failed write rolls the rows back.
    await writeDemoFiles(deps, placed);
    return { siteId: harborSite, harbor: harbor.id, northwind: northwind.id };
  });

  const reached = [
    { id: seeded.harbor, name: "Harbor Coffee Roasters" },
    { id: seeded.northwind, name: "Northwind Studio" },
  ].sort((a, b) => a.id - b.id);
  return {
    siteId: seeded.siteId,
    restKey: rest.secret,
    mcpKey: mcp.secret,
    defaultCompany: reached[0]!,
    companies: reached,
    email: DEMO_EMAIL,
    password,
  };
}

/** Dates relative to the clock's now, so the demo always looks recent. */
function clockAt(clock: Clock): At {
  const now = clock.ms();
  return (daysAgo, hoursAgo = 0) => new Date(now - daysAgo * DAY_MS - hoursAgo * 3_600_000);
}

/** Media rows as uploads make them (stored files, thumbnails), remembering each file's URL for the content that shows it. */
async function insertMedia(
  tx: Tx,
  siteId: number,
  items: DemoMedia[],
  files: Map<string, GeneratedFile>,
  placed: Placed,
  urls: Map<string, string>,
  at: At,
) {
  await tx.insert(media).values(
    items.map((m) => {
      const file = files.get(m.file)!;
      const stored = storedDemoFile(siteId, m, file);
      placed.push({ stored, file });
      urls.set(m.file, stored.url);
      return {
        siteId,
        filename: m.file,
        mimeType: m.mimeType,
        url: stored.url,
        storageKey: stored.storageKey,
        thumbnailUrl: stored.thumbnailUrl,
        alt: m.alt,
        caption: m.caption,
        width: m.width,
        height: m.height,
        sizeBytes: stored.sizeBytes,
        createdAt: at(0, m.hoursAgo),
      };
    }),
  );
}

function mediaRefs(urls: Map<string, string>): MediaRefs {
  const deep = (v: unknown): unknown => {
    if (typeof v === "string") {
      if (!v.startsWith(DEMO_MEDIA_PREFIX)) return v;
      const url = urls.get(v.slice(DEMO_MEDIA_PREFIX.length));
      if (!url) throw new Error(`demo seed: ${v} names no demo media file`);
      return url;
    }
    if (Array.isArray(v)) return v.map(deep);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)]));
    return v;
  };
  return deep as MediaRefs;
}

const POST_TYPE_NAMES: Record<DemoPost["type"], [name: string, description: string]> = {
  page: ["Page", "Standalone pages such as Home, About and Contact."],
  blog: ["Blog post", "Articles, news and brew guides."],
  "case-study": ["Case study", "Stories of clients and partners."],
};

async function insertContent(
  tx: Tx,
  siteId: number,
  authorId: number,
  list: DemoPost[],
  cats: DemoCategory[],
  tagList: [string, string][],
  refs: MediaRefs,
  at: At,
) {
  const typeIds = new Map<string, number>();
  for (const type of [...new Set(list.map((p) => p.type))]) {
    const [name, description] = POST_TYPE_NAMES[type];
    typeIds.set(
      type,
      (
        await tx
          .insert(postTypes)
          .values({
            siteId,
            slug: type,
            name,
            description,
            fields: type === "case-study" ? CASE_STUDY_FIELDS : null,
            createdAt: at(500),
          })
          .returning({ id: postTypes.id })
      )[0].id,
    );
  }
  const catIds = new Map<string, number>();
  for (const c of cats)
    catIds.set(
      c.slug,
      (
        await tx
          .insert(categories)
          .values({ siteId, ...c, createdAt: at(450) })
          .returning({ id: categories.id })
      )[0].id,
    );
  const tagIds = new Map<string, number>();
  for (const [slug, name] of tagList)
    tagIds.set(
      slug,
      (
        await tx
          .insert(tags)
          .values({ siteId, slug, name, createdAt: at(450) })
          .returning({ id: tags.id })
      )[0].id,
    );

  const postIds = new Map<string, number>();
  const catLinks: { postId: number; categoryId: number }[] = [];
  const tagLinks: { postId: number; tagId: number }[] = [];
  await mapSeq(list, async (post, i) => {
    const published = post.publishedDaysAgo !== null;
    // Publish times differ per post even on the same day, so ordering by time never ties.
    const publishedAt = published ? at(post.publishedDaysAgo!, 12 + (i % 5)) : null;
    const createdAt = published ? new Date(publishedAt!.getTime() - 2 * DAY_MS) : at(4, i);
    const cover = post.cover ? refs(`${DEMO_MEDIA_PREFIX}${post.cover}`) : null;
    const id = (
      await tx
        .insert(posts)
        .values({
          siteId,
          postTypeId: typeIds.get(post.type)!,
          title: post.title,
          slug: post.slug,
          excerpt: post.excerpt,
          // The same validation every write path applies; stores the normalised form.
          content: assertValidContent({ blocks: refs(post.blocks), version: "1" }),
          coverImage: cover,
          ogImage: post.seoTitle ? cover : null,
          status: published ? "published" : "draft",
          published,
          publishedAt,
          awaitingGoLive: published && post.publishedDaysAgo! < 0,
          seoTitle: post.seoTitle ?? null,
          seoDescription: post.seoDescription ?? null,
          canonicalUrl: post.canonicalUrl ?? null,
          customCss: post.customCss ?? null,
          customJs: null,
          noIndex: post.noIndex ?? null,
          parentPostId: post.parent ? postIds.get(post.parent)! : null,
          fields: post.fields ?? null,
          authorUserId: authorId,
          createdAt,
          updatedAt: published
            ? new Date(Math.min(publishedAt!.getTime() + (i % 3) * DAY_MS, at(0).getTime()))
            : createdAt,
        })
        .returning({ id: posts.id })
    )[0].id;
    postIds.set(post.slug, id);
    for (const c of post.categories ?? []) catLinks.push({ postId: id, categoryId: must(catIds, c, "category") });
    for (const t of post.tags ?? []) tagLinks.push({ postId: id, tagId: must(tagIds, t, "tag") });
    if (post.history) {
      // The post as it is now is the newest version; earlier ones differ by the fields they name.
      const now: VersionSnapshot = {
        title: post.title,
        slug: post.slug,
        postType: post.type,
        excerpt: post.excerpt,
        content: assertValidContent({ blocks: refs(post.blocks), version: "1" }),
        coverImage: cover,
        ogImage: post.seoTitle ? cover : null,
        seoTitle: post.seoTitle ?? null,
        seoDescription: post.seoDescription ?? null,
        canonicalUrl: post.canonicalUrl ?? null,
        customCss: post.customCss ?? null,
        customJs: null,
        noIndex: post.noIndex ?? null,
        parentPostId: post.parent ? postIds.get(post.parent)! : null,
        categoryIds: (post.categories ?? []).map((c) => must(catIds, c, "category")).sort((a, b) => a - b),
        tagIds: (post.tags ?? []).map((t) => must(tagIds, t, "tag")).sort((a, b) => a - b),
        fields: post.fields ?? null,
        status: "published",
        published: true,
        publishedAt: publishedAt!.toISOString(),
        unpublishAt: null,
      };
      const earlier = post.history.map((h, n) => ({
        at: n === 0 ? publishedAt! : at(h.daysAgo, 3),
        by: h.approvedBy,
        snapshot: {
          ...now,
          ...(h.title !== undefined ? { title: h.title } : {}),
          ...(h.excerpt !== undefined ? { excerpt: h.excerpt } : {}),
          ...(h.blocks ? { content: assertValidContent({ blocks: refs(h.blocks), version: "1" }) } : {}),
          ...(h.fields ? { fields: h.fields } : {}),
        },
      }));
      // The current version a month after the last earlier one.
      const latest = at(Math.max(0, post.history[post.history.length - 1]!.daysAgo - 30), 3);
      const all = [...earlier, { at: latest, by: "Demo User (member)", snapshot: now }];
      await tx.insert(postVersions).values(
        all.map((v, n) => ({
          postId: id,
          siteId,
          version: n + 1,
          snapshot: v.snapshot as unknown as Record<string, unknown>,
          source: "approval",
          approvedBy: v.by,
          approvedVia: "member",
          createdAt: v.at,
        })),
      );
    }
  });
  if (catLinks.length) await tx.insert(postCategories).values(catLinks);
  if (tagLinks.length) await tx.insert(postTags).values(tagLinks);
  // A scheduled post's instant bounds REST's cached bodies (cms/schedule.ts).
  await refreshNextScheduled(tx, siteId, at(0));
}

function must<T>(m: Map<string, T>, key: string, what: string): T {
  const v = m.get(key);
  if (v === undefined) throw new Error(`demo seed: unknown ${what} "${key}"`);
  return v;
}

async function insertNav(tx: Tx, siteId: number, items: DemoNavItem[], parentId: number | null, at: At) {
  for (const item of items) {
    const id = (
      await tx
        .insert(navItems)
        .values({
          siteId,
          parentId,
          label: item.label,
          href: item.href,
          sortOrder: item.sortOrder,
          openInNewTab: item.openInNewTab ?? false,
          isButton: item.isButton ?? false,
          description: item.description ?? null,
          icon: item.icon ?? null,
          featuredImage: item.featuredImage ?? null,
          columnGroup: item.columnGroup ?? null,
          createdAt: at(300),
          updatedAt: at(20),
        })
        .returning({ id: navItems.id })
    )[0].id;
    if (item.children) await insertNav(tx, siteId, item.children, id, at);
  }
}

async function insertServices(tx: Tx, companyId: number, list: DemoService[], at: At) {
  await tx.insert(serviceCatalog).values(list.map((s, i) => ({ companyId, ...s, createdAt: at(400 - i) })));
}

/** Every combination of one value per option, in option order. */
function combinations(options: string[][]): string[][] {
  return options.reduce<string[][]>((acc, values) => acc.flatMap((combo) => values.map((v) => [...combo, v])), [[]]);
}

interface SeededProduct {
  id: number;
  def: DemoProduct;
  variants: Map<string, { id: number; price: number; sku: string; name: string }>;
  rules: BulkRule[];
}

async function insertStore(tx: Tx, siteId: number, staffUserId: number, refs: MediaRefs, at: At) {
  // Category tree: parents are listed before their children.
  const catIds = new Map<string, number>();
  for (const c of PRODUCT_CATEGORIES) {
    const id = (
      await tx
        .insert(productCategories)
        .values({
          siteId,
          parentId: c.parent ? must(catIds, c.parent, "product category") : null,
          name: c.name,
          slug: c.slug,
          description: c.description,
          image: c.image === null ? null : refs(c.image),
          order: c.order,
          active: c.active,
          createdAt: at(470),
          updatedAt: at(60),
        })
        .returning({ id: productCategories.id })
    )[0].id;
    catIds.set(c.slug, id);
  }

  const seeded = new Map<string, SeededProduct>();
  for (const def of PRODUCTS) {
    const createdAt = at(def.createdDaysAgo, 3);
    const id = (
      await tx
        .insert(products)
        .values({
          siteId,
          categoryId: def.category ? must(catIds, def.category, "product category") : null,
          name: def.name,
          slug: def.slug,
          description: def.description,
          shortDescription: def.shortDescription,
          sku: def.sku,
          barcode: def.barcode ?? null,
          price: def.price,
          compareAtPrice: def.compareAtPrice ?? null,
          costPrice: def.costPrice ?? null,
          trackInventory: def.trackInventory ?? false,
          quantity: def.quantity ?? null,
          weight: def.weight ?? null,
          weightUnit: def.weightUnit ?? null,
          lengthIn: def.dims?.[0] ?? null,
          widthIn: def.dims?.[1] ?? null,
          heightIn: def.dims?.[2] ?? null,
          status: def.status,
          featured: def.featured ?? false,
          designable: def.designable ?? false,
          seoTitle: def.seoTitle ?? null,
          seoDescription: def.seoDescription ?? null,
          tags: def.tags,
          metadata: def.metadata ?? null,
          createdAt,
          updatedAt: at(Math.floor(def.createdDaysAgo / 2)),
        })
        .returning({ id: products.id })
    )[0].id;

    if (def.images.length)
      await tx
        .insert(productImages)
        .values(def.images.map(([url, alt], order) => ({ productId: id, url: refs(url), alt, order, createdAt })));

    // Options and their values; remember value ids by option index and value.
    const valueIds: Map<string, number>[] = [];
    const optionIds: number[] = [];
    await mapSeq(def.options ?? [], async (opt, order) => {
      const optionId = (
        await tx
          .insert(productOptions)
          .values({ productId: id, name: opt.name, order, createdAt })
          .returning({ id: productOptions.id })
      )[0].id;
      optionIds.push(optionId);
      const ids = new Map<string, number>();
      await mapSeq(opt.values, async ([value, label], vOrder) => {
        ids.set(
          value,
          (
            await tx
              .insert(productOptionValues)
              .values({ optionId, value, label, order: vOrder, createdAt })
              .returning({ id: productOptionValues.id })
          )[0].id,
        );
      });
      valueIds.push(ids);
    });

    const variants = new Map<string, { id: number; price: number; sku: string; name: string }>();
    if (def.options?.length) {
      for (const combo of combinations(def.options.map((o) => o.values.map(([v]) => v)))) {
        const key = combo.join("/");
        const price = def.variantPrice ? def.variantPrice(combo) : def.price;
        const name = combo.map((v, i) => def.options![i]!.values.find(([x]) => x === v)![1] ?? v).join(" / ");
        const sku = `${def.sku}-${combo.join("-").toUpperCase()}`;
        const vId = (
          await tx
            .insert(productVariants)
            .values({
              productId: id,
              name,
              sku,
              price,
              compareAtPrice: def.compareAtPrice && price === def.price ? def.compareAtPrice : null,
              costPrice: def.costPrice ?? null,
              quantity: def.trackInventory ? 12 : null,
              weight: combo[0] === "1kg" ? "1000" : (def.weight ?? null),
              image: def.variantImage ? refs(def.variantImage(combo)) : null,
              active: !(def.inactiveVariants ?? []).includes(key),
              optionValues: combo.map((v, i) => ({ optionId: optionIds[i]!, valueId: valueIds[i]!.get(v)! })),
              createdAt,
              updatedAt: createdAt,
            })
            .returning({ id: productVariants.id })
        )[0].id;
        variants.set(key, { id: vId, price, sku, name });
      }
    }
    for (const k of def.inactiveVariants ?? [])
      if (!variants.has(k)) throw new Error(`demo seed: ${def.slug} has no variant ${k}`);

    const rules: BulkRule[] = (def.bulk ?? []).map((r) => ({
      variantId: r.variant ? must(variants, r.variant.join("/"), "variant").id : null,
      minQuantity: r.min,
      maxQuantity: r.max,
      priceType: r.type,
      amount: r.amount,
    }));
    // One at a time, so each rule learns its id (orders record the rule that priced a line).
    for (const r of rules)
      r.id = (
        await tx
          .insert(bulkPricingRules)
          .values({ productId: id, ...r, createdAt })
          .returning({ id: bulkPricingRules.id })
      )[0].id;
    seeded.set(def.slug, { id, def, variants, rules });
  }

  // Customers, discounts, orders with totals from the store's own pricing rules.
  const customerIds = new Map<string, number>();
  for (const c of CUSTOMERS)
    customerIds.set(
      c.email,
      (
        await tx
          .insert(customers)
          .values({ siteId, email: c.email, name: c.name, phone: c.phone, createdAt: at(c.daysAgo) })
          .returning({ id: customers.id })
      )[0].id,
    );
  const discountRows = new Map<string, { id: number; kind: "percent" | "fixed"; amount: number }>();
  for (const d of DISCOUNTS) {
    const id = (
      await tx
        .insert(discounts)
        .values({
          siteId,
          code: d.code,
          kind: d.kind,
          amount: d.amount,
          minSubtotal: d.minSubtotal,
          startsAt: d.startsDaysAgo === null ? null : at(d.startsDaysAgo),
          endsAt: d.endsDaysAgo === null ? null : at(d.endsDaysAgo),
          usageLimit: d.usageLimit,
          usedCount: d.usedCount,
          active: d.active,
          createdAt: at(d.startsDaysAgo ?? 400),
        })
        .returning({ id: discounts.id })
    )[0].id;
    discountRows.set(d.code, { id, kind: d.kind, amount: d.amount });
  }
  for (const o of ORDERS) {
    const lines = o.lines.map((l) => {
      const p = must(seeded, l.product, "product");
      const v = l.variant ? must(p.variants, l.variant.join("/"), "variant") : null;
      const listPrice = v ? v.price : p.def.price;
      const priced = unitPrice(listPrice, p.rules, l.quantity, v ? v.id : null);
      const r = priced.rule;
      const bulkRule = r
        ? {
            id: r.id!,
            minQuantity: r.minQuantity,
            maxQuantity: r.maxQuantity,
            priceType: r.priceType,
            amount: r.amount,
          }
        : null;
      return {
        productId: p.id,
        variantId: v?.id ?? null,
        name: v ? `${p.def.name} (${v.name})` : p.def.name,
        sku: v?.sku ?? p.def.sku,
        quantity: l.quantity,
        listPrice,
        unitPrice: priced.unitPrice,
        bulkRule,
      };
    });
    const discount = o.discount ? must(discountRows, o.discount, "discount") : null;
    const totals = orderTotals(lines, discount);
    const createdAt = at(o.daysAgo, 5);
    const orderId = (
      await tx
        .insert(orders)
        .values({
          siteId,
          customerId: must(customerIds, o.customer, "customer"),
          status: o.status,
          currency: "USD",
          subtotal: totals.subtotal,
          discountTotal: totals.discountTotal,
          total: totals.total,
          discountId: discount?.id ?? null,
          discountCode: o.discount,
          discountKind: discount?.kind ?? null,
          discountAmount: discount?.amount ?? null,
          notes: o.notes,
          createdAt,
          updatedAt: createdAt,
        })
        .returning({ id: orders.id })
    )[0].id;
    await tx.insert(orderItems).values(lines.map((l, i) => ({ orderId, ...l, lineTotal: totals.lineTotals[i]! })));
  }

  await tx.insert(reviews).values(
    REVIEWS.map((r) => ({
      siteId,
      productId: must(seeded, r.product, "product").id,
      authorName: r.author,
      authorEmail: r.email,
      rating: r.rating,
      title: r.title,
      body: r.body,
      status: r.status,
      createdAt: at(r.daysAgo),
    })),
  );

  for (const m of MESSAGES) {
    const createdAt = at(m.daysAgo);
    const last = at(m.daysAgo, -Math.max(...m.replies.map((r) => r.hoursAfter)));
    const messageId = (
      await tx
        .insert(customerMessages)
        .values({
          siteId,
          customerId: m.customer ? must(customerIds, m.customer, "customer") : null,
          email: m.email,
          subject: m.subject,
          status: m.status,
          createdAt,
          updatedAt: last,
        })
        .returning({ id: customerMessages.id })
    )[0].id;
    await tx.insert(customerMessageReplies).values(
      m.replies.map((r) => ({
        messageId,
        author: r.author,
        userId: r.author === "staff" ? staffUserId : null,
        body: r.body,
        createdAt: at(m.daysAgo, -r.hoursAfter),
      })),
    );
  }
}

/** Used by tests: the site ids of the demo, by role, looked up by subdomain. */
export async function demoSiteIds(deps: Deps) {
  const id = async (subdomain: string) =>
    (await deps.db.select({ id: sites.id }).from(sites).where(eq(sites.subdomain, subdomain)).limit(1))[0]?.id ?? null;
  return {
    store: await id("harbor-coffee"),
    storeDisabled: await id("northwind"),
    inactive: await id("harbor-wholesale"),
    noStore: await id("harbor-events"),
  };
}
