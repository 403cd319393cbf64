/**
 * Pitch decks for the demo: Northwind Studio pitching its client Harbor
 * Coffee a wholesale ordering portal (published, approved in the agency, served
 * at /d/northwind-harbor-wholesale-portal), the agency's pitch template,
 * and a draft filled from it for a prospect, with one placeholder still open.
 * The pitch shows pictures of Northwind's media library in every way a
 * slide can: an image, an image beside text, a full-bleed photo of the
 * studio, team photos; and metrics and a timeline.
 */
import { and, eq, inArray } from "drizzle-orm";
import { sha256Hex, randomHex } from "../../core/secrets";
import { approvalLinks } from "../approvals/tables";
import { media } from "../cms/tables";
import { imageRefs, type VersionSlide } from "./layouts";
import { decks, deckSlides, deckVersions } from "./tables";
import { themeForSite } from "./theme";
import type { DemoPart } from "../../mcp/define";

type Slide = { layout: VersionSlide["layout"]; content: Record<string, unknown>; notes?: string };

export const DEMO_DECK_SLUG = "northwind-harbor-wholesale-portal";

function pitch(img: {
  caseStudy: number;
  portal: number;
  loft: number;
  priya: number;
  leo: number;
  sam: number;
}): Slide[] {
  return [
    {
      layout: "title",
      content: {
        title: "A wholesale portal for Harbor Coffee",
        subtitle: "Cafés, offices and hotels order, reorder and pay online",
        presenter: "Priya Shah and Leo Martin, Northwind Studio",
        date: "Proposal, spring",
      },
      notes: "Thank Maya for the shop launch numbers first. Keep the intro under a minute.",
    },
    {
      layout: "title_body",
      content: {
        title: "What we heard from your team",
        body: "Wholesale is a third of Harbor's revenue and still runs on email and phone.",
        bullets: [
          "Standing orders are re-keyed every Monday",
          "Invoices go out by hand, paid late",
          "Cafés cannot see what is in stock before they call",
        ],
      },
      notes: "Quote Daniel from the roastery: 'Mondays are spreadsheets.'",
    },
    {
      layout: "image",
      content: {
        title: "What we built together last year",
        imageId: img.caseStudy,
        caption: "The Harbor Coffee shop: headless storefront, subscriptions, 1.1 s pages",
        fit: "contain",
      },
    },
    {
      layout: "two_columns",
      content: {
        title: "Today and with the portal",
        left: { heading: "Today", bullets: ["Orders by email and phone", "Prices in a PDF", "Invoices by hand"] },
        right: {
          heading: "With the portal",
          bullets: [
            "Standing orders that repeat themselves",
            "Each account's own price list",
            "Invoices and card payments online",
          ],
        },
      },
    },
    {
      layout: "image_text",
      content: {
        title: "A portal we run for Tidewater Co-op",
        imageId: img.portal,
        body: "Member ordering for 140 shops, live since last autumn.",
        bullets: ["Each shop's own price list", "Standing orders every Monday", "Invoices paid by card"],
        side: "right",
      },
    },
    {
      layout: "metrics",
      content: {
        title: "What Tidewater saw in six months",
        metrics: [
          { value: "−70%", label: "order-taking time", detail: "phone and email orders moved online" },
          { value: "9 days", label: "faster payment", detail: "invoices paid by card on receipt" },
          { value: "3×", label: "reorders", detail: "standing orders instead of calls" },
        ],
      },
    },
    {
      layout: "quote",
      content: {
        quote: "Our members order at night now, and Monday mornings are quiet for the first time in years.",
        author: "Rosa Alvarez",
        role: "Operations lead, Tidewater Co-op",
      },
    },
    {
      layout: "timeline",
      content: {
        title: "Eight weeks to launch",
        steps: [
          { date: "Week 1", label: "Workshop", detail: "Your wholesale team and ours, one morning" },
          { date: "Weeks 2–3", label: "Price lists", detail: "Accounts and prices imported" },
          { date: "Weeks 4–6", label: "Build", detail: "A demo to your team every Friday" },
          { date: "Week 7", label: "Pilot", detail: "Five cafés order for real" },
          { date: "Week 8", label: "Launch", detail: "Every account invited" },
        ],
      },
      notes: "The pilot cafés: ask Maya which five she trusts to tell us the truth.",
    },
    {
      layout: "pricing",
      content: {
        title: "Two ways to start",
        currency: "USD",
        plans: [
          {
            name: "Portal launch",
            price: 1850000,
            period: "one-off, 8 weeks",
            description: "Design, build and training for your wholesale team.",
            features: ["Account price lists", "Standing orders", "Card and invoice payment", "Two training sessions"],
            highlighted: true,
          },
          {
            name: "Care plan",
            price: 65000,
            period: "per month",
            description: "Hosting, updates and a day of changes each month.",
            features: ["Monitoring", "Monthly report", "Priority support"],
          },
        ],
        note: "Prices exclude sales tax. The care plan can start after launch.",
      },
    },
    {
      layout: "image_full",
      content: {
        title: "Where the work happens",
        imageId: img.loft,
        caption: "The Northwind studio in the old sail loft, ten minutes from your roastery",
      },
    },
    {
      layout: "team",
      content: {
        title: "Your team",
        members: [
          {
            name: "Priya Shah",
            role: "Lead developer",
            bio: "Built the Harbor shop and the Tidewater portal.",
            imageId: img.priya,
          },
          { name: "Leo Martin", role: "Designer", bio: "Ten years of B2B ordering screens.", imageId: img.leo },
          {
            name: "Sam Rivera",
            role: "Project manager",
            bio: "Your one contact for the whole project.",
            imageId: img.sam,
          },
        ],
      },
    },
    {
      layout: "closing",
      content: {
        title: "Thank you",
        subtitle: "Shall we start with a one-hour workshop with your wholesale team?",
        contactName: "Priya Shah",
        email: "priya@northwind.example",
        website: "https://northwind.example",
        ctaLabel: "Book the workshop",
        ctaUrl: "https://northwind.example/contact",
      },
    },
  ];
}

const TEMPLATE: Slide[] = [
  {
    layout: "title",
    content: {
      title: "{{project}} for {{client}}",
      subtitle: "A proposal by Northwind Studio",
      presenter: "{{presenter}}",
      date: "{{date}}",
    },
  },
  {
    layout: "title_body",
    content: { title: "What we heard from {{client}}", bullets: ["{{need1}}", "{{need2}}", "{{need3}}"] },
    notes: "Replace the needs with the client's own words from the discovery call.",
  },
  {
    layout: "metrics",
    content: {
      title: "What similar clients saw",
      metrics: [
        { value: "2×", label: "online orders" },
        { value: "1.1 s", label: "page load" },
      ],
    },
  },
  {
    layout: "team",
    content: {
      title: "Your team",
      members: [
        { name: "Priya Shah", role: "Lead developer" },
        { name: "Leo Martin", role: "Designer" },
      ],
    },
  },
  {
    layout: "closing",
    content: {
      title: "Thank you, {{client}}",
      email: "hello@northwind.example",
      ctaLabel: "Book a call",
      ctaUrl: "https://northwind.example/contact",
    },
  },
];

const fill = (slides: Slide[], vars: Record<string, string>): Slide[] =>
  JSON.parse(
    JSON.stringify(slides).replace(/\{\{(\w+)\}\}/g, (m, k: string) => (k in vars ? vars[k]!.replace(/"/g, '\\"') : m)),
  );

export const demoDecks: DemoPart = async (world) => {
  const { tx, at, deps } = world;
  const site = world.sites.northwind;
  const company = world.companies.northwind;
  const pics = await tx
    .select({
      id: media.id,
      filename: media.filename,
      url: media.url,
      alt: media.alt,
      width: media.width,
      height: media.height,
      mimeType: media.mimeType,
      storageKey: media.storageKey,
    })
    .from(media)
    .where(
      and(
        eq(media.siteId, site),
        inArray(media.filename, [
          "northwind-harbor-case-study.png",
          "northwind-tidewater-portal.png",
          "northwind-studio-loft.jpg",
          "northwind-priya-shah.jpg",
          "northwind-leo-martin.jpg",
          "northwind-sam-rivera.jpg",
        ]),
      ),
    );
  const byName = new Map(pics.map((p) => [p.filename, p]));
  const pic = (file: string) => byName.get(file)!;

  const insert = async (o: {
    title: string;
    slug: string;
    description?: string;
    isTemplate?: boolean;
    slides: Slide[];
    daysAgo: number;
    by: number;
  }) => {
    const created = at(o.daysAgo);
    const deck = (
      await tx
        .insert(decks)
        .values({
          companyId: company,
          siteId: site,
          title: o.title,
          slug: o.slug,
          description: o.description ?? null,
          isTemplate: o.isTemplate ?? false,
          status: "draft",
          revision: 1,
          createdByUserId: o.by,
          createdAt: created,
          updatedAt: created,
        })
        .returning()
    )[0]!;
    const ids: number[] = [];
    for (const [i, s] of o.slides.entries())
      ids.push(
        (
          await tx
            .insert(deckSlides)
            .values({
              deckId: deck.id,
              position: i + 1,
              layout: s.layout,
              content: s.content,
              notes: s.notes ?? null,
              createdAt: created,
              updatedAt: created,
            })
            .returning({ id: deckSlides.id })
        )[0]!.id,
      );
    return { deck, ids };
  };

  await insert({
    title: "Northwind pitch template",
    slug: "northwind-pitch-template",
    description: "Fill with decks_fill_template: client, project, presenter, date, need1–need3.",
    isTemplate: true,
    slides: TEMPLATE,
    daysAgo: 120,
    by: world.users.priya,
  });

  const slides = pitch({
    caseStudy: pic("northwind-harbor-case-study.png").id,
    portal: pic("northwind-tidewater-portal.png").id,
    loft: pic("northwind-studio-loft.jpg").id,
    priya: pic("northwind-priya-shah.jpg").id,
    leo: pic("northwind-leo-martin.jpg").id,
    sam: pic("northwind-sam-rivera.jpg").id,
  });
  const { deck, ids } = await insert({
    title: "A wholesale portal for Harbor Coffee",
    slug: DEMO_DECK_SLUG,
    description: "Phase two proposal for Harbor Coffee Roasters.",
    slides,
    daysAgo: 12,
    by: world.users.priya,
  });
  // Every picture a slide names (its imageId and its team photos), as a version freezes them.
  const resolved = (content: Record<string, unknown>) =>
    Object.fromEntries(
      imageRefs(content).map(({ id }) => {
        const p = pics.find((x) => x.id === id)!;
        return [
          String(p.id),
          { url: p.url, alt: p.alt, width: p.width, height: p.height, mimeType: p.mimeType, storageKey: p.storageKey },
        ];
      }),
    );
  const version = (
    await tx
      .insert(deckVersions)
      .values({
        deckId: deck.id,
        number: 1,
        revision: 1,
        title: deck.title,
        description: deck.description,
        slides: slides.map((s, i) => ({
          id: ids[i]!,
          layout: s.layout,
          content: s.content,
          notes: s.notes ?? null,
          images: resolved(s.content),
        })),
        theme: await themeForSite(deps, site),
        createdByUserId: world.users.priya,
        createdAt: at(10),
      })
      .returning()
  )[0]!;
  await tx
    .update(decks)
    .set({ status: "published", publishedVersionId: version.id, publishedAt: at(9), updatedAt: at(9) })
    .where(eq(decks.id, deck.id));
  // The approval it went through, as the history shows it (the token itself was never kept).
  await tx.insert(approvalLinks).values({
    tokenHash: sha256Hex(randomHex(32)),
    companyId: company,
    siteId: site,
    linkType: "entity",
    entityType: "pitch_deck",
    entityId: deck.id,
    payload: { versionId: version.id, version: 1, proposal: "new", liveVersionId: null },
    title: deck.title,
    status: "approved",
    requestedByUserId: world.users.priya,
    credentialKind: "mcp_key",
    credentialName: "Claude (Priya)",
    expiresAt: at(-4),
    decidedAt: at(9),
    decidedBy: "Demo User",
    comment: "Good to send to Maya.",
    result: { deckId: deck.id, slug: DEMO_DECK_SLUG, status: "published", version: 1 },
    createdAt: at(10),
  });

  await insert({
    title: "Online ordering for Lakeside Bakery",
    slug: "lakeside-bakery-online-ordering",
    description: "Draft from the pitch template; the date is still open.",
    slides: fill(TEMPLATE, {
      client: "Lakeside Bakery",
      project: "Online ordering",
      presenter: "Leo Martin",
      need1: "Pre-orders for weekend cakes",
      need2: "Click and collect",
      need3: "A menu that updates itself",
    }),
    daysAgo: 2,
    by: world.users.leo,
  });
};
