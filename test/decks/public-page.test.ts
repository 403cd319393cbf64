/**
 * /d/<slug> over HTTP: the security headers every public page carries, a
 * fresh nonce per response (in the header and on the script, the only
 * script), and the cache following the deck's state at once: a new
 * version, a take-down and a deletion are seen by the very next request.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";

let s: TestServer;
let w: World;
beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
});
afterAll(async () => {
  await s?.stop();
});

async function live(title: string) {
  const d = await w.ok(w.owner, "decks_create", {
    title,
    slides: [
      { layout: "title", content: { title } },
      { layout: "closing", content: { title: "Thanks" } },
    ],
  });
  const p = await w.ok(w.owner, "decks_publish", { id: d.id });
  await w.ok(w.colleague, "approvals_approve", { id: p.approval.id });
  return d as { id: number; slug: string; slides: { id: number }[] };
}

test("headers: strict CSP with this response's nonce, no framing, no caching by others, not indexed", async () => {
  const d = await live("Headers");
  const a = await fetch(`${s.url}/d/${d.slug}`);
  const b = await fetch(`${s.url}/d/${d.slug}`);
  const [ha, hb] = [a.headers, b.headers];
  const body = await a.text();
  await b.text();
  expect(a.status).toBe(200);
  expect(ha.get("content-type")).toBe("text/html; charset=UTF-8");
  const csp = ha.get("content-security-policy")!;
  for (const part of [
    "default-src 'none'",
    "script-src 'nonce-",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ])
    expect(csp).toContain(part);
  expect(csp).not.toMatch(/script-src[^;]*unsafe/);
  const nonce = /'nonce-([0-9a-f]{32})'/.exec(csp)![1]!;
  expect(hb.get("content-security-policy")).not.toContain(nonce);
  expect(body.match(new RegExp(`nonce="${nonce}"`, "g"))).toHaveLength(2); // the style element and the script
  expect(body.match(/<script/g)).toHaveLength(1);
  expect(ha.get("x-frame-options")).toBe("DENY");
  expect(ha.get("x-content-type-options")).toBe("nosniff");
  expect(ha.get("referrer-policy")).toBe("same-origin");
  expect(ha.get("cache-control")).toBe("no-store");
  expect(ha.get("x-robots-tag")).toBe("noindex, nofollow");
  expect(body).toContain('<meta name="robots" content="noindex,nofollow">');
});

test("a new version, a take-down and a deletion are served by the very next request", async () => {
  const d = await live("First title");
  const page = async (path = `/d/${d.slug}`) => {
    const r = await fetch(`${s.url}${path}`);
    return { status: r.status, body: await r.text() };
  };
  expect((await page()).body).toContain("First title");
  const pdf1 = await fetch(`${s.url}/d/${d.slug}.pdf`);
  const etag1 = pdf1.headers.get("etag");
  await pdf1.arrayBuffer();

  await w.ok(w.owner, "slides_update", { deckId: d.id, id: d.slides[0].id, content: { title: "Second title" } });
  expect((await page()).body).toContain("First title"); // the draft is not public
  const p = await w.ok(w.owner, "decks_publish", { id: d.id });
  expect((await page()).body).toContain("First title"); // nor the pending version
  await w.ok(w.colleague, "approvals_approve", { id: p.approval.id });
  const now = await page();
  expect(now.body).toContain("Second title");
  expect(now.body).not.toContain("<h1>First title</h1>"); // (the deck's own title, in <title>, did not change)
  const pdf2 = await fetch(`${s.url}/d/${d.slug}.pdf`, { headers: { "If-None-Match": etag1! } });
  expect(pdf2.status).toBe(200); // the old ETag no longer matches
  await pdf2.arrayBuffer();

  const held = await w.ok(w.owner, "decks_unpublish", { id: d.id });
  expect((await page()).status).toBe(200); // held for a person
  await w.ok(w.colleague, "approvals_approve", { id: held.approval.id });
  expect((await page()).status).toBe(404);
  expect((await page(`/d/${d.slug}.pdf`)).status).toBe(404);

  const e = await live("Gone soon");
  expect((await page(`/d/${e.slug}`)).status).toBe(200);
  const del = await w.ok(w.owner, "decks_delete", { id: e.id });
  await w.ok(w.colleague, "approvals_approve", { id: del.approval.id });
  expect((await page(`/d/${e.slug}`)).status).toBe(404);
});

test("a changed slug moves the address; the old one is gone", async () => {
  const d = await w.ok(w.owner, "decks_create", {
    title: "Moving",
    slides: [{ layout: "title", content: { title: "Moving" } }],
  });
  await w.ok(w.owner, "decks_update", { id: d.id, slug: "moved-here" });
  await w.ok(w.colleague, "approvals_approve", {
    id: (await w.ok(w.owner, "decks_publish", { id: d.id })).approval.id,
  });
  expect((await fetch(`${s.url}/d/moved-here`)).status).toBe(200);
  expect((await fetch(`${s.url}/d/${d.slug}`)).status).toBe(404);
});

test("the approval page of a take-down says what disappears and shows the live deck", async () => {
  const d = await live("Coming down");
  const held = await w.ok(w.owner, "decks_unpublish", { id: d.id });
  const r = await fetch(w.local(held.approval.url));
  const html = await r.text();
  expect(r.status).toBe(200);
  expect(html).toContain("Take the published deck “Coming down” offline, held for approval");
  expect(html).toContain(`/d/${d.slug} and its PDF`);
  expect(html.match(/class="dk-slide /g)).toHaveLength(2);
});
