/**
 * Racing requests over real HTTP: what SQLite's single writer gave for free
 * must hold on PostgreSQL too, where several instances share one database
 * and write transactions run SERIALIZABLE with retries. Each race fires its
 * requests at once (Promise.all of 20) and checks the exact outcome, that no
 * request got a 5xx or a JSON-RPC error, and the database afterwards:
 *
 *   - unique post slugs (an explicit slug: one winner; generated: -2, -3 …);
 *   - stock decrements (product and variant; refusals past the stock, and
 *     no lost decrement when every order fits) and discount usage limits;
 *   - approval decisions through the public page (approve×20, approve vs reject);
 *   - single-use OAuth authorization codes and refresh-token rotation.
 *
 * On SQLite: one server. On PostgreSQL (`bun scripts/with-postgres.ts bun test …`):
 * two servers on one database with one ManualClock, requests alternating
 * between them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sha256Hex } from "../../src/core/secrets";
import { sites } from "../../src/domains/sites/tables";
import { ON_PG } from "../db";
import { createCompany, createUser, mintMcpKey, rawMcp } from "../fixtures/accounts";
import { afterForeignWrite, row, rows, startTestServer, type TestServer } from "../harness";
import { anyoneWithLink } from "../fixtures/approvals";
import { authorizeCode, Browser, register, tokenRequest } from "../oauth/helpers";

const N = 20;
/** Generous: the outcome is what is asserted, and PostgreSQL retries make a loaded machine slow, not wrong. */
const RACE_TIMEOUT_MS = 20_000;
const PASSWORD = "racing is a long password";
const REDIRECT = "http://127.0.0.1:8123/cb";

let a: TestServer;
let b: TestServer | null = null;
let servers: TestServer[];
let key: string;
let companyId: number;

/** The server the i-th request of a race goes to: alternating when there are two. */
const on = (i: number) => servers[i % servers.length]!;
const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));
const num = (v: unknown) => Number(v);
const truthy = (v: unknown) => v === true || v === 1 || v === "1" || v === "t";

beforeAll(async () => {
  const limits = { rateLimit: 100_000, mcpRateLimit: 100_000 };
  a = await startTestServer({ seed: false, config: limits });
  // startTestServer makes (and on stop drops) a database of its own; the
  // override points this one at the first server's instead, which only
  // a.stop() drops. One public URL, as instances behind a balancer have:
  // OAuth tokens are bound to it (RFC 8707). Requests still go to each
  // server's own address (s.url).
  if (ON_PG)
    b = await startTestServer({
      seed: false,
      clock: a.clock,
      config: { ...limits, databaseUrl: a.config.databaseUrl, publicUrl: a.config.publicUrl },
    });
  servers = b ? [a, b] : [a];
  const u = await createUser(a.deps, { email: "racer@race.test", password: PASSWORD, name: "Rae Racer" });
  companyId = (await createCompany(a.deps, { name: "Race Co", ownerUserId: u.id })).id;
  key = (await mintMcpKey(a.deps, { userId: u.id, scopes: ["*"], companyIds: [companyId], name: "Race key" })).key;
  // The races are about two clicks at once, not who may click: anyone with the link decides here.
  await anyoneWithLink(a.deps, companyId);
}, 60_000);

afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

async function newSite(name: string): Promise<number> {
  return (await a.deps.db.insert(sites).values({ companyId, name }).returning({ id: sites.id }))[0]!.id;
}

interface ToolOutcome {
  status: number;
  /** A JSON-RPC error (protocol failure or internal error): never expected here. */
  rpcError: unknown;
  isError: boolean;
  text: string;
  data: any;
}

/** One tools/call over HTTP to `s`, as a bare JSON-RPC POST. */
async function tool(s: TestServer, name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
  const res = await rawMcp(s.url, key, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const raw = await res.text();
  let body: any = null;
  try {
    body = JSON.parse(raw);
  } catch {}
  const text: string = body?.result?.content?.[0]?.text ?? raw;
  let data: any = null;
  try {
    data = JSON.parse(text);
  } catch {}
  return { status: res.status, rpcError: body?.error, isError: body?.result?.isError === true, text, data };
}

/** Every outcome answered without a server fault. */
function noFaults(outs: ToolOutcome[]) {
  for (const o of outs) {
    expect(o.status, o.text).toBeLessThan(500);
    expect(o.rpcError, o.text).toBeUndefined();
    expect(o.data !== null || o.isError, o.text).toBe(true);
  }
}

async function ok(name: string, args: Record<string, unknown>) {
  const r = await tool(a, name, args);
  if (r.isError || r.rpcError) throw new Error(`${name} failed: ${r.text}`);
  return r.data;
}

describe("unique slugs", () => {
  test(
    `${N} posts_create with one explicit slug: one post, ${N - 1} conflicts naming the slug`,
    async () => {
      // A fresh site: the racing calls also race to create its "blog" post type.
      const siteId = await newSite("Slug race");
      await afterForeignWrite();
      const outs = await Promise.all(
        times(N, (i) => tool(on(i), "posts_create", { siteId, title: `Contender ${i}`, slug: "the-one" })),
      );
      noFaults(outs);
      const won = outs.filter((o) => !o.isError);
      const lost = outs.filter((o) => o.isError);
      expect(won).toHaveLength(1);
      expect(won[0]!.data.slug).toBe("the-one");
      expect(lost).toHaveLength(N - 1);
      for (const o of lost) {
        expect(o.text).toStartWith("Conflict");
        expect(o.text).toContain('Slug "the-one" is already used by post');
      }
      const stored = await rows(a.deps, "SELECT id, slug, title FROM posts WHERE site_id = ?", siteId);
      expect(stored).toHaveLength(1);
      expect(num(stored[0]!.id)).toBe(won[0]!.data.id);
      expect(await rows(a.deps, "SELECT id FROM post_types WHERE site_id = ? AND slug = 'blog'", siteId)).toHaveLength(
        1,
      );
    },
    RACE_TIMEOUT_MS,
  );

  test(
    `${N} posts_create with one title and no slug: ${N} posts with distinct generated slugs`,
    async () => {
      const siteId = await newSite("Generated slug race");
      await afterForeignWrite();
      const outs = await Promise.all(times(N, (i) => tool(on(i), "posts_create", { siteId, title: "Same Title" })));
      noFaults(outs);
      expect(outs.filter((o) => o.isError).map((o) => o.text)).toEqual([]);
      const expected = ["same-title", ...times(N - 1, (i) => `same-title-${i + 2}`)].sort();
      expect(outs.map((o) => o.data.slug as string).sort()).toEqual(expected);
      const stored = await rows<{ slug: string }>(a.deps, "SELECT slug FROM posts WHERE site_id = ?", siteId);
      expect(stored.map((r) => r.slug).sort()).toEqual(expected);
    },
    RACE_TIMEOUT_MS,
  );
});

describe("stock and discount limits", () => {
  let siteId: number;
  beforeAll(async () => {
    siteId = await newSite("Stock race");
    await ok("store_settings_update", { siteId, enabled: true, currency: "EUR" });
  });

  test(
    `a tracked product with 5 in stock, ${N} orders of 1: 5 orders, ${N - 5} refusals, 0 left`,
    async () => {
      const lamp = await ok("products_create", {
        siteId,
        name: "Lamp",
        price: 4999,
        trackInventory: true,
        quantity: 5,
        status: "active",
      });
      await afterForeignWrite();
      const outs = await Promise.all(
        times(N, (i) =>
          tool(on(i), "orders_create", {
            siteId,
            customer: { email: `buyer${i}@race.test` },
            items: [{ productId: lamp.id, quantity: 1 }],
          }),
        ),
      );
      noFaults(outs);
      const won = outs.filter((o) => !o.isError);
      const lost = outs.filter((o) => o.isError);
      expect(won).toHaveLength(5);
      expect(lost).toHaveLength(N - 5);
      for (const o of won) expect(o.data).toMatchObject({ status: "pending", total: 4999 });
      for (const o of lost) expect(o.text).toContain('Insufficient stock for "Lamp": 1 requested');
      expect(num((await row(a.deps, "SELECT quantity FROM products WHERE id = ?", lamp.id))!.quantity)).toBe(0);
      const lines = await rows(a.deps, "SELECT order_id, quantity FROM order_items WHERE product_id = ?", lamp.id);
      expect(lines).toHaveLength(5);
      expect(new Set(lines.map((l) => num(l.order_id)))).toEqual(new Set(won.map((o) => o.data.id as number)));
      expect(num((await row(a.deps, "SELECT count(*) AS n FROM orders WHERE site_id = ?", siteId))!.n)).toBe(5);
    },
    RACE_TIMEOUT_MS,
  );

  test(
    `a tracked product with 50 in stock, ${N} orders of 2 at once: all ${N} placed, ${50 - 2 * N} left (no lost decrement)`,
    async () => {
      const candle = await ok("products_create", {
        siteId,
        name: "Candle",
        price: 1200,
        trackInventory: true,
        quantity: 50,
        status: "active",
      });
      await afterForeignWrite();
      const outs = await Promise.all(
        times(N, (i) => tool(on(i), "orders_create", { siteId, items: [{ productId: candle.id, quantity: 2 }] })),
      );
      noFaults(outs);
      expect(outs.filter((o) => o.isError).map((o) => o.text)).toEqual([]);
      expect(new Set(outs.map((o) => o.data.id)).size).toBe(N);
      expect(num((await row(a.deps, "SELECT quantity FROM products WHERE id = ?", candle.id))!.quantity)).toBe(
        50 - 2 * N,
      );
      expect(await rows(a.deps, "SELECT id FROM order_items WHERE product_id = ?", candle.id)).toHaveLength(N);
    },
    RACE_TIMEOUT_MS,
  );

  test(
    `variants with 3 and 2 in stock, ${N} orders alternating between them: 3 + 2 orders, never negative`,
    async () => {
      const shirt = await ok("products_create", {
        siteId,
        name: "Shirt",
        price: 2500,
        trackInventory: true,
        status: "active",
        options: [{ name: "Size", values: ["S", "M"] }],
        variants: [
          { options: { Size: "S" }, quantity: 3 },
          { options: { Size: "M" }, quantity: 2 },
        ],
      });
      const [s, m] = (
        await rows(a.deps, "SELECT id FROM product_variants WHERE product_id = ? ORDER BY id", shirt.id)
      ).map((r) => num(r.id));
      await afterForeignWrite();
      const variantOf = (i: number) => (i % 4 < 2 ? s : m); // both servers order both sizes
      const outs = await Promise.all(
        times(N, (i) =>
          tool(on(i), "orders_create", {
            siteId,
            items: [{ productId: shirt.id, variantId: variantOf(i), quantity: 1 }],
          }),
        ),
      );
      noFaults(outs);
      const wonS = outs.filter((o, i) => !o.isError && variantOf(i) === s);
      const wonM = outs.filter((o, i) => !o.isError && variantOf(i) === m);
      expect(wonS).toHaveLength(3);
      expect(wonM).toHaveLength(2);
      for (const o of outs.filter((x) => x.isError))
        expect(o.text).toMatch(/Insufficient stock for "Shirt \([SM]\)": 1 requested, 0 available/);
      const left = await rows(
        a.deps,
        "SELECT id, quantity FROM product_variants WHERE product_id = ? ORDER BY id",
        shirt.id,
      );
      expect(left.map((r) => num(r.quantity))).toEqual([0, 0]);
      expect(await rows(a.deps, "SELECT id FROM order_items WHERE variant_id = ?", s)).toHaveLength(3);
      expect(await rows(a.deps, "SELECT id FROM order_items WHERE variant_id = ?", m)).toHaveLength(2);
    },
    RACE_TIMEOUT_MS,
  );

  test(
    `a discount code limited to 3 uses, ${N} orders by one customer: 3 discounted orders, ${N - 3} refusals`,
    async () => {
      const mug = await ok("products_create", { siteId, name: "Mug", price: 1000, status: "active" });
      const d = await ok("discounts_create", { siteId, code: "FIRST3", kind: "percent", amount: 1000, usageLimit: 3 });
      await afterForeignWrite();
      // One customer for all: the racing orders also race to create the customer.
      const outs = await Promise.all(
        times(N, (i) =>
          tool(on(i), "orders_create", {
            siteId,
            customer: { email: "Regular@Race.test", name: "Reg" },
            items: [{ productId: mug.id, quantity: 2 }],
            discountCode: "first3",
          }),
        ),
      );
      noFaults(outs);
      const won = outs.filter((o) => !o.isError);
      const lost = outs.filter((o) => o.isError);
      expect(won).toHaveLength(3);
      for (const o of won)
        expect(o.data).toMatchObject({ subtotal: 2000, discountCode: "FIRST3", discountTotal: 200, total: 1800 });
      expect(lost).toHaveLength(N - 3);
      for (const o of lost) expect(o.text).toContain("The discount code FIRST3 has reached its usage limit of 3");
      expect(num((await row(a.deps, "SELECT used_count FROM discounts WHERE id = ?", d.id))!.used_count)).toBe(3);
      expect(await rows(a.deps, "SELECT id FROM orders WHERE discount_id = ?", d.id)).toHaveLength(3);
      const customers = await rows(
        a.deps,
        "SELECT id FROM customers WHERE site_id = ? AND email = 'regular@race.test'",
        siteId,
      );
      expect(customers).toHaveLength(1);
      const buyers = await rows(a.deps, "SELECT DISTINCT customer_id FROM orders WHERE discount_id = ?", d.id);
      expect(buyers.map((r) => num(r.customer_id))).toEqual([num(customers[0]!.id)]);
    },
    RACE_TIMEOUT_MS,
  );
});

describe("approval decisions through the public page", () => {
  let siteId: number;
  beforeAll(async () => {
    siteId = await newSite("Approval race");
  });

  /** A fresh pending post and its approval link's path. */
  async function pendingPost(title: string) {
    const p = await ok("posts_create", {
      siteId,
      title,
      blocks: [{ type: "paragraph", props: { text: "Racing to be approved." } }],
    });
    await afterForeignWrite();
    return { id: p.id as number, approvalId: p.approval.id as number, path: new URL(p.approval.url).pathname };
  }

  /** Opens the page on `s` as a browser would: the CSRF cookie and the form's token. */
  async function open(s: TestServer, path: string) {
    const r = await fetch(`${s.url}${path}`);
    const body = await r.text();
    expect(r.status).toBe(200);
    const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0]!;
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(body)?.[1] ?? "";
    expect(cookie).toMatch(/^plinth_approve=[0-9a-f]{32}$/);
    expect(csrf).toMatch(/^[0-9a-f]{32}$/);
    return { s, cookie, csrf };
  }

  async function post(
    form: { s: TestServer; cookie: string; csrf: string },
    path: string,
    decision: "approve" | "reject",
  ) {
    const r = await fetch(`${form.s.url}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: form.cookie, Origin: form.s.url },
      body: new URLSearchParams({ csrf: form.csrf, decision, comment: `racing to ${decision}` }).toString(),
    });
    return { decision, status: r.status, location: r.headers.get("location"), body: await r.text() };
  }

  async function decisionRows(postId: number) {
    return rows<{ action: string }>(
      a.deps,
      "SELECT action FROM audit_log WHERE entity_type = 'post' AND entity_id = ? AND action IN ('approvals.approve', 'approvals.reject')",
      postId,
    );
  }

  test(
    `${N} approvals of one link: published once, one decision recorded, ${N - 1} told it was already approved`,
    async () => {
      const p = await pendingPost("Approve me, all of you");
      // Every reviewer opens the page first (each its own cookie), then all press Approve at once.
      const forms = await Promise.all(times(N, (i) => open(on(i), p.path)));
      const outs = await Promise.all(forms.map((f) => post(f, p.path, "approve")));
      for (const o of outs) expect(o.status, o.body.slice(0, 300)).toBeLessThan(500);
      const won = outs.filter((o) => o.status === 303);
      const lost = outs.filter((o) => o.status !== 303);
      expect(won).toHaveLength(1);
      expect(won[0]!.location).toBe(`${p.path}?done=approved`);
      expect(lost).toHaveLength(N - 1);
      for (const o of lost) {
        expect(o.status).toBe(409);
        expect(o.body).toContain("already approved");
      }
      const post_ = (await row(a.deps, "SELECT status, published, published_at FROM posts WHERE id = ?", p.id))!;
      expect(post_.status).toBe("published");
      expect(truthy(post_.published)).toBe(true);
      expect(post_.published_at).not.toBeNull();
      expect((await decisionRows(p.id)).map((r) => r.action)).toEqual(["approvals.approve"]);
      const link = (await row(a.deps, "SELECT status, comment FROM approval_links WHERE id = ?", p.approvalId))!;
      expect(link).toMatchObject({ status: "approved", comment: "racing to approve" });
    },
    RACE_TIMEOUT_MS,
  );

  test(
    `${N / 2} approvals and ${N / 2} rejections at once: one decision, and the post matches it`,
    async () => {
      const p = await pendingPost("Approve or reject me");
      const forms = await Promise.all(times(N, (i) => open(on(i), p.path)));
      // Alternating decisions, and each decision sent through both servers.
      const decisionOf = (i: number) => (i % 4 < 2 ? "approve" : "reject");
      const outs = await Promise.all(forms.map((f, i) => post(f, p.path, decisionOf(i))));
      for (const o of outs) expect(o.status, o.body.slice(0, 300)).toBeLessThan(500);
      const won = outs.filter((o) => o.status === 303);
      expect(won).toHaveLength(1);
      const decided = won[0]!.decision === "approve" ? "approved" : "rejected";
      expect(won[0]!.location).toBe(`${p.path}?done=${decided}`);
      for (const o of outs.filter((x) => x.status !== 303)) {
        expect(o.status).toBe(409);
        expect(o.body).toContain(`already ${decided}`);
      }
      const link = (await row(a.deps, "SELECT status, comment FROM approval_links WHERE id = ?", p.approvalId))!;
      expect(link).toMatchObject({ status: decided, comment: `racing to ${won[0]!.decision}` });
      const post_ = (await row(a.deps, "SELECT status, published FROM posts WHERE id = ?", p.id))!;
      expect(truthy(post_.published)).toBe(decided === "approved");
      expect(post_.status).toBe(decided === "approved" ? "published" : "rejected");
      expect((await decisionRows(p.id)).map((r) => r.action)).toEqual([
        decided === "approved" ? "approvals.approve" : "approvals.reject",
      ]);
    },
    RACE_TIMEOUT_MS,
  );
});

describe("OAuth codes and refresh tokens", () => {
  let browser: Browser;
  let clientId: string;

  beforeAll(async () => {
    const base = a.config.publicUrl;
    browser = new Browser(base);
    expect((await browser.signIn("racer@race.test", PASSWORD)).status).toBe(303);
    const reg = await register(base, {
      client_name: "Race client",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
    });
    expect(reg.status).toBe(201);
    clientId = reg.body.client_id;
    await afterForeignWrite();
  });

  const newCode = () =>
    authorizeCode(browser, a.config.publicUrl, {
      clientId,
      redirectUri: REDIRECT,
      scope: "services:read",
      companies: [companyId],
    });

  const exchange = (s: TestServer, c: { code: string; verifier: string }) =>
    tokenRequest(s.url, {
      grant_type: "authorization_code",
      code: c.code,
      code_verifier: c.verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });

  const refresh = (s: TestServer, token: string) =>
    tokenRequest(s.url, { grant_type: "refresh_token", refresh_token: token, client_id: clientId });

  const whoamiStatus = async (s: TestServer, token: string) =>
    (
      await rawMcp(s.url, token, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "whoami", arguments: {} },
      })
    ).status;

  async function family(familyId: string) {
    const access = await rows(
      a.deps,
      "SELECT token_hash, revoked_at FROM oauth_tokens WHERE family_id = ? ORDER BY id",
      familyId,
    );
    const refreshes = await rows(
      a.deps,
      "SELECT token_hash, used_at, revoked_at FROM oauth_refresh_tokens WHERE family_id = ? ORDER BY id",
      familyId,
    );
    return { access, refreshes };
  }

  test(
    `one code, ${N} token requests at once: one token pair issued; the rest invalid_grant, which revokes it (replay)`,
    async () => {
      const c = await newCode();
      const code = (await row<{ family_id: string }>(
        a.deps,
        "SELECT family_id FROM oauth_codes WHERE code_hash = ?",
        sha256Hex(c.code),
      ))!;
      const outs = await Promise.all(times(N, (i) => exchange(on(i), c)));
      for (const o of outs) expect(o.status, JSON.stringify(o.body)).toBeLessThan(500);
      const won = outs.filter((o) => o.status === 200);
      const lost = outs.filter((o) => o.status !== 200);
      expect(won).toHaveLength(1);
      expect(won[0]!.body.access_token).toMatch(/^svc_oauth_[0-9a-f]{64}$/);
      expect(lost).toHaveLength(N - 1);
      for (const o of lost) expect(o).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      // Exactly one pair was ever minted from the code …
      const f = await family(code.family_id);
      expect(f.access.map((r) => r.token_hash)).toEqual([sha256Hex(won[0]!.body.access_token)]);
      expect(f.refreshes.map((r) => r.token_hash)).toEqual([sha256Hex(won[0]!.body.refresh_token)]);
      // … and, the code having been presented again, it is revoked (RFC 6749 §4.1.2), on every instance.
      expect(f.access[0]!.revoked_at).not.toBeNull();
      expect(f.refreshes[0]!.revoked_at).not.toBeNull();
      await afterForeignWrite();
      for (const s of servers) expect(await whoamiStatus(s, won[0]!.body.access_token)).toBe(401);
      expect((await refresh(on(1), won[0]!.body.refresh_token)).body.error).toBe("invalid_grant");
    },
    RACE_TIMEOUT_MS,
  );

  test(
    `one refresh token, ${N} refreshes at once: one new pair; the rest invalid_grant, and the reuse revokes the family`,
    async () => {
      const c = await newCode();
      const first = await exchange(a, c);
      expect(first.status).toBe(200);
      const familyId = (await row<{ family_id: string }>(
        a.deps,
        "SELECT family_id FROM oauth_codes WHERE code_hash = ?",
        sha256Hex(c.code),
      ))!.family_id;
      await afterForeignWrite();
      for (const s of servers) expect(await whoamiStatus(s, first.body.access_token)).toBe(200);
      const outs = await Promise.all(times(N, (i) => refresh(on(i), first.body.refresh_token)));
      for (const o of outs) expect(o.status, JSON.stringify(o.body)).toBeLessThan(500);
      const won = outs.filter((o) => o.status === 200);
      const lost = outs.filter((o) => o.status !== 200);
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(N - 1);
      for (const o of lost) expect(o).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      const next = won[0]!.body;
      expect(next.refresh_token).not.toBe(first.body.refresh_token);
      // The family holds the first pair and exactly one rotated pair: no second winner minted anything.
      const f = await family(familyId);
      expect(f.access.map((r) => r.token_hash)).toEqual([
        sha256Hex(first.body.access_token),
        sha256Hex(next.access_token),
      ]);
      expect(f.refreshes.map((r) => r.token_hash)).toEqual([
        sha256Hex(first.body.refresh_token),
        sha256Hex(next.refresh_token),
      ]);
      expect(f.refreshes[0]!.used_at).not.toBeNull();
      expect(f.refreshes[1]!.used_at).toBeNull();
      // The spent token was presented again, so the whole family is revoked (OAuth 2.1 §4.3.1), the new pair included.
      for (const r of [...f.access, ...f.refreshes]) expect(r.revoked_at).not.toBeNull();
      await afterForeignWrite();
      for (const s of servers) {
        expect(await whoamiStatus(s, next.access_token)).toBe(401);
        expect(await whoamiStatus(s, first.body.access_token)).toBe(401);
      }
      expect((await refresh(on(1), next.refresh_token)).body.error).toBe("invalid_grant");
    },
    RACE_TIMEOUT_MS,
  );
});

test("the races ran on the engine's topology: two instances on PostgreSQL", () => {
  expect(servers).toHaveLength(ON_PG ? 2 : 1);
});
