/** Signing in and out, the session cookie, CSRF refusal and sign-in throttling. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createCompany, createUser } from "../fixtures/accounts";
import { rows, startTestServer, type TestServer } from "../harness";
import { Browser, pageText, readForms } from "../oauth/helpers";

let s: TestServer;
let base: string;
beforeAll(async () => {
  s = await startTestServer({ seed: false });
  base = s.config.publicUrl;
  const ana = await createUser(s.deps, { email: "ana@example.test", password: "correct horse battery", name: "Ana" });
  createCompany(s.deps, { name: "Acme", ownerUserId: ana.id });
  await createUser(s.deps, { email: "victim@example.test", password: "a very good password" });
});
afterAll(() => s.stop());

describe("sign-in", () => {
  test("signed out, every page sends you to sign in, remembering where you were going", async () => {
    const b = new Browser(base);
    for (const path of [
      "/",
      "/settings/api-keys",
      "/settings/rest-keys",
      "/settings/connections",
      "/team",
      "/approvals",
    ]) {
      const res = await b.get(path);
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(`/login?next=${encodeURIComponent(path)}`);
    }
    const login = await b.get("/login");
    expect(login.status).toBe(200);
    const form = (await readForms(await login.text()))[0]!;
    expect(form.action).toBe("/login");
    expect(form.fields.map((f) => f.name)).toEqual(["next", "email", "password"]);
  });

  test("a good password starts a session with a HttpOnly, SameSite=Lax cookie holding only a random id", async () => {
    const b = new Browser(base);
    const res = await b.post("/login", {
      email: "ANA@example.test ",
      password: "correct horse battery",
      next: "/team",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/team");
    const cookie = res.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^plinth_session=[0-9a-f]{64};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).not.toContain("Secure");
    const id = cookie.split(";")[0]!.split("=")[1]!;
    const sessions = await rows<{ id_hash: string }>(s.deps, "SELECT id_hash FROM sessions");
    expect(sessions.some((r) => r.id_hash === id)).toBe(false);
    const home = await b.get("/");
    expect(home.status).toBe(200);
    expect(await pageText(await home.text())).toContain("Hello, Ana");
  });

  test("next cannot leave the site", async () => {
    for (const next of [
      "https://evil.example/",
      "//evil.example/",
      "/\\evil.example",
      "/\t/evil.example",
      "javascript:alert(1)",
    ]) {
      const res = await new Browser(base).post("/login", {
        email: "ana@example.test",
        password: "correct horse battery",
        next,
      });
      expect(res.headers.get("location")).toBe("/");
    }
  });

  test("a wrong password or unknown email: 400 with one message, no cookie", async () => {
    for (const email of ["ana@example.test", "nobody@example.test"]) {
      const res = await new Browser(base).post("/login", { email, password: "wrong password!" });
      expect(res.status).toBe(400);
      expect(res.headers.getSetCookie()).toEqual([]);
      expect(await pageText(await res.text())).toContain("That email and password do not match an account.");
    }
  });

  test("hostile and malformed sign-in posts are 4xx", async () => {
    const b = new Browser(base);
    expect((await b.post("/login", { email: "", password: "" })).status).toBe(400);
    expect((await b.post("/login", { email: "x".repeat(10_000), password: "y" })).status).toBe(400);
    expect((await b.post("/login", { email: ["a@x.test", "b@x.test"], password: "y" })).status).toBe(400);
    const xss = await b.post("/login", { email: `"><script>alert(1)</script>`, password: "nope nope" });
    expect(xss.status).toBe(400);
    expect(await xss.text()).not.toContain("<script>alert(1)</script>");
    const huge = await b.post("/login", { email: "a@x.test", password: "p".repeat(100_000) });
    expect(huge.status).toBe(413);
    const json = await fetch(`${base}/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base },
      body: "{}",
    });
    expect(json.status).toBe(400);
  });

  test("sign-out ends the session server-side: the old cookie no longer works", async () => {
    const b = new Browser(base);
    await b.signIn("ana@example.test", "correct horse battery");
    const stolen = b.jar.header();
    const csrf = await b.csrf("/");
    const out = await b.post("/logout", { _csrf: csrf });
    expect(out.status).toBe(303);
    expect(out.headers.get("location")).toBe("/login");
    const replay = await fetch(`${base}/`, { headers: { cookie: stolen }, redirect: "manual" });
    expect(replay.status).toBe(303);
  });

  test("sessions expire after seven days", async () => {
    const b = new Browser(base);
    await b.signIn("ana@example.test", "correct horse battery");
    expect((await b.get("/")).status).toBe(200);
    s.clock.advance(7 * 24 * 60 * 60 * 1000);
    expect((await b.get("/")).status).toBe(303);
  });
});

describe("cross-site requests", () => {
  test("a form post without the session's CSRF token is refused with 403", async () => {
    const b = new Browser(base);
    await b.signIn("ana@example.test", "correct horse battery");
    const res = await b.post("/settings/api-keys", { name: "x", scope: "crm:read" });
    expect(res.status).toBe(403);
    expect(await pageText(await res.text())).toContain("did not come from this site");
    const wrong = await b.post("/logout", { _csrf: "0".repeat(64) });
    expect(wrong.status).toBe(403);
    expect((await b.get("/")).status).toBe(200);
  });

  test("a post from another origin, or with no Origin at all, is refused even with the token", async () => {
    const b = new Browser(base);
    await b.signIn("ana@example.test", "correct horse battery");
    const csrf = await b.csrf("/");
    expect((await b.post("/logout", { _csrf: csrf }, { origin: "https://evil.example" })).status).toBe(403);
    const noOrigin = await fetch(`${base}/logout`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: b.jar.header(), "content-type": "application/x-www-form-urlencoded" },
      body: `_csrf=${csrf}`,
    });
    expect(noOrigin.status).toBe(403);
    // Sign-in itself is guarded the same way (login CSRF).
    expect(
      (
        await b.post(
          "/login",
          { email: "ana@example.test", password: "correct horse battery" },
          { origin: "https://evil.example" },
        )
      ).status,
    ).toBe(403);
    expect((await b.get("/")).status).toBe(200);
  });
});

describe("throttling", () => {
  test("five failures lock the email for 15 minutes, even with the right password; then it works", async () => {
    const b = new Browser(base);
    for (let i = 0; i < 5; i++)
      expect((await b.post("/login", { email: "victim@example.test", password: `guess ${i} guess` })).status).toBe(400);
    const locked = await b.post("/login", { email: "victim@example.test", password: "a very good password" });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await pageText(await locked.text())).toContain("Too many failed sign-ins");
    // Other accounts are unaffected.
    expect((await new Browser(base).signIn("ana@example.test", "correct horse battery")).status).toBe(303);
    s.clock.advance(15 * 60 * 1000);
    expect((await b.post("/login", { email: "victim@example.test", password: "a very good password" })).status).toBe(
      303,
    );
  });
});

describe("over https", () => {
  test("the cookie is Secure and __Host- prefixed", async () => {
    const secure = await startTestServer({ seed: false, config: { publicUrl: "https://portal.example" } });
    try {
      await createUser(secure.deps, { email: "ana@example.test", password: "correct horse battery" });
      const res = await fetch(`${secure.url}/login`, {
        method: "POST",
        redirect: "manual",
        headers: { origin: "https://portal.example", "content-type": "application/x-www-form-urlencoded" },
        body: "email=ana%40example.test&password=correct+horse+battery",
      });
      expect(res.status).toBe(303);
      const cookie = res.headers.getSetCookie()[0]!;
      expect(cookie).toMatch(/^__Host-plinth_session=[0-9a-f]{64};/);
      expect(cookie).toContain("Secure");
      expect(cookie).toContain("Path=/");
    } finally {
      await secure.stop();
    }
  });
});
