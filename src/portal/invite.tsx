/**
 * The page an invitation email links to: /invite/<token>.
 *
 * - Signed in as the invited address: one button joins the company.
 * - Signed in as someone else: says whose invitation it is (a forwarded
 *   link does not let another account join) and offers to sign out.
 * - Signed out, the address has an account: sign in first (then back here).
 * - Signed out, no account yet (or one made without a password): a short
 *   sign-up form; accepting makes the account, joins and signs in.
 *
 * Used, revoked and expired invitations get a page that says which and
 * what to do (410 Gone); an unknown token is 404. Posts pass the portal's
 * form guard (same origin; the session's CSRF token when signed in) and a
 * per-address limit, since signing up hashes a password.
 */
import type { Context, Hono } from "hono";
import { eq } from "drizzle-orm";
import type { Deps } from "../core/context";
import { AppError, invalid, isAppError } from "../core/errors";
import { rateLimiter } from "../core/limits";
import { clientAddress } from "../core/public-page";
import { acceptInvitation, invitationByToken, refusal, type InvitationView } from "../domains/team/invitations";
import type { PortalEnv } from "./guard";
import { readForm, type Form } from "../ui/form-data";
import { Csrf } from "../ui/forms";
import { Layout, render } from "../ui/layout";
import { Notice } from "../ui/notice";
import { when } from "../ui/format";
import { readSession, startSession, type Session } from "./session";
import { sessions } from "./tables";

const MIN_PASSWORD = 8;

const InvitePage = (p: {
  token: string;
  v: InvitationView;
  session: Session | null;
  error?: string;
  name?: string;
}) => {
  const { v, session } = p;
  const action = `/invite/${p.token}`;
  const role = v.role === "viewer" ? "a viewer" : `an ${v.role}`;
  return (
    <Layout title={`Join ${v.company}`} viewer={session} path={action} narrow focused>
      <h1>Join {v.company}</h1>
      <p class="lead">
        {v.invitedBy ?? "Someone"} invited <strong>{v.email}</strong> to join {v.company} on Plinth as {role}.
      </p>
      {v.message && <blockquote class="card">{v.message}</blockquote>}
      <p class="muted small">This invitation works until {when(v.expiresAt)}.</p>
      {p.error && <Notice kind="error">{p.error}</Notice>}
      {session && session.user.email === v.email && (
        <form method="post" action={action}>
          <Csrf viewer={session} />
          <div class="actions">
            <button type="submit">Join {v.company}</button>
          </div>
        </form>
      )}
      {session && session.user.email !== v.email && (
        <>
          <Notice kind="warn">
            This invitation is for {v.email}, and you are signed in as {session.user.email}. Sign out, then open the
            link again and sign in as {v.email}.
          </Notice>
          <form method="post" action="/logout">
            <Csrf viewer={session} />
            <button class="secondary" type="submit">
              Sign out
            </button>
          </form>
        </>
      )}
      {!session && v.account === "ready" && (
        <p>
          <a class="button" href={`/login?next=${encodeURIComponent(action)}`}>
            Sign in as {v.email} to accept
          </a>
        </p>
      )}
      {!session && v.account !== "ready" && (
        <form class="card" method="post" action={action}>
          <h2>{v.account === "none" ? "Create your account" : "Set your password"}</h2>
          <label for="invite-name">Your name</label>
          <input id="invite-name" name="name" maxlength={100} required autocomplete="name" value={p.name ?? ""} />
          <label for="invite-password">Password (at least {MIN_PASSWORD} characters)</label>
          <input
            id="invite-password"
            type="password"
            name="password"
            minlength={MIN_PASSWORD}
            maxlength={200}
            required
            autocomplete="new-password"
          />
          <label for="invite-confirm">Password again</label>
          <input
            id="invite-confirm"
            type="password"
            name="confirm"
            minlength={MIN_PASSWORD}
            maxlength={200}
            required
            autocomplete="new-password"
          />
          <div class="actions">
            <button type="submit">Join {v.company}</button>
          </div>
        </form>
      )}
    </Layout>
  );
};

const GonePage = (p: { session: Session | null; message: string; path: string }) => (
  <Layout title="Invitation" viewer={p.session} path={p.path} narrow focused>
    <h1>This invitation cannot be used</h1>
    <Notice kind="error">{p.message}</Notice>
    <p>
      <a href="/">Go to the portal</a>
    </p>
  </Layout>
);

const NOT_VALID = "This invitation link is not valid. Check that you copied the whole link from the email.";

export function inviteRoutes(app: Hono<PortalEnv>, deps: Deps) {
  const limiter = rateLimiter(deps, "portal-invite", 20);

  /** The page for a token in its current state, with an optional error and status. */
  const show = async (
    c: Context<PortalEnv>,
    token: string,
    session: Session | null,
    opts: { error?: string; name?: string; status?: 400 | 403 | 409 | 429 } = {},
  ) => {
    const v = await invitationByToken(deps, token);
    if (!v) return render(c, <GonePage session={session} message={NOT_VALID} path={c.req.path} />, { status: 404 });
    if (v.state !== "pending")
      return render(c, <GonePage session={session} message={refusal(v)} path={c.req.path} />, { status: 410 });
    return render(c, <InvitePage token={token} v={v} session={session} error={opts.error} name={opts.name} />, {
      status: opts.status,
    });
  };

  app.get("/invite/:token", async (c) => show(c, c.req.param("token"), await readSession(deps, c)));

  app.post("/invite/:token", async (c) => {
    const token = c.req.param("token");
    // formGuard read the form when there is a session; otherwise read it here (same-origin was checked).
    const session = (c.var.session as Session | undefined) ?? null;
    const form = (c.var as { form?: Form }).form ?? (await readForm(c));
    const decision = await limiter.take(clientAddress(c));
    if (!decision.allowed)
      return await show(c, token, session, {
        error: `Too many attempts from your address; try again in ${decision.retryAfterSec} s.`,
        status: 429,
      });
    let name = "";
    try {
      let result: { companyId: number; userId: number };
      if (session) {
        result = await acceptInvitation(deps, token, { userId: session.user.id });
      } else {
        name = form.text("name", { label: "Your name", max: 100, required: true });
        const password = form.params.get("password") ?? "";
        if (password.length < MIN_PASSWORD)
          throw invalid(`The password must be at least ${MIN_PASSWORD} characters long.`);
        if (password.length > 200) throw invalid("The password must be at most 200 characters.");
        if (password !== (form.params.get("confirm") ?? "")) throw invalid("The two passwords differ.");
        const v = await invitationByToken(deps, token);
        if (v?.account === "ready")
          throw new AppError("conflict", `${v.email} already has a Plinth account: sign in to accept.`);
        const passwordHash = await Bun.password.hash(password, { algorithm: "argon2id" });
        result = await acceptInvitation(deps, token, { signUp: { name, passwordHash } });
        // Signed in, in the company just joined.
        await startSession(deps, c, result.userId, { activeCompanyId: result.companyId });
      }
      if (session)
        await deps.db
          .update(sessions)
          .set({ activeCompanyId: result.companyId })
          .where(eq(sessions.idHash, session.idHash));
      return c.redirect("/team?done=joined", 303);
    } catch (e) {
      if (!isAppError(e) || !["validation", "conflict", "forbidden", "not_found"].includes(e.code)) throw e;
      const status = e.code === "validation" ? 400 : e.code === "forbidden" ? 403 : 409;
      return await show(c, token, session, { error: e.message, name, status });
    }
  });
}
