/**
 * The demo's decks: Northwind's published pitch to Harbor Coffee is served
 * with its pictures (an image, an image beside text, a full-bleed photo,
 * team photos, all from Northwind's media library), a timeline and
 * metrics, as a page, a PDF and a .pptx; the template and the draft filled
 * from it are there for an agent to work on (the draft still has {{date}}
 * open).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import JSZip from "jszip";
import { extractText, getDocumentProxy, getResolvedPDFJS } from "unpdf";
import { DEMO_DECK_SLUG } from "../../src/domains/decks/demo";
import { validateContent } from "../../src/domains/decks/layouts";
import { decks, deckVersions } from "../../src/domains/decks/tables";
import { mcpClient, mintMcpKey, callTool } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { users } from "../../src/core/tables";
import { eq } from "drizzle-orm";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: true });
}, 60_000);
afterAll(async () => {
  await s?.stop();
});

test("Northwind has a published pitch, a template and a draft; every stored slide is valid for its layout", async () => {
  const rows = await s.deps.db.select().from(decks).orderBy(decks.id);
  expect(rows.map((d) => [d.slug, d.status, d.isTemplate])).toEqual([
    ["northwind-pitch-template", "draft", true],
    [DEMO_DECK_SLUG, "published", false],
    ["lakeside-bakery-online-ordering", "draft", false],
  ]);
  const [version] = await s.deps.db.select().from(deckVersions);
  expect(version!.slides.map((x) => x.layout)).toEqual([
    "title",
    "title_body",
    "image",
    "two_columns",
    "image_text",
    "metrics",
    "quote",
    "timeline",
    "pricing",
    "image_full",
    "team",
    "closing",
  ]);
  for (const [i, sl] of version!.slides.entries()) validateContent(sl.layout, sl.content, `slide ${i + 1}`);
  expect(version!.theme.primary).toBe("#0f766e");
  expect(Object.values(version!.slides[2]!.images)[0]!.mimeType).toBe("image/png");
  // The pictures are the demo media library's files, stored here (so the PDF and the .pptx embed them).
  const images = (n: number) => Object.values(version!.slides[n]!.images);
  expect(images(9).map((m) => m.mimeType)).toEqual(["image/jpeg"]);
  expect(images(10)).toHaveLength(3);
  for (const n of [2, 4, 9, 10]) for (const m of images(n)) expect(m.storageKey).toBeTruthy();
});

test("the published deck is served with its pictures, as a PDF of 12 pages and as a .pptx", async () => {
  const r = await fetch(`${s.url}/d/${DEMO_DECK_SLUG}`);
  expect(r.status).toBe(200);
  const html = await r.text();
  expect(html.match(/class="dk-slide /g)).toHaveLength(12);
  expect(html).toContain("A wholesale portal for Harbor Coffee");
  expect(html).toContain("Eight weeks to launch");
  // The image, the image beside text, the full-bleed photo and three team photos.
  const srcs = [...html.matchAll(/<img class="dk-(?:img|face)" src="([^"]+)"/g)].map(
    (m) => new URL(m[1]!, s.url).pathname,
  );
  expect(srcs).toHaveLength(6);
  for (const src of srcs) {
    const img = await fetch(`${s.url}${src}`);
    expect(img.status).toBe(200);
    expect(img.headers.get("content-type")).toMatch(/^image\/(png|jpeg)$/);
    await img.arrayBuffer();
  }
  const pdf = await getDocumentProxy(
    new Uint8Array(await (await fetch(`${s.url}/d/${DEMO_DECK_SLUG}.pdf`)).arrayBuffer()),
  );
  const { totalPages, text } = await extractText(pdf, { mergePages: false });
  expect(totalPages).toBe(12);
  expect(text[7]).toContain("Eight weeks to launch");
  expect(text[8]).toContain("$18,500");
  expect(text[9]).toContain("Where the work happens");
  const { OPS } = await getResolvedPDFJS();
  const painted: number[] = [];
  for (const n of [3, 5, 10, 11])
    painted.push(
      (await (await pdf.getPage(n)).getOperatorList()).fnArray.filter((f: number) => f === OPS.paintImageXObject)
        .length,
    );
  expect(painted).toEqual([1, 1, 1, 3]);
});

test("an agent of Northwind finds the decks, fills the template and cannot publish the draft with {{date}} open", async () => {
  const demo = (await s.deps.db.select().from(users).where(eq(users.email, "demo@plinth.dev")))[0]!;
  const northwind = (await s.deps.db.select({ id: decks.companyId }).from(decks).limit(1))[0]!.id;
  const c = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: demo.id, scopes: ["decks:write"], companyIds: [northwind] })).key,
  );
  const list = (await callTool(c, "decks_list", {})).data;
  expect(list.total).toBe(3);
  const draft = list.items.find((d: any) => d.slug === "lakeside-bakery-online-ordering");
  expect((await callTool(c, "decks_get", { id: draft.id })).data.placeholders).toEqual(["date"]);
  expect((await callTool(c, "decks_publish", { id: draft.id })).text).toContain("{{date}}");
  const template = list.items.find((d: any) => d.isTemplate);
  const filled = (
    await callTool(c, "decks_fill_template", {
      id: template.id,
      strict: true,
      variables: {
        client: "Tidewater Co-op",
        project: "Member app",
        presenter: "Priya Shah",
        date: "June",
        need1: "a",
        need2: "b",
        need3: "c",
      },
    })
  ).data;
  expect(filled).toMatchObject({ slideCount: 5, unfilled: [], unknown: [] });
  // The published pitch as PowerPoint: the same pictures on the same slides.
  const pitch = list.items.find((d: any) => d.slug === DEMO_DECK_SLUG);
  const pptx = (await callTool(c, "decks_export_pptx", { id: pitch.id, version: "published" })).data;
  const zip = await JSZip.loadAsync(Buffer.from(pptx.dataBase64, "base64"));
  const pics: number[] = [];
  for (const n of [3, 5, 10, 11])
    pics.push((await zip.file(`ppt/slides/slide${n}.xml`)!.async("string")).split("<p:pic>").length - 1);
  expect(pics).toEqual([1, 1, 1, 3]);
});
