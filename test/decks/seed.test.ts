/**
 * The demo's decks: Northwind's published pitch to Harbor Coffee is served
 * with its pictures and PDF, the template and the draft filled from it are
 * there for an agent to work on (the draft still has {{date}} open).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { extractText, getDocumentProxy } from "unpdf";
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
  expect(version!.slides).toHaveLength(10);
  for (const [i, sl] of version!.slides.entries()) validateContent(sl.layout, sl.content, `slide ${i + 1}`);
  expect(version!.theme.primary).toBe("#0f766e");
  expect(Object.values(version!.slides[2]!.images)[0]!.mimeType).toBe("image/png");
});

test("the published deck is served with its pictures, and as a PDF of 10 pages", async () => {
  const r = await fetch(`${s.url}/d/${DEMO_DECK_SLUG}`);
  expect(r.status).toBe(200);
  const html = await r.text();
  expect(html.match(/class="dk-slide /g)).toHaveLength(10);
  expect(html).toContain("A wholesale portal for Harbor Coffee");
  const srcs = [...html.matchAll(/<img class="dk-img" src="([^"]+)"/g)].map((m) => new URL(m[1]!, s.url).pathname);
  expect(srcs).toHaveLength(2);
  for (const src of srcs) {
    const img = await fetch(`${s.url}${src}`);
    expect(img.status).toBe(200);
    expect(img.headers.get("content-type")).toBe("image/png");
    await img.arrayBuffer();
  }
  const pdf = await getDocumentProxy(
    new Uint8Array(await (await fetch(`${s.url}/d/${DEMO_DECK_SLUG}.pdf`)).arrayBuffer()),
  );
  const { totalPages, text } = await extractText(pdf, { mergePages: false });
  expect(totalPages).toBe(10);
  expect(text[7]).toContain("$18,500");
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
});
