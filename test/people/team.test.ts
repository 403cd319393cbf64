/**
 * The team toolset and the invitation flow, on this run's engine: members
 * and roles with the owner rules, invitations mailed over real SMTP and
 * accepted on the portal's page (signing up or signing in), expiry to the
 * millisecond, one winner among concurrent accepts, and removal that takes
 * effect on the next request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { DAY_MS } from "../../src/core/clock";
import { auditLog, events, mailOutbox, memberships, users } from "../../src/core/tables";
import { invitations } from "../../src/domains/team/tables";
import { callTool, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { pageText, readForms, type Browser } from "../oauth/helpers";
import { makePeople, PASSWORD, type People } from "./world";

let w: People;
beforeAll(async () => {
  w = await makePeople();
});
afterAll(() => w.stop());

/** Sends due mail and returns the accept link's path from the newest message to `to`. */
async function linkMailedTo(to: string): Promise<{ path: string; raw: string }> {
  const before = w.smtp.messages.length;
  await w.runJobs(1000);
  await w.smtp.waitFor(before + 1);
  const m = [...w.smtp.messages].reverse().find((x) => x.envelope.to.includes(to))!;
  const parsed = await m.parse();
  const url = /https?:\/\/\S+\/invite\/([0-9a-f]{64})/.exec(parsed.text ?? "")!;
  return { path: `/invite/${url[1]}`, raw: m.raw };
}

async function acceptPage(b: Browser, path: string) {
  const res = await b.get(path);
  return { status: res.status, text: await pageText(await res.text()) };
}

async function signUp(b: Browser, path: string, name = "New Person", password = PASSWORD) {
  return await b.post(path, { name, password, confirm: password });
}

describe("members", () => {
  test("list with roles, search and role filter; viewers may read", async () => {
    const all = await w.ok(w.viewer, "team_members_list");
    expect(all.total).toBe(3);
    expect(all.items.map((m: any) => [m.email, m.role])).toEqual([
      ["ada@agency.example", "admin"],
      ["olivia@agency.example", "owner"],
      ["vic@agency.example", "viewer"],
    ]);
    expect((await w.ok(w.owner, "team_members_list", { search: "OLIV" })).items.map((m: any) => m.email)).toEqual([
      "olivia@agency.example",
    ]);
    expect((await w.ok(w.owner, "team_members_list", { role: "viewer" })).items.map((m: any) => m.email)).toEqual([
      "vic@agency.example",
    ]);
    // Another company's members are not here.
    expect(JSON.stringify(all)).not.toContain("sam@rival.example");
  });

  test("only an owner grants or changes the owner role; viewers cannot change roles", async () => {
    expect(await w.err(w.admin, "team_members_update", { email: "vic@agency.example", role: "owner" })).toContain(
      "Only an owner",
    );
    expect(await w.err(w.admin, "team_members_update", { email: "olivia@agency.example", role: "admin" })).toContain(
      "Only an owner",
    );
    expect(await w.err(w.viewer, "team_members_update", { email: "vic@agency.example", role: "admin" })).toStartWith(
      "Forbidden",
    );
    const r = await w.ok(w.admin, "team_members_update", { email: "VIC@agency.example", role: "admin" });
    expect(r).toMatchObject({ userId: w.viewer.id, role: "admin", previousRole: "viewer", status: "updated" });
    expect((await w.ok(w.admin, "team_members_update", { userId: w.viewer.id, role: "admin" })).status).toBe(
      "unchanged",
    );
    await w.ok(w.owner, "team_members_update", { userId: w.viewer.id, role: "viewer" });
    const ev = await w.s.deps.db.select().from(events).where(eq(events.type, "member.role_changed"));
    expect(ev.map((e) => e.data)).toEqual([
      { userId: w.viewer.id, email: "vic@agency.example", role: "admin", previousRole: "viewer" },
      { userId: w.viewer.id, email: "vic@agency.example", role: "viewer", previousRole: "admin" },
    ]);
  });

  test("the last owner can be neither demoted, removed nor leave", async () => {
    expect(await w.err(w.owner, "team_members_update", { userId: w.owner.id, role: "admin" })).toContain(
      "must keep at least one owner",
    );
    expect(await w.err(w.owner, "team_leave")).toContain("must keep at least one owner");
    expect(await w.err(w.owner, "team_members_remove", { userId: w.owner.id })).toContain(
      "must keep at least one owner",
    );
    // With a second owner, the first may step down.
    await w.ok(w.owner, "team_members_update", { userId: w.admin.id, role: "owner" });
    await w.ok(w.owner, "team_members_update", { userId: w.owner.id, role: "admin" });
    expect(await w.err(w.admin, "team_members_update", { userId: w.admin.id, role: "admin" })).toContain(
      "must keep at least one owner",
    );
    await w.ok(w.admin, "team_members_update", { userId: w.owner.id, role: "owner" });
    await w.ok(w.owner, "team_members_update", { userId: w.admin.id, role: "admin" });
  });

  test("members of other companies and unknown people are not found; naming both or neither is refused", async () => {
    expect(await w.err(w.owner, "team_members_remove", { userId: w.stranger.id })).toContain("is not a member");
    expect(await w.err(w.owner, "team_members_update", { email: "nobody@x.example", role: "viewer" })).toContain(
      "is not a member",
    );
    expect(await w.err(w.owner, "team_members_remove", {})).toContain("userId or by email");
    expect(await w.err(w.owner, "team_members_remove", { userId: w.viewer.id, email: "vic@agency.example" })).toContain(
      "one of them",
    );
  });

  test("a removed member loses the company on their very next request", async () => {
    const temp = await w.s.deps.db
      .insert(users)
      .values({ email: "temp@agency.example", name: "Temp", createdAt: w.s.clock.now() })
      .returning();
    await w.s.deps.db
      .insert(memberships)
      .values({ companyId: w.A.id, userId: temp[0]!.id, role: "viewer", createdAt: w.s.clock.now() });
    const k = await mintMcpKey(w.s.deps, { userId: temp[0]!.id, scopes: ["*"], companyIds: [w.A.id] });
    const c = await mcpClient(w.s.url, k.key);
    expect((await callTool(c, "team_members_list")).isError).toBe(false);
    expect(await w.ok(w.admin, "team_members_remove", { email: "temp@agency.example" })).toEqual({
      userId: temp[0]!.id,
      email: "temp@agency.example",
      status: "removed",
    });
    const after = await callTool(c, "team_members_list");
    expect(after.isError).toBe(true);
    expect(after.text).toContain("cannot act for any company");
    const audit = await w.s.deps.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "team.remove"), eq(auditLog.entityId, temp[0]!.id)));
    expect(audit).toHaveLength(1);
  });

  test("a viewer may leave; the connection loses the company", async () => {
    const u = (
      await w.s.deps.db.insert(users).values({ email: "leaver@agency.example", createdAt: w.s.clock.now() }).returning()
    )[0]!;
    await w.s.deps.db
      .insert(memberships)
      .values({ companyId: w.A.id, userId: u.id, role: "viewer", createdAt: w.s.clock.now() });
    const c = await mcpClient(
      w.s.url,
      (await mintMcpKey(w.s.deps, { userId: u.id, scopes: ["team:write"], companyIds: [w.A.id] })).key,
    );
    expect(JSON.parse((await callTool(c, "team_leave")).text)).toMatchObject({ userId: u.id, status: "removed" });
    expect((await callTool(c, "team_members_list")).text).toContain("cannot act for any company");
    const ev = (await w.s.deps.db.select().from(events).where(eq(events.type, "member.removed"))).at(-1)!;
    expect(ev.data).toEqual({
      userId: u.id,
      email: "leaver@agency.example",
      role: "viewer",
      left: true,
      handedOverToUserId: null,
    });
  });
});

describe("invitations", () => {
  test("an invitation is mailed over SMTP with the accept link, its expiry and the inviter's note", async () => {
    const r = await w.ok(w.admin, "team_invitations_create", {
      email: "Nina@Client.example",
      role: "admin",
      message: "Welcome aboard, Nina!",
    });
    expect(r).toMatchObject({
      email: "nina@client.example",
      role: "admin",
      status: "pending",
      sendCount: 1,
      mail: "queued",
    });
    expect(r.acceptUrl).toBeUndefined();
    expect(Date.parse(r.expiresAt)).toBe(w.s.clock.ms() + 7 * DAY_MS);
    const { path, raw } = await linkMailedTo("nina@client.example");
    expect(raw).toContain("Subject: Ada Admin invited you to Acme Agency on Plinth");
    expect(raw).toContain("To: nina@client.example");
    const parsed = await w.smtp.messages.at(-1)!.parse();
    expect(parsed.text).toContain("as an admin");
    expect(parsed.text).toContain('"Welcome aboard, Nina!"');
    expect(parsed.html).toContain(`href="${w.s.config.publicUrl}${path}"`);
    // The token is only in the mail: the table keeps its hash.
    const row = (await w.s.deps.db.select().from(invitations).where(eq(invitations.id, r.id)))[0]!;
    expect(row.tokenHash).not.toContain(path.slice(8));
    expect(
      (await w.s.deps.db.select().from(mailOutbox).where(eq(mailOutbox.tag, "team.invitation"))).at(-1)!.status,
    ).toBe("sent");
    // Twice to one address: refused with what to do instead; a member: refused.
    expect(await w.err(w.admin, "team_invitations_create", { email: "nina@client.example", role: "viewer" })).toContain(
      "team_invitations_resend",
    );
    expect(await w.err(w.admin, "team_invitations_create", { email: "vic@agency.example", role: "viewer" })).toContain(
      "already a member",
    );
    expect(await w.err(w.admin, "team_invitations_create", { email: "boss@client.example", role: "owner" })).toContain(
      "Only an owner",
    );
    expect(await w.err(w.viewer, "team_invitations_create", { email: "x@client.example", role: "viewer" })).toStartWith(
      "Forbidden",
    );
    expect(await w.err(w.admin, "team_invitations_create", { email: "not an email", role: "viewer" })).toContain(
      "Not an email address",
    );
    const list = await w.ok(w.viewer, "team_invitations_list");
    expect(list.items.map((i: any) => i.email)).toContain("nina@client.example");
    expect(list.items[0].invitedBy).toBe("Ada Admin");
    expect(JSON.stringify(await w.ok(w.stranger, "team_invitations_list", { status: "all" }))).not.toContain(
      "nina@client.example",
    );
  });

  test("accepting signs a new person up, joins them, signs them in and tells the inviter", async () => {
    await w.ok(w.admin, "team_invitations_create", { email: "lee@client.example", role: "viewer" });
    const { path } = await linkMailedTo("lee@client.example");
    const b = await w.browser();
    const page = await acceptPage(b, path);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Ada Admin invited lee@client.example to join Acme Agency on Plinth as a viewer");
    expect(page.text).toContain("Create your account");
    const mismatch = await b.post(path, { name: "Lee", password: PASSWORD, confirm: "something else" });
    expect(mismatch.status).toBe(400);
    expect(await pageText(await mismatch.text())).toContain("The two passwords differ");
    const res = await signUp(b, path, "Lee Client");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/team?done=joined");
    const team = await pageText(await (await b.get("/team?done=joined")).text());
    expect(team).toContain("Welcome to the team.");
    expect(team).toContain("Team of Acme Agency");
    const u = (await w.s.deps.db.select().from(users).where(eq(users.email, "lee@client.example")))[0]!;
    expect(u.name).toBe("Lee Client");
    expect(await Bun.password.verify(PASSWORD, u.passwordHash!)).toBe(true);
    expect(
      (
        await w.s.deps.db
          .select()
          .from(memberships)
          .where(and(eq(memberships.userId, u.id), eq(memberships.companyId, w.A.id)))
      )[0]!.role,
    ).toBe("viewer");
    // Used: the link now says so.
    const again = await acceptPage(await w.browser(), path);
    expect(again.status).toBe(410);
    expect(again.text).toContain("already been used");
    // The inviter hears about it.
    await w.settle();
    const inbox = await w.ok(w.admin, "notifications_list");
    expect(inbox.items[0]).toMatchObject({
      type: "invitation.accepted",
      title: "Lee Client joined Acme Agency as viewer",
      link: "/team",
      read: false,
    });
    expect(inbox.items[0].actor).toEqual({ userId: u.id, name: "Lee Client" });
  });

  test("someone with an account signs in first; another account cannot use the link", async () => {
    await w.ok(w.owner, "team_invitations_create", { email: "sam@rival.example", role: "admin" });
    const { path } = await linkMailedTo("sam@rival.example");
    const anon = await acceptPage(await w.browser(), path);
    expect(anon.text).toContain("Sign in as sam@rival.example to accept");
    // A forwarded link, opened by Vic: refused, with the reason.
    const vic = await w.browser(w.viewer);
    expect((await acceptPage(vic, path)).text).toContain(
      "This invitation is for sam@rival.example, and you are signed in as vic@agency.example",
    );
    const forms = await readForms(await (await vic.get(path)).text());
    expect(forms.some((f) => f.action === path)).toBe(false);
    const forced = await vic.post(path, { _csrf: await vic.csrf(path) });
    expect(forced.status).toBe(403);
    // Signing up over an existing account is refused too.
    expect((await signUp(await w.browser(), path, "Not Sam")).status).toBe(409);
    // Sam signs in and joins.
    const sam = await w.browser(w.stranger);
    const form = (await readForms(await (await sam.get(path)).text())).find((f) => f.action === path)!;
    const res = await sam.post(path, Object.fromEntries(form.fields.map((f) => [f.name, f.value])));
    expect(res.status).toBe(303);
    const role = (
      await w.s.deps.db
        .select()
        .from(memberships)
        .where(and(eq(memberships.userId, w.stranger.id), eq(memberships.companyId, w.A.id)))
    )[0];
    expect(role?.role).toBe("admin");
    await w.ok(w.owner, "team_members_remove", { userId: w.stranger.id });
  });

  test("an invitation expires at exactly its expiresAt: a millisecond before it works, at it the page says expired", async () => {
    const early = await w.ok(w.admin, "team_invitations_create", {
      email: "early@client.example",
      role: "viewer",
      expiresInDays: 1,
    });
    const late = await w.ok(w.admin, "team_invitations_create", {
      email: "late@client.example",
      role: "viewer",
      expiresInDays: 1,
    });
    const { path: latePath } = await linkMailedTo("late@client.example");
    const earlyMail = await w.smtp.messages.find((m) => m.envelope.to.includes("early@client.example"))!.parse();
    const earlyPath = `/invite/${/\/invite\/([0-9a-f]{64})/.exec(earlyMail.text!)![1]}`;
    expect(late.expiresAt).toBe(early.expiresAt);
    const expiresAt = Date.parse(early.expiresAt);
    w.s.clock.set(expiresAt - 1);
    expect((await signUp(await w.browser(), earlyPath)).status).toBe(303);
    w.s.clock.set(expiresAt);
    const refused = await signUp(await w.browser(), latePath);
    expect(refused.status).toBe(410);
    expect(await pageText(await refused.text())).toContain(
      `expired on ${new Date(expiresAt).toISOString().slice(0, 16).replace("T", " ")} UTC`,
    );
    expect(await w.s.deps.db.select().from(users).where(eq(users.email, "late@client.example"))).toEqual([]);
    expect(
      (await w.ok(w.admin, "team_invitations_list", { status: "expired" })).items.map((i: any) => i.email),
    ).toContain("late@client.example");
    // Resending revives it with a new link; the old link stays dead.
    const resent = await w.ok(w.admin, "team_invitations_resend", { id: late.id });
    expect(resent).toMatchObject({ status: "pending", sendCount: 2 });
    expect(Date.parse(resent.expiresAt)).toBe(expiresAt + DAY_MS);
    const { path: fresh } = await linkMailedTo("late@client.example");
    expect(fresh).not.toBe(latePath);
    expect((await acceptPage(await w.browser(), latePath)).status).toBe(404);
    expect((await signUp(await w.browser(), fresh)).status).toBe(303);
  });

  test("of concurrent accepts of one invitation exactly one wins", async () => {
    await w.ok(w.admin, "team_invitations_create", { email: "race@client.example", role: "viewer" });
    const { path } = await linkMailedTo("race@client.example");
    const browsers = await Promise.all(Array.from({ length: 6 }, () => w.browser()));
    const results = await Promise.all(browsers.map((b, i) => signUp(b, path, `Racer ${i}`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 303)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 303).every((s) => s === 409 || s === 410)).toBe(true);
    const created = await w.s.deps.db.select().from(users).where(eq(users.email, "race@client.example"));
    expect(created).toHaveLength(1);
    const member = await w.s.deps.db.select().from(memberships).where(eq(memberships.userId, created[0]!.id));
    expect(member).toHaveLength(1);
    const accepted = (await w.s.deps.db.select().from(events).where(eq(events.type, "invitation.accepted"))).filter(
      (e) => e.data.email === "race@client.example",
    );
    expect(accepted).toHaveLength(1);
  });

  test("racing invitations to one address make one; the rest are told it is pending", async () => {
    const results = await Promise.all(
      [w.owner, w.admin, w.owner, w.admin, w.owner].map((p) =>
        callTool(p.client, "team_invitations_create", { email: "dup@client.example", role: "viewer" }),
      ),
    );
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    for (const r of results.filter((x) => x.isError)) expect(r.text).toContain("already has a pending invitation");
    expect(
      await w.s.deps.db.select().from(invitations).where(eq(invitations.email, "dup@client.example")),
    ).toHaveLength(1);
  });

  test("revoked invitations are refused with a clear page; resend and revoke follow the rules", async () => {
    const r = await w.ok(w.admin, "team_invitations_create", { email: "gone@client.example", role: "viewer" });
    const { path } = await linkMailedTo("gone@client.example");
    expect(await w.err(w.admin, "team_invitations_resend", { id: r.id })).toContain("wait");
    expect(await w.ok(w.admin, "team_invitations_revoke", { id: r.id })).toEqual({
      id: r.id,
      email: "gone@client.example",
      status: "revoked",
    });
    const page = await acceptPage(await w.browser(), path);
    expect(page.status).toBe(410);
    expect(page.text).toContain("was withdrawn");
    expect((await signUp(await w.browser(), path)).status).toBe(410);
    expect(await w.err(w.admin, "team_invitations_revoke", { id: r.id })).toContain("already revoked");
    expect(await w.err(w.admin, "team_invitations_resend", { id: r.id })).toContain("invite gone@client.example again");
    expect(await w.err(w.stranger, "team_invitations_revoke", { id: r.id })).toContain("No invitation");
    // The address may be invited afresh.
    await w.ok(w.admin, "team_invitations_create", { email: "gone@client.example", role: "viewer" });
  });

  test("an unknown or malformed token is a 404 page; nothing is created", async () => {
    const before = w.changes();
    for (const t of ["0".repeat(64), "not-a-token", "<script>alert(1)</script>"]) {
      const b = await w.browser();
      expect((await b.get(`/invite/${encodeURIComponent(t)}`)).status).toBe(404);
      expect((await signUp(b, `/invite/${encodeURIComponent(t)}`)).status).toBeOneOf([404, 409]);
    }
    expect(w.changes()).toBe(before);
  });

  test("without an SMTP server the inviter gets the link to pass on, and the mail is recorded as not sent", async () => {
    w.s.config.smtpUrl = null;
    try {
      const r = await w.ok(w.owner, "team_invitations_create", { email: "manual@client.example", role: "viewer" });
      expect(r.mail).toBe("not_configured");
      expect(r.acceptUrl).toMatch(/\/invite\/[0-9a-f]{64}$/);
      await w.runJobs(1000);
      const m = (
        await w.s.deps.db
          .select()
          .from(mailOutbox)
          .where(eq(mailOutbox.tag, "team.invitation"))
          .orderBy(asc(mailOutbox.id))
      ).at(-1)!;
      expect(m.status).toBe("no_transport");
      const page = await acceptPage(await w.browser(), new URL(r.acceptUrl).pathname);
      expect(page.text).toContain("Join Acme Agency");
    } finally {
      w.s.config.smtpUrl = w.smtp.url();
    }
  });
});
