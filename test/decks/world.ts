/**
 * Verb-level world for deck tests: the store world (two companies, sites,
 * actors of any role and scope) plus media items in each company's sites,
 * a brand profile, and helpers to read events and approve links.
 */
import { eq } from "drizzle-orm";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { brandProfiles } from "../../src/domains/branding/tables";
import { media } from "../../src/domains/cms/tables";
import { decksDomain } from "../../src/domains/decks/tools";
import { events } from "../../src/core/tables";
import { call, errorOf, makeWorld, type World } from "../store/world";
import type { ActorContext } from "../../src/core/context";
import { encode as encodePng } from "fast-png";
import { encode as encodeJpeg } from "jpeg-js";

export { errorOf };

export interface DeckWorld extends World {
  /** A PNG in site 1, a JPEG in site 2 (same company), an SVG, a PDF document, and a PNG of the other company. */
  png: number;
  jpg: number;
  svg: number;
  doc: number;
  foreignPng: number;
  owner: ActorContext;
  t(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
  /** Events of `type` (all when omitted), oldest first. */
  events(type?: string): Promise<{ type: string; entityId: number; data: any; userId: number | null }[]>;
  approve(approval: { token: string }, decidedBy?: string): Promise<any>;
  reject(approval: { token: string }, comment?: string): Promise<any>;
}

/** Real 8×8 PNG and JPEG files (the PDF embeds them). */
const pixels = new Uint8Array(8 * 8 * 4).map((_, i) => (i % 4 === 3 ? 255 : (i * 37) % 256));
export const PNG_8 = encodePng({ width: 8, height: 8, data: pixels, channels: 4 });
export const JPEG_8 = new Uint8Array(encodeJpeg({ width: 8, height: 8, data: Buffer.from(pixels) }, 90).data);

export async function makeDeckWorld(): Promise<DeckWorld> {
  const w = await makeWorld();
  const db = w.deps.db;
  const now = w.clock.now();
  await w.deps.blobs.put(`${w.siteId}/pic.png`, PNG_8, "image/png");
  await w.deps.blobs.put(`${w.site2Id}/pic.jpg`, JPEG_8, "image/jpeg");
  const add = async (
    siteId: number,
    filename: string,
    mimeType: string,
    storageKey: string | null,
    alt: string | null,
  ) =>
    (
      await db
        .insert(media)
        .values({
          siteId,
          filename,
          mimeType,
          url: storageKey ? `http://localhost:0/media/${storageKey}` : `https://cdn.example/${filename}`,
          storageKey,
          alt,
          width: 8,
          height: 8,
          createdAt: now,
        })
        .returning({ id: media.id })
    )[0]!.id;
  const png = await add(w.siteId, "pic.png", "image/png", `${w.siteId}/pic.png`, "A pixel");
  const jpg = await add(w.site2Id, "pic.jpg", "image/jpeg", `${w.site2Id}/pic.jpg`, "Another pixel");
  const svg = await add(w.siteId, "logo.svg", "image/svg+xml", null, "Logo");
  const doc = await add(w.siteId, "brief.pdf", "application/pdf", null, null);
  const foreignPng = await add(w.otherSiteId, "secret.png", "image/png", null, "Rival's picture");
  await db.insert(brandProfiles).values({
    siteId: w.siteId,
    data: { primaryColor: "#0f766e", textColor: "#0f172a", headingFont: "Space Grotesk", logoText: "Acme Studio" },
    createdAt: now,
    updatedAt: now,
  });
  const owner = w.ctx();
  return {
    ...w,
    png,
    jpg,
    svg,
    doc,
    foreignPng,
    owner,
    t: (name, args, ctx = owner) => call(decksDomain, ctx, name, args),
    async events(type) {
      const rows = await db.select().from(events).orderBy(events.id);
      return rows
        .filter((r) => !type || r.type === type)
        .map((r) => ({ type: r.type, entityId: r.entityId, data: r.data, userId: r.userId }));
    },
    async approve(approval, decidedBy = "Rita Reviewer") {
      const o = await decideApproval(w.deps, { token: approval.token }, "approve", { decidedBy });
      if (!o.ok) throw new Error(o.message);
      return o.approval.result;
    },
    async reject(approval, comment = "Not yet") {
      const o = await decideApproval(w.deps, { token: approval.token }, "reject", {
        decidedBy: "Rita Reviewer",
        comment,
      });
      if (!o.ok) throw new Error(o.message);
      return o.approval;
    },
  };
}

/** Slides of every layout, valid, for a deck about Harbor Coffee. */
export function everyLayout(images: {
  png: number;
  jpg: number;
}): { layout: string; content: Record<string, unknown>; notes?: string }[] {
  return [
    {
      layout: "title",
      content: {
        title: "A new shop for Harbor Coffee",
        subtitle: "Proposal, May 2026",
        presenter: "Northwind Studio",
        date: "May 2026",
      },
      notes: "Open with the Monday-morning story.",
    },
    {
      layout: "title_body",
      content: {
        title: "What we heard",
        body: "Orders peak on Mondays.\n\nStaff re-key subscriptions by hand.",
        bullets: ["Checkout is slow on phones", "Subscriptions are manual"],
      },
    },
    {
      layout: "two_columns",
      content: {
        title: "Today and tomorrow",
        left: { heading: "Today", bullets: ["3 tools", "2 logins"] },
        right: { heading: "With us", body: "One dashboard." },
      },
    },
    {
      layout: "image",
      content: { title: "The new home page", imageId: images.png, caption: "Desktop and phone", fit: "contain" },
    },
    {
      layout: "quote",
      content: {
        quote: "Our orders doubled in a quarter.",
        author: "Maya Chen",
        role: "Owner, Harbor Coffee",
        imageId: images.jpg,
      },
    },
    {
      layout: "metrics",
      content: {
        title: "Results elsewhere",
        metrics: [
          { value: "2×", label: "online orders" },
          { value: "48%", label: "repeat customers", detail: "after six months" },
          { value: "1.2 s", label: "page load" },
        ],
      },
    },
    {
      layout: "pricing",
      content: {
        title: "Options",
        currency: "USD",
        plans: [
          { name: "Launch", price: 1200000, period: "one-off", features: ["Shop", "Training"], highlighted: true },
          { name: "Care", price: 45050, period: "per month", description: "Updates and support" },
          { name: "Enterprise", priceLabel: "Let's talk" },
        ],
        note: "Prices exclude VAT.",
      },
    },
    {
      layout: "team",
      content: {
        title: "Your team",
        members: [
          { name: "Priya Shah", role: "Lead developer", bio: "Ten years of shops.", imageId: images.png },
          { name: "Leo Martin", role: "Designer" },
        ],
      },
    },
    {
      layout: "closing",
      content: {
        title: "Thank you",
        subtitle: "Questions?",
        contactName: "Priya Shah",
        email: "priya@northwind.example",
        website: "https://northwind.example",
        ctaLabel: "Book a call",
        ctaUrl: "https://northwind.example/contact",
      },
    },
  ];
}

export async function slideOrder(w: World, deckId: number): Promise<number[]> {
  const { deckSlides } = await import("../../src/domains/decks/tables");
  const rows = await w.deps.db
    .select({ id: deckSlides.id, position: deckSlides.position })
    .from(deckSlides)
    .where(eq(deckSlides.deckId, deckId))
    .orderBy(deckSlides.position);
  return rows.map((r) => r.id);
}
