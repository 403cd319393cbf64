/**
 * Approval links over real HTTP and MCP: the envelope, lifetime and expiry
 * (moving the ManualClock), re-minting through *_update, token guessing,
 * cross-site request protection, the page's security headers, and the
 * approvals tools (list, get, approve, reject) with their permission rules.
 * Deciding by id (MCP tools, the portal inbox) is checked at the exact
 * expiry instant on a link nothing has swept yet.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../../src/core/clock";
import { brandProfiles } from "../../src/domains/branding/tables";
import { addMember, createUser } from "../fixtures/accounts";
import { row, startTestServer, type TestServer } from "../harness";
import { anyoneWithLink } from "../fixtures/approvals";
import { makeWorld, SAMPLE_BLOCKS, toolNames, type World } from "../cms/world";
import { Browser, pageText, readForms } from "../oauth/helpers";

let s: TestServer;
let w: World;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  // These tests are about the page's mechanics and what deciding does; who may decide is who-decides.test.ts.
  await anyoneWithLink(s.deps, w.A.id);
});
afterAll(async () => {
  await s?.stop();
});

const draft = (title: string) =>
  w.ok(w.owner, "posts_create", { siteId: w.siteA, title, blocks: SAMPLE_BLOCKS.slice(0, 2) });

/** GETs the approval page as a browser would: returns status, body, the CSRF cookie and form token. */
async function open(url: string) {
  const r = await fetch(w.local(url));
  const body = await r.text();
  const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(body)?.[1] ?? "";
  return { status: r.status, body, headers: r.headers, cookie, csrf };
}

/** POSTs a decision like the page's form does; every piece can be overridden to play an attacker. */
async function decide(
  url: string,
  decision: string,
  o: { cookie?: string; csrf?: string; origin?: string | null; fetchSite?: string; body?: string; type?: string } = {},
) {
  const page = await open(url);
  const headers: Record<string, string> = {
    "Content-Type": o.type ?? "application/x-www-form-urlencoded",
    Cookie: o.cookie ?? page.cookie,
  };
  if (o.origin !== null) headers.Origin = o.origin ?? s.url;
  if (o.fetchSite) headers["Sec-Fetch-Site"] = o.fetchSite;
  const body = o.body ?? new URLSearchParams({ csrf: o.csrf ?? page.csrf, decision, comment: "ok" }).toString();
  const r = await fetch(w.local(url), { method: "POST", headers, body, redirect: "manual" });
  return { status: r.status, location: r.headers.get("location"), body: await r.text() };
}

describe("the envelope and lifetime", () => {
  test("posts_create returns the spec's envelope: 64-hex token, url, previewUrl, pending, expiresAt = now + 14 days", async () => {
    const now = s.clock.ms();
    const r = await draft("Envelope");
    expect(Object.keys(r.approval).sort()).toEqual([
      "expiresAt",
      "id",
      "linkType",
      "previewUrl",
      "status",
      "token",
      "url",
    ]);
    expect(r.approval.token).toMatch(/^[0-9a-f]{64}$/);
    expect(r.approval.url).toBe(`${s.config.publicUrl}/approve/${r.approval.token}`);
    expect(r.approval.previewUrl).toBe(r.approval.url);
    expect(r.approval.status).toBe("pending");
    expect(r.approval.linkType).toBe("entity");
    expect(s.config.approvalTtlDays).toBe(14);
    expect(Date.parse(r.approval.expiresAt)).toBe(now + 14 * DAY_MS);
    // Tokens come from the CSPRNG: two drafts never share one, and only the hash is stored.
    const other = await draft("Envelope two");
    expect(other.approval.token).not.toBe(r.approval.token);
    const stored = (await row(s.deps, "SELECT token_hash FROM approval_links WHERE id = ?", r.approval.id)) as {
      token_hash: string;
    };
    expect(stored.token_hash).not.toContain(r.approval.token);
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test("past 14 days the link is expired everywhere; posts_update mints a fresh pending link", async () => {
    const r = await draft("Expiring");
    s.clock.advance(14 * DAY_MS - 1000);
    expect((await open(r.approval.url)).status).toBe(200);
    s.clock.advance(1000);
    const page = await open(r.approval.url);
    expect(page.status).toBe(410);
    expect(page.body).toContain("expired");
    expect(page.body).not.toContain('name="decision"');
    expect((await decide(r.approval.url, "approve")).status).toBe(410);
    expect(await w.ok(w.owner, "approvals_get", { id: r.approval.id })).toMatchObject({ status: "expired" });
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id })).approval.status).toBe("expired");

    const again = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id });
    expect(again.status).toBe("pending");
    expect(again.approval.token).not.toBe(r.approval.token);
    expect(Date.parse(again.approval.expiresAt)).toBe(s.clock.ms() + 14 * DAY_MS);
    expect((await open(again.approval.url)).status).toBe(200);
    // The old link stays expired in the history.
    expect(await w.ok(w.owner, "approvals_get", { id: r.approval.id })).toMatchObject({ status: "expired" });
    const done = await decide(again.approval.url, "approve");
    expect(done.status).toBe(303);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id })).published).toBe(true);
  });

  test("updating a draft while its link is pending supersedes the old link", async () => {
    const r = await draft("Superseded");
    const again = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, excerpt: "Changed" });
    const old = await open(r.approval.url);
    expect(old.status).toBe(410);
    expect(old.body).toContain("replaced by a newer version");
    expect((await decide(r.approval.url, "approve")).status).toBe(410);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id })).published).toBe(false);
    expect((await decide(again.approval.url, "approve")).status).toBe(303);
  });
});

describe("token guessing", () => {
  test("wrong length, wrong case, non-hex and unknown tokens all get the same page that reveals nothing", async () => {
    const r = await draft("Guess me");
    const t: string = r.approval.token;
    const variants = [
      t.slice(0, 63),
      `${t}0`,
      t.toUpperCase(),
      `${t.slice(0, 63)}g`,
      "0".repeat(64),
      "../../etc/passwd",
      `${t.slice(0, 32)}%00${t.slice(32)}`,
    ];
    const bodies = new Set<string>();
    for (const v of variants) {
      const res = await fetch(`${s.url}/approve/${v}`);
      const body = await res.text();
      expect([404]).toContain(res.status);
      if (res.headers.get("content-type")?.includes("text/html")) {
        expect(body).not.toContain("Guess me");
        expect(body).not.toContain("Olivia");
        bodies.add(body.replace(/nonce="[0-9a-f]+"/, ""));
      }
      const post = await fetch(`${s.url}/approve/${v}`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: s.url },
        body: "decision=approve",
      });
      expect(post.status).toBe(404);
    }
    expect(bodies.size).toBe(1);
    expect((await w.ok(w.owner, "approvals_get", { id: r.approval.id })).status).toBe("pending");
  });

  test("another company's approval id is unknown to the approvals tools, exactly like a missing one", async () => {
    const theirs = await w.ok(w.stranger, "posts_create", { siteId: w.siteB, title: "Rival secret plan" });
    const foreign = await w.err(w.owner, "approvals_get", { id: theirs.approval.id });
    const missing = await w.err(w.owner, "approvals_get", { id: 987_654 });
    expect(foreign.replace(String(theirs.approval.id), "N")).toBe(missing.replace("987654", "N"));
    expect(foreign).not.toContain("Rival");
    const before = w.changes();
    expect(await w.err(w.owner, "approvals_approve", { id: theirs.approval.id })).toStartWith("Not found");
    expect(await w.err(w.owner, "approvals_reject", { id: theirs.approval.id })).toStartWith("Not found");
    expect(w.changes()).toBe(before);
    const list = await w.ok(w.owner, "approvals_list", { limit: 100 });
    expect(list.items.map((a: any) => a.id)).not.toContain(theirs.approval.id);
    expect(await w.err(w.owner, "approvals_list", { siteId: w.siteB })).toStartWith("Not found");
  });
});

describe("cross-site protection and request hygiene", () => {
  test("the page carries a strict CSP and other safety headers", async () => {
    const r = await draft("Headers");
    const page = await open(r.approval.url);
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(csp).not.toMatch(/style-src [^;]*'unsafe-inline'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    const nonce = /'nonce-([0-9a-f]+)'/.exec(csp)![1];
    expect(page.body).toContain(`<style nonce="${nonce}">`);
    expect(page.body).not.toContain("<script");
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.cookie).toMatch(/^plinth_approve=[0-9a-f]{32}$/);
    const second = await open(r.approval.url);
    expect(/'nonce-([0-9a-f]+)'/.exec(second.headers.get("content-security-policy")!)![1]).not.toBe(nonce);
  });

  test("the preview uses the site's branding; brand values that are not plain colours or fonts never reach the CSS", async () => {
    await s.deps.db
      .insert(brandProfiles)
      .values({
        siteId: w.siteA,
        data: {
          primaryColor: "#aa3300",
          textColor: "#101010",
          headingFont: "Playfair Display",
          bodyFont: "x;}</style><script>alert(1)</script>",
          linkColor: "red;background:url(//evil)",
        },
      })
      .onConflictDoUpdate({
        target: brandProfiles.siteId,
        set: {
          data: {
            primaryColor: "#aa3300",
            textColor: "#101010",
            headingFont: "Playfair Display",
            bodyFont: "x;}</style><script>alert(1)</script>",
            linkColor: "red;background:url(//evil)",
          },
        },
      });
    const r = await draft("Branded");
    const page = await open(r.approval.url);
    const css = /<style nonce="[0-9a-f]+">([\s\S]*?)<\/style>/.exec(page.body)![1]!;
    expect(css).toContain(".ap-content .pb-button-primary{background:#aa3300");
    expect(css).toContain("color:#101010");
    expect(css).toContain("font-family:Playfair Display");
    expect(css).not.toContain("evil");
    expect(page.body).not.toContain("<script");
    expect(css).toContain(".ap-content a{color:#aa3300}");
  });

  test("decisions from another site, without the form token or with a forged one, are refused and change nothing", async () => {
    const r = await draft("CSRF target");
    const before = w.changes();
    expect((await decide(r.approval.url, "approve", { origin: "https://evil.example" })).status).toBe(403);
    expect((await decide(r.approval.url, "approve", { origin: "null" })).status).toBe(403);
    expect((await decide(r.approval.url, "approve", { fetchSite: "cross-site" })).status).toBe(403);
    expect((await decide(r.approval.url, "approve", { cookie: "" })).status).toBe(403);
    expect((await decide(r.approval.url, "approve", { csrf: "" })).status).toBe(403);
    expect((await decide(r.approval.url, "approve", { csrf: "a".repeat(32) })).status).toBe(403);
    expect((await decide(r.approval.url, "approve", { cookie: `plinth_approve=${"b".repeat(32)}` })).status).toBe(403);
    expect(w.changes()).toBe(before);
    expect((await w.ok(w.owner, "approvals_get", { id: r.approval.id })).status).toBe("pending");
  });

  test("Sec-Fetch-Site: same-site (a sibling subdomain) and look-alike Origins are refused like cross-site; same-origin goes through", async () => {
    const r = await draft("Sibling target");
    const port = new URL(s.url).port;
    const sibling = `http://blog.localhost:${port}`;
    const before = w.changes();
    const refused: [string, { origin?: string | null; fetchSite?: string }][] = [
      ["same-site from a sibling subdomain", { origin: sibling, fetchSite: "same-site" }],
      // Our own Origin beside it: the Sec-Fetch-Site check alone must refuse.
      ["same-site beside our Origin", { fetchSite: "same-site" }],
      ["same-site without Origin", { origin: null, fetchSite: "same-site" }],
      ["a sibling subdomain's Origin, no Sec-Fetch-Site", { origin: sibling }],
      ["a cross-site Origin claiming same-origin", { origin: "https://evil.example", fetchSite: "same-origin" }],
      ["another port that starts with ours", { origin: `${s.url}1` }],
    ];
    for (const [what, o] of refused) {
      const res = await decide(r.approval.url, "approve", o);
      expect({ what, status: res.status }).toEqual({ what, status: 403 });
      expect(res.body).toContain("sent from another site");
    }
    expect(w.changes()).toBe(before);
    expect((await w.ok(w.owner, "approvals_get", { id: r.approval.id })).status).toBe("pending");
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id })).published).toBe(false);

    const ok = await decide(r.approval.url, "approve", { fetchSite: "same-origin" });
    expect(ok.status).toBe(303);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id })).published).toBe(true);
  });

  test("malformed posts get 4xx pages, never a 500, and change nothing", async () => {
    const r = await draft("Malformed");
    const before = w.changes();
    expect((await decide(r.approval.url, "publish-everything")).status).toBe(400);
    expect(
      (await decide(r.approval.url, "approve", { type: "application/json", body: '{"decision":"approve"}' })).status,
    ).toBe(415);
    expect(
      (await decide(r.approval.url, "approve", { body: `decision=approve&comment=${"x".repeat(20_000)}` })).status,
    ).toBe(413);
    const page = await open(r.approval.url);
    const longComment = await decide(r.approval.url, "approve", {
      body: new URLSearchParams({ csrf: page.csrf, decision: "approve", comment: "y".repeat(2001) }).toString(),
      cookie: page.cookie,
    });
    expect(longComment.status).toBe(400);
    expect(w.changes()).toBe(before);
  });

  test("a decision with the page's own token from the same origin goes through, once", async () => {
    const r = await draft("Honest");
    const ok = await decide(r.approval.url, "approve");
    expect(ok.status).toBe(303);
    expect(ok.location).toBe(`/approve/${r.approval.token}?done=approved`);
    const done = await open(`${r.approval.url}?done=approved`);
    expect(done.body).toContain("Approved. The change is live.");
    const twice = await decide(r.approval.url, "approve");
    expect(twice.status).toBe(409);
    expect(twice.body).toContain("already approved");
    const reject = await decide(r.approval.url, "reject");
    expect(reject.status).toBe(409);
    expect(reject.body).toContain("already approved");
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id })).status).toBe("published");
  });
});

describe("approvals tools", () => {
  test("list filters by status and type and paginates; get explains the proposal", async () => {
    const a = await draft("Listed one");
    await draft("Listed two");
    const pending = await w.ok(w.owner, "approvals_list", { status: "pending", entityType: "post", limit: 1 });
    expect(pending.items).toHaveLength(1);
    expect(pending.total).toBeGreaterThanOrEqual(2);
    expect(pending.nextOffset).toBe(1);
    expect(pending.items[0].status).toBe("pending");
    expect(pending.items[0]).not.toHaveProperty("token");
    const got = await w.ok(w.reader, "approvals_get", { id: a.approval.id, include: ["html"] });
    expect(got).toMatchObject({
      id: a.approval.id,
      linkType: "entity",
      entityType: "post",
      entityId: a.id,
      status: "pending",
      requestedBy: { name: "Olivia Owner" },
      credential: { kind: "mcp_key", name: "Agent key" },
    });
    expect(got.proposal.title).toBe("Listed one");
    expect(got.html).toContain("Single-origin espresso");
    expect(JSON.stringify(got)).not.toContain(a.approval.token);
    expect(await w.err(w.owner, "approvals_list", { status: "bogus" })).toStartWith("Invalid arguments");
  });

  test("approve and reject by id; repeating the same decision is idempotent, the opposite one is refused", async () => {
    const a = await draft("Tool approved");
    const ok = await w.ok(w.colleague, "approvals_approve", { id: a.approval.id, comment: "ship it" });
    expect(ok).toMatchObject({ id: a.approval.id, status: "approved", result: { postId: a.id, status: "published" } });
    expect(await w.ok(w.colleague, "approvals_approve", { id: a.approval.id })).toMatchObject({
      status: "approved",
      alreadyDecided: true,
    });
    expect(await w.err(w.colleague, "approvals_reject", { id: a.approval.id })).toContain("already approved");
    const b = await draft("Tool rejected");
    expect(await w.ok(w.colleague, "approvals_reject", { id: b.approval.id, comment: "no" })).toMatchObject({
      status: "rejected",
    });
    expect(await w.err(w.colleague, "approvals_approve", { id: b.approval.id })).toContain("already rejected");
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: b.id })).published).toBe(false);
  });

  test("a viewer cannot decide, a read-only credential does not see the deciding tools, a gated one cannot approve", async () => {
    const a = await draft("Permissions");
    for (const c of [w.viewer, w.reader, w.gated]) await w.ok(c, "whoami"); // last-used writes happen before the count
    const before = w.changes();
    expect(await w.err(w.viewer, "approvals_approve", { id: a.approval.id })).toContain("viewer");
    const names = await toolNames(w.reader);
    expect(names).toContain("approvals_list");
    expect(names).not.toContain("approvals_approve");
    expect(names).not.toContain("posts_create");
    // The gated key belongs to the owner, who asked: refused as the requester (the rule that comes first).
    expect(await w.err(w.gated, "approvals_approve", { id: a.approval.id })).toContain(
      "You asked for this change yourself",
    );
    expect(w.changes()).toBe(before);
    expect((await w.ok(w.owner, "approvals_get", { id: a.approval.id })).status).toBe("pending");
  });
});

describe("deciding by id at the expiry instant, before anything swept the link", () => {
  /** A draft whose link nothing has read since it was minted (no list, no page view): the stored status is still pending. */
  async function unswept(title: string) {
    const r = await draft(title);
    return { ...r, expiresAt: Date.parse(r.approval.expiresAt) as number };
  }
  const stored = async (id: number) =>
    ((await row(s.deps, "SELECT status FROM approval_links WHERE id = ?", id)) as { status: string }).status;
  const published = async (id: number) =>
    (await w.ok(w.owner, "posts_get", { siteId: w.siteA, id })).published as boolean;

  test("approvals_approve: one millisecond before expiry it publishes; at the exact instant it answers expired and publishes nothing", async () => {
    const early = await unswept("Approved just in time");
    const late = await unswept("Approved too late");
    expect(late.expiresAt).toBe(early.expiresAt); // the clock did not move between the two drafts
    s.clock.set(early.expiresAt - 1);
    expect(await w.ok(w.colleague, "approvals_approve", { id: early.approval.id })).toMatchObject({
      status: "approved",
    });
    expect(await published(early.id)).toBe(true);

    s.clock.set(late.expiresAt);
    expect(await stored(late.approval.id)).toBe("pending");
    const refused = await w.err(w.colleague, "approvals_approve", { id: late.approval.id });
    expect(refused).toContain("expired");
    expect(refused).not.toContain("already approved");
    expect(await published(late.id)).toBe(false);
    expect(await w.ok(w.owner, "approvals_get", { id: late.approval.id })).toMatchObject({
      status: "expired",
      decidedAt: null,
    });
    expect(await stored(late.approval.id)).toBe("expired");
  });

  test("approvals_reject: one millisecond before expiry it rejects; at the exact instant it answers expired and records no decision", async () => {
    const early = await unswept("Rejected just in time");
    const late = await unswept("Rejected too late");
    s.clock.set(early.expiresAt - 1);
    expect(await w.ok(w.colleague, "approvals_reject", { id: early.approval.id, comment: "no" })).toMatchObject({
      status: "rejected",
    });

    s.clock.set(late.expiresAt);
    expect(await stored(late.approval.id)).toBe("pending");
    expect(await w.err(w.colleague, "approvals_reject", { id: late.approval.id, comment: "too late" })).toContain(
      "expired",
    );
    expect(await w.ok(w.owner, "approvals_get", { id: late.approval.id })).toMatchObject({
      status: "expired",
      decidedAt: null,
      comment: null,
    });
    expect(await published(late.id)).toBe(false);
  });

  test("the portal inbox's decide form: loaded a millisecond before expiry, posted at the exact instant, it answers expired", async () => {
    const email = `reviewer${w.A.id}@cms.test`;
    const reviewer = await createUser(s.deps, { email, password: "a long reviewer password", name: "Rita Reviewer" });
    await addMember(s.deps, w.A.id, reviewer.id, "admin");
    for (const decision of ["approve", "reject"] as const) {
      const early = await unswept(`Portal ${decision} in time`);
      const late = await unswept(`Portal ${decision} too late`);
      s.clock.set(early.expiresAt - 1);
      // Signed in now: a session lasts a week, less than the link's lifetime.
      const b = new Browser(s.config.publicUrl);
      expect((await b.signIn(email, "a long reviewer password")).status).toBe(303);
      const form = async (id: number) => {
        // The detail page, as a person opens it from the inbox; it reads the link without sweeping.
        const f = (await readForms(await (await b.get(`/approvals/${id}`)).text())).find(
          (x) => x.action === `/approvals/${id}/decide`,
        );
        if (!f) throw new Error(`no decide form on /approvals/${id}`);
        return Object.fromEntries(f.fields.filter((x) => x.type !== "submit").map((x) => [x.name, x.value]));
      };
      const inTime = await b.post(`/approvals/${early.approval.id}/decide`, {
        ...(await form(early.approval.id)),
        decision,
      });
      expect(inTime.status).toBe(303);
      expect((await w.ok(w.owner, "approvals_get", { id: early.approval.id })).status).toBe(
        decision === "approve" ? "approved" : "rejected",
      );

      const fields = await form(late.approval.id);
      s.clock.set(late.expiresAt);
      expect(await stored(late.approval.id)).toBe("pending");
      const res = await b.post(`/approvals/${late.approval.id}/decide`, { ...fields, decision });
      expect(res.status).toBe(409);
      expect(await pageText(await res.text())).toContain("This request expired on");
      expect(await published(late.id)).toBe(false);
      expect(await w.ok(w.owner, "approvals_get", { id: late.approval.id })).toMatchObject({
        status: "expired",
        decidedAt: null,
      });
    }
  });
});
