/**
 * Who may decide on the approval page (issue 30), over real HTTP against the
 * real server: the agent that asked holds the link too, so under the
 * `person` policy (the default) holding it decides nothing. The matrix:
 * the requesting agent with the link, the requester signed in (page and
 * portal inbox), a viewer, another member signed in, a listed reviewer with
 * a right and a wrong code, an unlisted address, a reviewer of another
 * company, an expired code, a replayed code, a code for another link, the
 * send and try limits at their exact boundaries, hostile input in the email
 * and code fields, and the `link` policy (anyone decides, recorded as a link
 * holder, owners and admins notified). Settings over the portal and MCP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { and, desc, eq } from "drizzle-orm";
import { mailOutbox } from "../../src/core/tables";
import { CODE_MAIL_TAG, CODE_MAX_TRIES, CODE_SENDS_PER_HOUR, CODE_TTL_MS } from "../../src/domains/approvals/reviewers";
import { approvalLinks } from "../../src/domains/approvals/tables";
import { notifications } from "../../src/domains/notifications/tables";
import { addMember, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { setApprovalPolicy } from "../fixtures/approvals";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";
import { Browser } from "../oauth/helpers";

let s: TestServer;
let w: World;
/** An MCP key of Asa, an admin of A: the agent that asks. */
let agent: Client;
let asa: { id: number };
let maya: { id: number };
let vic: { id: number };
const PASSWORD = "correct horse battery staple";
const RITA = "rita@client.test";
const BOB = "bob@other.test";

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  asa = await createUser(s.deps, { email: "asa@who.test", name: "Asa Asker", password: PASSWORD });
  maya = await createUser(s.deps, { email: "maya@who.test", name: "Maya Ortiz", password: PASSWORD });
  vic = await createUser(s.deps, { email: "vic@who.test", name: "Vic Viewer", password: PASSWORD });
  await addMember(s.deps, w.A.id, asa.id, "admin");
  await addMember(s.deps, w.A.id, maya.id, "admin");
  await addMember(s.deps, w.A.id, vic.id, "viewer");
  agent = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: asa.id, scopes: ["*"], companyIds: [w.A.id], name: "Asa's agent" })).key,
  );
  await setApprovalPolicy(s.deps, w.A.id, "person", [RITA]);
  await setApprovalPolicy(s.deps, w.B.id, "person", [BOB]);
}, 30_000);
afterAll(async () => {
  await s?.stop();
});

/** A post drafted by Asa's agent: the envelope as the agent got it. */
async function drafted(title: string) {
  const r = await w.ok(agent, "posts_create", { siteId: w.siteA, title });
  return { id: r.id as number, approvalId: r.approval.id as number, path: new URL(r.approval.url).pathname };
}

const linkRow = async (id: number) =>
  (await s.deps.db.select().from(approvalLinks).where(eq(approvalLinks.id, id)))[0]!;

/** Opens the page in `b` (its cookie jar keeps the page's CSRF cookie and any session). */
async function open(b: Browser, path: string) {
  const r = await b.get(path);
  const body = await r.text();
  return { status: r.status, body, csrf: /name="csrf" value="([0-9a-f]+)"/.exec(body)?.[1] ?? "" };
}

async function send(b: Browser, path: string, fields: Record<string, string>) {
  const r = await b.post(path, fields);
  return { status: r.status, location: r.headers.get("location"), body: await r.text() };
}

/** Asks for a code on the page as `email` and returns the response. */
async function askCode(b: Browser, path: string, email: string) {
  const page = await open(b, path);
  return await send(b, `${path}/code`, { csrf: page.csrf, email });
}

const codeMails = async (to: string) =>
  (
    await s.deps.db.select().from(mailOutbox).where(eq(mailOutbox.tag, CODE_MAIL_TAG)).orderBy(desc(mailOutbox.id))
  ).filter((m) => m.to.includes(to));

/** The code in the newest mail to `to` (read where unsent mail is kept: no SMTP in tests). */
async function lastCode(to: string): Promise<string> {
  const m = (await codeMails(to))[0];
  const code = /Your code: ([0-9]{8})/.exec(m?.text ?? "")?.[1];
  if (!code) throw new Error(`no code mailed to ${to}`);
  return code;
}

async function decideWithCode(b: Browser, path: string, email: string, code: string, decision = "approve") {
  const page = await open(b, path);
  return await send(b, path, { csrf: page.csrf, email, code, decision, comment: "Looks right" });
}

async function signedIn(email: string): Promise<Browser> {
  const b = new Browser(s.url);
  const r = await b.signIn(email, PASSWORD);
  expect(r.status).toBe(303);
  return b;
}

describe("person (the default): holding the link is not enough", () => {
  test("a company without a settings row uses person, with no reviewers", async () => {
    const { settingsOf } = await import("../../src/domains/approvals/reviewers");
    expect(await settingsOf(s.deps.db, 999_999)).toEqual({ policy: "person", reviewers: [], updatedAt: null });
  });

  test("the requesting agent, with the link and the page's form token, cannot decide; a typed name changes nothing", async () => {
    const d = await drafted("Agent tries itself");
    const b = new Browser(s.url);
    const page = await open(b, d.path);
    expect(page.status).toBe(200);
    // The preview is public; the decision buttons are not offered.
    expect(page.body).toContain("Agent tries itself");
    expect(page.body).not.toContain('name="decision"');
    expect(page.body).toContain("Sign in to decide");
    expect(page.body).toContain(`href="/login?next=${encodeURIComponent(d.path)}"`);
    expect(page.body).toContain("Get a code by email");
    for (const name of ["agent", "Maya Ortiz"]) {
      const r = await send(b, d.path, { csrf: page.csrf, decision: "approve", name });
      expect(r.status).toBe(403);
      expect(r.body).toContain("Holding this link is not enough to decide");
    }
    expect((await linkRow(d.approvalId)).status).toBe("pending");
    expect((await w.ok(agent, "posts_get", { siteId: w.siteA, id: d.id })).published).toBe(false);
  });

  test("the requester signed in cannot decide on the page nor in the portal inbox", async () => {
    const d = await drafted("Asa decides own");
    const b = await signedIn("asa@who.test");
    const page = await open(b, d.path);
    expect(page.body).toContain("Signed in as <strong>Asa Asker</strong>");
    expect(page.body).toContain("You asked for this change yourself");
    expect(page.body).not.toContain('name="decision"');
    const r = await send(b, d.path, { csrf: page.csrf, decision: "approve" });
    expect(r.status).toBe(403);
    expect(r.body).toContain("You asked for this change yourself");
    // The portal inbox: no buttons, and a forged post is refused.
    const inbox = await (await b.get(`/approvals/${d.approvalId}`)).text();
    expect(inbox).toContain("You asked for this change yourself");
    expect(inbox).not.toContain(`action="/approvals/${d.approvalId}/decide"`);
    const forged = await b.post(`/approvals/${d.approvalId}/decide`, {
      _csrf: await b.csrf("/approvals"),
      decision: "approve",
    });
    expect(forged.status).toBe(403);
    expect((await linkRow(d.approvalId)).status).toBe("pending");
  });

  test("a viewer signed in cannot decide", async () => {
    const d = await drafted("Viewer tries");
    const b = await signedIn("vic@who.test");
    const page = await open(b, d.path);
    expect(page.body).toContain("Only owners and admins");
    const r = await send(b, d.path, { csrf: page.csrf, decision: "approve" });
    expect(r.status).toBe(403);
    expect((await linkRow(d.approvalId)).status).toBe("pending");
  });

  test("an owner of another company signed in cannot decide this company's link", async () => {
    const rival = await createUser(s.deps, { email: "rival@who.test", name: "Rival Owner", password: PASSWORD });
    await addMember(s.deps, w.B.id, rival.id, "owner");
    const d = await drafted("Not your company");
    const b = await signedIn("rival@who.test");
    const page = await open(b, d.path);
    expect(page.body).toContain("You are not a member of the company this request belongs to.");
    expect(page.body).not.toContain('name="decision"');
    const r = await send(b, d.path, { csrf: page.csrf, decision: "approve" });
    expect(r.status).toBe(403);
    expect((await linkRow(d.approvalId)).status).toBe("pending");
  });

  test("another member signed in decides: recorded as that member, and the post is live", async () => {
    const d = await drafted("Maya approves");
    const b = await signedIn("maya@who.test");
    const page = await open(b, d.path);
    expect(page.body).toContain("Signed in as <strong>Maya Ortiz</strong> (maya@who.test), admin of");
    expect(page.body).toContain('name="decision" value="approve"');
    const r = await send(b, d.path, { csrf: page.csrf, decision: "approve", comment: "Fine" });
    expect(r.status).toBe(303);
    expect(r.location).toBe(`${d.path}?done=approved`);
    const link = await linkRow(d.approvalId);
    expect(link).toMatchObject({
      status: "approved",
      decidedBy: "Maya Ortiz (member)",
      decidedVia: "member",
      decidedByUserId: maya.id,
      decidedByEmail: null,
      comment: "Fine",
    });
    expect((await w.ok(agent, "approvals_get", { id: d.approvalId })).decidedBy).toBe("Maya Ortiz (member)");
    expect((await w.ok(agent, "posts_get", { siteId: w.siteA, id: d.id })).published).toBe(true);
  });

  test("a listed reviewer: a wrong code is refused and counted, the right one decides, recorded by address", async () => {
    const d = await drafted("Rita approves");
    const b = new Browser(s.url);
    const asked = await askCode(b, d.path, "  Rita@Client.TEST ");
    expect(asked.status).toBe(200);
    expect(asked.body).toContain(`If ${RITA} is a reviewer for this request, a 8-digit code is on its way there.`);
    expect(asked.body).toContain('name="code"');
    const code = await lastCode(RITA);
    const mail = (await codeMails(RITA))[0]!;
    // The mail holds the code, never the link's token.
    expect(mail.text).not.toContain(d.path.slice("/approve/".length));
    const wrong = code === "00000000" ? "00000001" : "00000000";
    const miss = await decideWithCode(b, d.path, RITA, wrong);
    expect(miss.status).toBe(403);
    expect(miss.body).toContain(`That code is not right. Nothing was decided. ${CODE_MAX_TRIES - 1} tries left`);
    expect((await linkRow(d.approvalId)).status).toBe("pending");
    const hit = await decideWithCode(b, d.path, RITA, code);
    expect(hit.status).toBe(303);
    expect(await linkRow(d.approvalId)).toMatchObject({
      status: "approved",
      decidedBy: `${RITA} (verified reviewer)`,
      decidedVia: "reviewer",
      decidedByUserId: null,
      decidedByEmail: RITA,
      comment: "Looks right",
    });
    const shown = await open(b, d.path);
    expect(shown.body).toContain(`already approved on`);
    expect(shown.body).toContain(`by ${RITA} (verified reviewer). Comment: “Looks right”`);
  });

  test("an unlisted address gets the same answer and no mail; so does the requester's own address when listed", async () => {
    const d = await drafted("Unlisted");
    await setApprovalPolicy(s.deps, w.A.id, "person", [RITA, "asa@who.test"]);
    try {
      const before = (await s.deps.db.select().from(mailOutbox)).length;
      const listed = await askCode(new Browser(s.url), d.path, RITA);
      const unlisted = await askCode(new Browser(s.url), d.path, "nobody@who.test");
      const own = await askCode(new Browser(s.url), d.path, "asa@who.test");
      const strip = (html: string, who: string) =>
        html
          .replaceAll(who, "ADDRESS")
          .replace(/name="csrf" value="[0-9a-f]+"/g, "")
          .replace(/nonce="[0-9a-f]+"/g, "");
      expect(unlisted.status).toBe(listed.status);
      expect(strip(unlisted.body, "nobody@who.test")).toBe(strip(listed.body, RITA));
      expect(strip(own.body, "asa@who.test")).toBe(strip(listed.body, RITA));
      // One mail: Rita's.
      expect((await s.deps.db.select().from(mailOutbox)).length).toBe(before + 1);
      expect(await codeMails("asa@who.test")).toEqual([]);
    } finally {
      await setApprovalPolicy(s.deps, w.A.id, "person", [RITA]);
    }
  });

  test("a reviewer of another company gets no code here, and their own company's code does not work here", async () => {
    const here = await drafted("Bob is not ours");
    const b = new Browser(s.url);
    expect((await askCode(b, here.path, BOB)).status).toBe(200);
    expect(await codeMails(BOB)).toEqual([]);
    const theirs = await w.ok(w.stranger, "posts_create", { siteId: w.siteB, title: "Rival draft" });
    const theirPath = new URL(theirs.approval.url).pathname;
    await askCode(b, theirPath, BOB);
    const code = await lastCode(BOB);
    const r = await decideWithCode(b, here.path, BOB, code);
    expect(r.status).toBe(403);
    expect(r.body).toContain("That code no longer works");
    expect((await linkRow(here.approvalId)).status).toBe("pending");
    // Still good where it belongs.
    expect((await decideWithCode(b, theirPath, BOB, code)).status).toBe(303);
  });

  test("a code for another link of the same company does not decide this one", async () => {
    const one = await drafted("Link one");
    const two = await drafted("Link two");
    const b = new Browser(s.url);
    await askCode(b, one.path, RITA);
    const code = await lastCode(RITA);
    const r = await decideWithCode(b, two.path, RITA, code);
    expect(r.status).toBe(403);
    expect(r.body).toContain("That code no longer works");
    expect((await linkRow(two.approvalId)).status).toBe("pending");
    expect((await decideWithCode(b, one.path, RITA, code)).status).toBe(303);
  });

  test("an expired code (10 minutes, to the millisecond) is refused", async () => {
    const d = await drafted("Slow reviewer");
    const b = new Browser(s.url);
    await askCode(b, d.path, RITA);
    const code = await lastCode(RITA);
    s.clock.advance(CODE_TTL_MS);
    const r = await decideWithCode(b, d.path, RITA, code);
    expect(r.status).toBe(403);
    expect(r.body).toContain("That code no longer works");
    expect((await linkRow(d.approvalId)).status).toBe("pending");
    // One millisecond before the end it still works.
    await askCode(b, d.path, RITA);
    const fresh = await lastCode(RITA);
    s.clock.advance(CODE_TTL_MS - 1);
    expect((await decideWithCode(b, d.path, RITA, fresh)).status).toBe(303);
  });

  test("a replayed code is refused: a code is spent by its first use, even when approving hit a conflict", async () => {
    const cat = await w.ok(w.owner, "categories_create", { siteId: w.siteA, name: "Replay original" });
    const held = await w.ok(w.gated, "categories_update", { siteId: w.siteA, id: cat.id, name: "Replay proposed" });
    const path = new URL(held.approval.url).pathname;
    await w.ok(w.owner, "categories_update", { siteId: w.siteA, id: cat.id, name: "Moved on" });
    const b = new Browser(s.url);
    await askCode(b, path, RITA);
    const code = await lastCode(RITA);
    const first = await decideWithCode(b, path, RITA, code);
    expect(first.status).toBe(409);
    expect(first.body).toContain("could not be applied");
    const again = await decideWithCode(b, path, RITA, code, "reject");
    expect(again.status).toBe(403);
    expect(again.body).toContain("That code no longer works");
    expect((await linkRow(held.approval.id)).status).toBe("pending");
  });

  test("only the newest code works once a new one is sent", async () => {
    const d = await drafted("Two codes");
    const b = new Browser(s.url);
    await askCode(b, d.path, RITA);
    const older = await lastCode(RITA);
    await askCode(b, d.path, RITA);
    const newer = await lastCode(RITA);
    if (older !== newer) expect((await decideWithCode(b, d.path, RITA, older)).status).toBe(403);
    expect((await decideWithCode(b, d.path, RITA, newer)).status).toBe(303);
  });

  test(`at most ${CODE_SENDS_PER_HOUR} codes an hour per link and address, to the millisecond; the answer does not change`, async () => {
    const d = await drafted("Send limit");
    const other = await drafted("Send limit, other link");
    const b = new Browser(s.url);
    const before = (await codeMails(RITA)).length;
    const answers: string[] = [];
    for (let i = 0; i < CODE_SENDS_PER_HOUR + 1; i++) {
      const r = await askCode(b, d.path, RITA);
      expect(r.status).toBe(200);
      answers.push(r.body.replace(/name="csrf" value="[0-9a-f]+"/g, "").replace(/nonce="[0-9a-f]+"/g, ""));
    }
    expect(new Set(answers).size).toBe(1);
    expect((await codeMails(RITA)).length).toBe(before + CODE_SENDS_PER_HOUR);
    // Another link has its own allowance.
    await askCode(b, other.path, RITA);
    expect((await codeMails(RITA)).length).toBe(before + CODE_SENDS_PER_HOUR + 1);
    s.clock.advance(3600_000 - 1);
    await askCode(b, d.path, RITA);
    expect((await codeMails(RITA)).length).toBe(before + CODE_SENDS_PER_HOUR + 1);
    s.clock.advance(1);
    await askCode(b, d.path, RITA);
    expect((await codeMails(RITA)).length).toBe(before + CODE_SENDS_PER_HOUR + 2);
  });

  test(`${CODE_MAX_TRIES} wrong tries end a code: even the right one is refused after them`, async () => {
    const d = await drafted("Guessing");
    const b = new Browser(s.url);
    await askCode(b, d.path, RITA);
    const code = await lastCode(RITA);
    const wrong = code === "12345678" ? "87654321" : "12345678";
    for (let i = 1; i < CODE_MAX_TRIES; i++) {
      const r = await decideWithCode(b, d.path, RITA, wrong);
      expect(r.status).toBe(403);
      expect(r.body).toContain(`${CODE_MAX_TRIES - i} ${CODE_MAX_TRIES - i === 1 ? "try" : "tries"} left`);
    }
    const last = await decideWithCode(b, d.path, RITA, wrong);
    expect(last.status).toBe(403);
    expect(last.body).toContain("That code no longer works");
    const right = await decideWithCode(b, d.path, RITA, code);
    expect(right.status).toBe(403);
    expect((await linkRow(d.approvalId)).status).toBe("pending");
  });

  test("hostile input in the email and code fields gets a clear 4xx page, never a 500, and decides nothing", async () => {
    const d = await drafted("Hostile");
    const b = new Browser(s.url);
    const cases: [string, Record<string, string>][] = [
      ["markup as address", { email: '<script>alert(1)</script>@x.test"' }],
      ["NUL in address", { email: "rita\u0000@client.test" }],
      ["huge address", { email: `${"a".repeat(5000)}@client.test` }],
      ["empty address", { email: "" }],
    ];
    for (const [what, fields] of cases) {
      const page = await open(b, d.path);
      const r = await send(b, `${d.path}/code`, { csrf: page.csrf, ...fields });
      expect({ what, status: r.status }).toEqual({ what, status: 400 });
      expect(r.body).toContain("Enter your email address");
      expect(r.body).not.toContain("<script>alert(1)");
    }
    const codes: [string, Record<string, string>][] = [
      ["markup as code", { email: RITA, code: "<b>1234</b>" }],
      ["NUL in code", { email: RITA, code: "1234\u00005678" }],
      ["huge code", { email: RITA, code: "9".repeat(10_000) }],
      ["letters", { email: RITA, code: "abcdefgh" }],
      ["code without address", { email: "", code: "12345678" }],
      ["markup address with code", { email: "<i>x</i>", code: "12345678" }],
    ];
    for (const [what, fields] of codes) {
      const page = await open(b, d.path);
      const r = await send(b, d.path, { csrf: page.csrf, decision: "approve", ...fields });
      expect({ what, status: r.status }).toEqual({ what, status: 400 });
      expect(r.body).not.toContain("<b>1234");
      expect(r.body).not.toContain("<i>x</i>");
    }
    // A body past the form limit is a 413 page.
    const page = await open(b, d.path);
    const big = await send(b, `${d.path}/code`, { csrf: page.csrf, email: "x".repeat(20_000) });
    expect(big.status).toBe(413);
    // Cross-site and token-less code requests are refused before anything is sent.
    const before = (await codeMails(RITA)).length;
    const noCsrf = await send(b, `${d.path}/code`, { email: RITA });
    expect(noCsrf.status).toBe(403);
    const r = await b.post(`${d.path}/code`, { csrf: page.csrf, email: RITA }, { origin: "https://evil.example" });
    expect(r.status).toBe(403);
    expect((await codeMails(RITA)).length).toBe(before);
    expect((await linkRow(d.approvalId)).status).toBe("pending");
  });
});

describe("link: anyone with the link decides, recorded as a link holder", () => {
  test("the agent's link decides; owners and admins are notified; the requester may decide in the inbox", async () => {
    await setApprovalPolicy(s.deps, w.A.id, "link");
    try {
      await s.deps.db.delete(notifications);
      const d = await drafted("Anyone decides");
      const b = new Browser(s.url);
      const page = await open(b, d.path);
      expect(page.body).toContain("lets anyone with this link decide, including the agent that asked");
      expect(page.body).not.toContain('name="name"');
      const r = await send(b, d.path, { csrf: page.csrf, decision: "reject", name: "Maya Ortiz", comment: "No" });
      expect(r.status).toBe(303);
      const link = await linkRow(d.approvalId);
      expect(link).toMatchObject({
        status: "rejected",
        decidedBy: "link holder",
        decidedVia: "link",
        decidedByUserId: null,
      });
      const told = await s.deps.db
        .select({ userId: notifications.userId, title: notifications.title })
        .from(notifications)
        .where(and(eq(notifications.type, "approval.link_decided"), eq(notifications.companyId, w.A.id)));
      // Owner, colleague, Asa and Maya (owners and admins of A); not the viewers.
      expect(told.map((n) => n.userId).sort((x, y) => x - y)).toEqual(
        [w.ownerUserId, asa.id, maya.id, ...(await adminsBesides())].sort((x, y) => x - y),
      );
      expect(told.map((n) => n.userId)).not.toContain(vic.id);
      expect(told[0]!.title).toBe("Rejected by a link holder: Anyone decides");
      // Under link, the requester may decide their own in the inbox too.
      const own = await drafted("Asa decides own under link");
      const asaB = await signedIn("asa@who.test");
      const decided = await asaB.post(`/approvals/${own.approvalId}/decide`, {
        _csrf: await asaB.csrf("/approvals"),
        decision: "approve",
      });
      expect(decided.status).toBe(303);
      expect(await linkRow(own.approvalId)).toMatchObject({
        status: "approved",
        decidedBy: "Asa Asker (member)",
        decidedVia: "member",
        decidedByUserId: asa.id,
      });
    } finally {
      await setApprovalPolicy(s.deps, w.A.id, "person", [RITA]);
    }
  });
});

/** A's admins made by makeWorld besides its owner (the colleague). */
async function adminsBesides(): Promise<number[]> {
  const { memberships } = await import("../../src/core/tables");
  const rows = await s.deps.db.select().from(memberships).where(eq(memberships.companyId, w.A.id));
  return rows
    .filter((m) => (m.role === "admin" || m.role === "owner") && ![w.ownerUserId, asa.id, maya.id].includes(m.userId))
    .map((m) => m.userId);
}

describe("settings", () => {
  test("over MCP: owners and admins read and set them; viewers cannot; bad addresses are refused", async () => {
    expect(await w.ok(w.colleague, "approvals_settings_get")).toMatchObject({ policy: "person", reviewers: [RITA] });
    expect(await w.err(w.viewer, "approvals_settings_get")).toContain("viewer");
    expect(await w.err(w.viewer, "approvals_settings_update", { policy: "link" })).toContain("viewer");
    expect(await w.err(w.colleague, "approvals_settings_update", { reviewers: ["<b>@x"] })).toContain(
      "Not an email address",
    );
    const set = await w.ok(w.colleague, "approvals_settings_update", { reviewers: [RITA, " Extra@Client.test "] });
    expect(set).toMatchObject({ policy: "person", reviewers: [RITA, "extra@client.test"] });
    expect((await w.ok(w.colleague, "approvals_settings_update", { policy: "link" })).reviewers).toEqual([
      RITA,
      "extra@client.test",
    ]);
    // Another company's settings are its own.
    expect(await w.ok(w.stranger, "approvals_settings_get")).toMatchObject({ reviewers: [BOB] });
    await w.ok(w.colleague, "approvals_settings_update", { policy: "person", reviewers: [RITA] });
  });

  test("in the portal: a plain form on the approvals page for owners and admins, refused for viewers", async () => {
    const b = await signedIn("maya@who.test");
    const html = await (await b.get("/approvals")).text();
    expect(html).toContain("Who may decide on approval pages");
    expect(html).toContain(RITA);
    const csrf = await b.csrf("/approvals");
    const bad = await b.post("/approvals/settings", { _csrf: csrf, policy: "person", reviewers: "not an address" });
    expect(bad.status).toBe(400);
    const ok = await b.post("/approvals/settings", {
      _csrf: csrf,
      policy: "person",
      reviewers: `${RITA}\r\nnew@client.test`,
    });
    expect(ok.status).toBe(303);
    expect(await w.ok(w.colleague, "approvals_settings_get")).toMatchObject({
      policy: "person",
      reviewers: [RITA, "new@client.test"],
    });
    const v = await signedIn("vic@who.test");
    expect(await (await v.get("/approvals")).text()).not.toContain("Who may decide on approval pages");
    const refused = await v.post("/approvals/settings", { _csrf: await v.csrf("/approvals"), policy: "link" });
    expect(refused.status).toBe(403);
    expect((await w.ok(w.colleague, "approvals_settings_get")).policy).toBe("person");
    await w.ok(w.colleague, "approvals_settings_update", { reviewers: [RITA] });
  });
});
