/**
 * decks_export_pptx over MCP (real SDK client, real server): the .pptx is
 * opened as the zip it is and read: one slide per slide, each slide's text
 * in real text runs (editable, not pictures of text), the stored pictures
 * in ppt/media, the theme's colours and heading font, speaker notes; and
 * the AI-credit policy of the PDF export (price said in the description,
 * checked before, debited after, refused with nothing done). Runs on the
 * configured engine (SQLite, or PostgreSQL under scripts/with-postgres.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import JSZip from "jszip";
import { grantCredits } from "../../src/domains/ai/credits";
import { PRICES } from "../../src/domains/ai/meter";
import { firstFamily } from "../../src/domains/decks/pptx";
import { anyoneWithLink } from "../fixtures/approvals";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";
import { everyLayout, JPEG_8, PNG_8 } from "./world";

const T = 60_000;
let s: TestServer;
let w: World;
let deck: { id: number; slug: string };

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  await anyoneWithLink(s.deps, w.A.id);
  await w.ok(w.owner, "branding_update_profile", {
    siteId: w.siteA,
    branding: {
      primaryColor: "#1f3a5f",
      accentColor: "#f2a541",
      headingFont: "'Georgia', serif",
      logoText: "Northwind Studio",
    },
  });
  const png = (
    await w.ok(w.owner, "media_upload", {
      siteId: w.siteA,
      filename: "shop.png",
      dataBase64: Buffer.from(PNG_8).toString("base64"),
      alt: "The new shop",
    })
  ).id;
  const jpg = (
    await w.ok(w.owner, "media_upload", {
      siteId: w.siteA2,
      filename: "maya.jpg",
      dataBase64: Buffer.from(JPEG_8).toString("base64"),
      alt: "Maya",
    })
  ).id;
  deck = await w.ok(w.owner, "decks_create", {
    siteId: w.siteA,
    title: "Harbor pitch",
    slides: [...everyLayout({ png, jpg }), { layout: "quote", content: { quote: `"Typed with its own marks."` } }],
  });
}, T);

afterAll(async () => {
  await s?.stop();
});

const slideXml = async (zip: JSZip, n: number) => (await zip.file(`ppt/slides/slide${n}.xml`)!.async("string")) ?? "";
/** The text runs of a slide, joined: what PowerPoint shows as editable text. */
const runs = (xml: string) =>
  [...xml.matchAll(/<a:t>([^<]*)<\/a:t>/g)]
    .map((m) =>
      m[1]!
        .replace(/&amp;/g, "&")
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'"),
    )
    .join(" ");

describe("decks_export_pptx", () => {
  let zip: JSZip;
  let r: any;
  beforeAll(async () => {
    r = await w.ok(w.owner, "decks_export_pptx", { id: deck.id });
    zip = await JSZip.loadAsync(Buffer.from(r.dataBase64, "base64"));
  }, T);

  test("a .pptx with one slide per slide", () => {
    expect(r).toMatchObject({
      id: deck.id,
      slides: 10,
      filename: `${deck.slug}-draft.pptx`,
      mimeType: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    });
    expect(r.bytes).toBe(Buffer.from(r.dataBase64, "base64").length);
    const slides = Object.keys(zip.files).filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f));
    expect(slides).toHaveLength(10);
  });

  test("each slide's text is real, editable text", async () => {
    const want: string[][] = [
      ["NORTHWIND STUDIO", "A new shop for Harbor Coffee", "Proposal, May 2026", "Northwind Studio  ·  May 2026"],
      ["What we heard", "Orders peak on Mondays.", "Checkout is slow on phones", "Subscriptions are manual"],
      ["Today and tomorrow", "Today", "3 tools", "With us", "One dashboard."],
      ["The new home page", "Desktop and phone"],
      ["Our orders doubled in a quarter.", "Maya Chen", "Owner, Harbor Coffee"],
      ["Results elsewhere", "2×", "48%", "repeat customers", "after six months", "1.2 s"],
      ["Options", "RECOMMENDED", "Launch", "$12,000 one-off", "$450.50 per month", "Let's talk", "Prices exclude VAT."],
      ["Your team", "Priya Shah", "Lead developer", "Ten years of shops.", "Leo Martin", "LM"],
      ["NORTHWIND STUDIO", "Thank you", "Questions?", "Book a call", "priya@northwind.example"],
      ["Typed with its own marks."],
    ];
    for (const [i, texts] of want.entries()) {
      const text = runs(await slideXml(zip, i + 1));
      for (const t of texts) expect(`slide ${i + 1}: ${text}`).toContain(t);
    }
    // One pair of quotation marks: the slide's own opening mark, not the typed ones.
    expect(runs(await slideXml(zip, 10))).not.toContain('"');
  });

  test("pictures are embedded; the theme's colours and heading font are used; notes travel", async () => {
    const media = Object.keys(zip.files).filter((f) => f.startsWith("ppt/media/"));
    expect(media.some((f) => f.endsWith(".png"))).toBe(true);
    expect(media.some((f) => /\.jpe?g$/.test(f))).toBe(true);
    // The image slide, the quote's portrait and the team photo each reference a picture.
    for (const n of [4, 5, 8]) expect(await slideXml(zip, n)).toContain("<p:pic>");
    const title = await slideXml(zip, 1);
    expect(title).toContain('<a:srgbClr val="1F3A5F"/>');
    expect(title).toContain('typeface="Georgia"');
    expect(await slideXml(zip, 5)).toContain('<a:srgbClr val="F2A541"/>');
    const notes = Object.keys(zip.files).filter((f) => /^ppt\/notesSlides\/notesSlide\d+\.xml$/.test(f));
    const all = await Promise.all(notes.map((f) => zip.file(f)!.async("string")));
    expect(all.some((x) => x.includes("Open with the Monday-morning story."))).toBe(true);
  });

  test("another company's deck is not found; a bad version is refused", async () => {
    const e = await w.call(w.stranger, "decks_export_pptx", { id: deck.id });
    expect(e.isError).toBe(true);
    expect(e.text).toContain("not found");
    const bad = await w.call(w.owner, "decks_export_pptx", { id: deck.id, version: "live" });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain("version");
    const none = await w.call(w.owner, "decks_export_pptx", { id: deck.id, version: "published" });
    expect(none.text).toContain("no published version");
  });
});

describe("AI credits, as for the PDF", () => {
  test("the description says the price; a metered company pays it, and is refused with nothing done when short", async () => {
    const tools = await w.owner.listTools();
    expect(tools.tools.find((t) => t.name === "decks_export_pptx")!.description).toContain(
      `Costs ${PRICES["pptx.export"]} AI credits`,
    );
    await grantCredits(s.deps, { companyId: w.A.id, amount: PRICES["pptx.export"] + 2 });
    const paid = await w.ok(w.owner, "decks_export_pptx", { id: deck.id });
    expect(paid).toMatchObject({ credits: PRICES["pptx.export"], creditBalance: 2 });
    const refused = await w.call(w.owner, "decks_export_pptx", { id: deck.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain(`pptx.export needs ${PRICES["pptx.export"]} and the company has 2`);
  });
});

test("a CSS font list gives PowerPoint its first family", () => {
  expect(firstFamily("'Space Grotesk', Arial, sans-serif")).toBe("Space Grotesk");
  expect(firstFamily(`"Fraunces"`)).toBe("Fraunces");
  expect(firstFamily(null)).toBe("Helvetica");
});
