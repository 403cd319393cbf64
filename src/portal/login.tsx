/**
 * Sign-in and sign-out. Failed sign-ins are throttled per email address and
 * per client address (fixed 15-minute windows); while throttled the password
 * is not even checked, so the lockout cannot be used to test guesses.
 */
import type { Hono } from "hono";
import type { Deps } from "../core/context";
import { AppError } from "../core/errors";
import { verifyPassword } from "../domains/accounts/verbs";
import { readForm } from "../ui/form-data";
import { safeNext, signedIn, type PortalEnv } from "./guard";
import { Layout, render } from "../ui/layout";
import { Notice } from "../ui/notice";
import { dropSession, endSession, readSession, startSession } from "./session";
import { attemptCounter } from "../core/limits";
import { clientAddress } from "./throttle";

export const FAILURES_PER_EMAIL = 5;
export const FAILURES_PER_ADDRESS = 30;
export const THROTTLE_WINDOW_MS = 15 * 60 * 1000;

const LoginPage = (p: { next: string; email?: string; error?: string; info?: string }) => (
  <Layout title="Sign in" viewer={null} path="/login" narrow>
    <h1>Sign in to Plinth</h1>
    {p.info && <Notice>{p.info}</Notice>}
    {p.error && <Notice kind="error">{p.error}</Notice>}
    <form class="card" method="post" action="/login">
      <input type="hidden" name="next" value={p.next} />
      <label for="email">Email</label>
      <input id="email" type="email" name="email" value={p.email ?? ""} autocomplete="username" required autofocus />
      <label for="password">Password</label>
      <input id="password" type="password" name="password" autocomplete="current-password" required />
      <div class="actions">
        <button type="submit">Sign in</button>
      </div>
    </form>
  </Layout>
);

export function loginRoutes(app: Hono<PortalEnv>, deps: Deps) {
  const perEmail = attemptCounter(deps, "login-email", FAILURES_PER_EMAIL, THROTTLE_WINDOW_MS);
  const perAddress = attemptCounter(deps, "login-address", FAILURES_PER_ADDRESS, THROTTLE_WINDOW_MS);

  app.get("/login", async (c) => {
    const next = safeNext(c.req.query("next"));
    if (await readSession(deps, c)) return c.redirect(next, 303);
    const info = next.startsWith("/oauth/authorize") ? "Sign in to connect an application to your account." : undefined;
    return render(c, <LoginPage next={next} info={info} />);
  });

  app.post("/login", async (c) => {
    const form = await readForm(c);
    const next = safeNext(form.params.get("next"));
    let email: string;
    let password: string;
    try {
      email = form.text("email", { label: "Email", max: 254, required: true }).toLowerCase();
      password = form.text("password", { label: "Password", max: 1024, required: true });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      return render(c, <LoginPage next={next} error={e.message} />, { status: 400 });
    }
    const now = deps.clock.ms();
    const addr = clientAddress(c);
    const wait = Math.max(await perEmail.blockedFor(email, now), await perAddress.blockedFor(addr, now));
    if (wait > 0) {
      const minutes = Math.ceil(wait / 60000);
      c.header("Retry-After", String(Math.ceil(wait / 1000)));
      return render(
        c,
        <LoginPage
          next={next}
          email={email}
          error={`Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`}
        />,
        { status: 429 },
      );
    }
    const userId = await verifyPassword(deps, email, password);
    if (userId === null) {
      await perEmail.add(email, now);
      await perAddress.add(addr, now);
      return render(
        c,
        <LoginPage next={next} email={email} error="That email and password do not match an account." />,
        {
          status: 400,
        },
      );
    }
    await perEmail.clear(email);
    // A fresh id for the new session; an old one in this browser is ended server-side.
    const previous = await readSession(deps, c);
    if (previous) await dropSession(deps, previous);
    await startSession(deps, c, userId);
    return c.redirect(next, 303);
  });

  app.post("/logout", signedIn(deps), async (c) => {
    await endSession(deps, c, c.get("session"));
    return c.redirect("/login", 303);
  });
}
