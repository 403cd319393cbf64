/**
 * The consent screen: who is asking (the client, and where the answer will
 * be sent), what it asks for (scopes, each untickable), and which companies
 * the connection may reach (one checkbox per membership). The connection is
 * limited to the companies ticked here, intersected on every request with
 * the person's live membership; joining a company later means connecting
 * again. Consent is never remembered: every authorization asks.
 */
import { randomHex, sha256Hex } from "../core/secrets";
import type { Hono } from "hono";
import type { Deps } from "../core/context";
import { AppError } from "../core/errors";
import { readForm } from "../portal/forms";
import { loginRedirect, sameOrigin, type PortalEnv } from "../portal/guard";
import { Csrf, Layout, Notice, render } from "../portal/layout";
import { ScopePicker } from "../portal/scope-picker";
import { csrfValid, readSession, type Session } from "../portal/session";
import { parseAuthorizeRequest, REQUEST_PARAMS, type AuthorizeRequest } from "./authorize";
import { CODE_TTL_MS, PATHS } from "./metadata";
import { buildRedirect } from "./redirect";
import { oauthCodes } from "./tables";

function clientLabel(r: AuthorizeRequest): { name: string; detail: string } {
  const c = r.client;
  if (c.source === "metadata_document") {
    const host = new URL(c.clientId).host;
    return { name: c.name ?? host, detail: `Identified by its metadata document at ${host}.` };
  }
  return {
    name: c.name ?? "An unnamed application",
    detail: "This application registered itself; Plinth has not verified who publishes it.",
  };
}

/** Where the answer goes, as a person would recognise it. */
function destination(uri: string): string {
  const u = new URL(uri);
  return u.protocol === "http:" || u.protocol === "https:" ? u.host : `${u.protocol}//`;
}

/** CSP form-action source for the redirect that follows the consent post. */
function formActionSource(uri: string): string {
  const u = new URL(uri);
  return u.protocol === "http:" || u.protocol === "https:" ? u.origin : u.protocol;
}

const ConsentPage = (p: {
  session: Session;
  request: AuthorizeRequest;
  granted: ReadonlySet<string>;
  companies: ReadonlySet<number>;
  error?: string;
}) => {
  const { name, detail } = clientLabel(p.request);
  const hasCompanies = p.session.companies.length > 0;
  return (
    <Layout title={`Connect ${name}`} session={p.session} path={PATHS.authorize} narrow focused>
      <h1>Connect {name} to Plinth?</h1>
      {p.error && <Notice kind="error">{p.error}</Notice>}
      <div class="card client">
        <div class="mark" aria-hidden="true">
          {name.slice(0, 1).toUpperCase()}
        </div>
        <div>
          <strong>{name}</strong>
          <div class="muted small">{detail}</div>
          <div class="muted small">
            After you decide you will be sent to <code>{destination(p.request.redirectUri)}</code>.
          </div>
        </div>
      </div>
      <p class="muted small">
        Signed in as <strong>{p.session.user.email}</strong>. Not you? Sign out first.
      </p>
      <form method="post" action={PATHS.authorize}>
        <Csrf session={p.session} />
        {REQUEST_PARAMS.filter((k) => p.request.params[k] !== undefined).map((k) => (
          <input type="hidden" name={k} value={p.request.params[k]} />
        ))}
        {hasCompanies ? (
          <>
            <h2>Companies it may act for</h2>
            <div class="card">
              {p.session.companies.map((m) => (
                <label class="inline">
                  <input type="checkbox" name="grant_company" value={String(m.id)} checked={p.companies.has(m.id)} />{" "}
                  {m.name} <span class="badge">{m.role}</span>
                </label>
              ))}
              <p class="muted small">
                Your role still applies: where you are a viewer, it can only read. To add a company you join later, connect
                again.
              </p>
            </div>
            <h2>What it may do</h2>
            <p class="muted small">It asked for the scopes below. Untick any you do not want to grant.</p>
            <div class="card">
              <ScopePicker offered={p.request.scopes} checked={p.granted} name="grant_scope" />
            </div>
          </>
        ) : (
          <Notice kind="warn">You do not belong to any company yet, so there is nothing this application could reach.</Notice>
        )}
        <div class="actions">
          {hasCompanies && (
            <button type="submit" name="decision" value="approve">
              Allow access
            </button>
          )}
          <button class="secondary" type="submit" name="decision" value="deny">
            Deny
          </button>
        </div>
      </form>
    </Layout>
  );
};

const ErrorPage = (p: { session: Session | null; message: string }) => (
  <Layout title="Cannot connect" session={p.session} path={PATHS.authorize} narrow>
    <h1>This connection request cannot be used</h1>
    <Notice kind="error">{p.message}</Notice>
    <p class="muted">Go back to the application and start connecting again. If it keeps failing, tell its publisher.</p>
  </Layout>
);

/** Mints the authorization code: shown once in the redirect, stored as its SHA-256. */
async function issueCode(deps: Deps, r: AuthorizeRequest, userId: number, scopes: string[], companyIds: number[]): Promise<string> {
  const code = randomHex(32);
  const now = deps.clock.ms();
  await deps.db
            .insert(oauthCodes)
            .values({
              codeHash: sha256Hex(code),
              familyId: randomHex(16),
              clientId: r.client.clientId,
              userId,
              redirectUri: r.redirectUri,
              codeChallenge: r.codeChallenge,
              scopes,
              companyIds,
              resource: r.resource,
              expiresAt: new Date(now + CODE_TTL_MS),
              createdAt: new Date(now),
            });
  return code;
}

export function consentRoutes(app: Hono<PortalEnv>, deps: Deps) {
  app.get(PATHS.authorize, async (c) => {
    const url = new URL(c.req.url);
    const parsed = await parseAuthorizeRequest(deps, url.searchParams);
    const session = await readSession(deps, c);
    if (parsed.kind === "fatal") return render(c, <ErrorPage session={session} message={parsed.message} />, { status: 400 });
    if (parsed.kind === "redirect") return c.redirect(parsed.location, 302);
    if (!session) return loginRedirect(c);
    const r = parsed.request;
    const preselected = new Set(session.companies.length === 1 ? [session.companies[0]!.id] : session.active ? [session.active.id] : []);
    return render(c, <ConsentPage session={session} request={r} granted={new Set(r.scopes)} companies={preselected} />, {
      formAction: [formActionSource(r.redirectUri)],
    });
  });

  app.post(PATHS.authorize, sameOrigin(deps), async (c) => {
    const form = await readForm(c);
    const parsed = await parseAuthorizeRequest(deps, form.params);
    const session = await readSession(deps, c);
    if (parsed.kind === "fatal") return render(c, <ErrorPage session={session} message={parsed.message} />, { status: 400 });
    if (parsed.kind === "redirect") return c.redirect(parsed.location, 303);
    const r = parsed.request;
    if (!session) {
      // The session ended while the page was open: sign in again, then see the same request.
      const q = new URLSearchParams(r.params);
      return c.redirect(`/login?next=${encodeURIComponent(`${PATHS.authorize}?${q}`)}`, 303);
    }
    if (!csrfValid(session, form.params.get("_csrf")))
      throw new AppError("forbidden", "This form has expired or did not come from this site. Go back, reload the page and try again.");
    const decision = form.text("decision", { max: 20 });
    if (decision === "deny")
      return c.redirect(buildRedirect(deps, r.redirectUri, { error: "access_denied", error_description: "The user denied access.", state: r.state }), 303);
    if (decision !== "approve") throw new AppError("validation", "Choose Allow access or Deny.");

    const asked = new Set(r.scopes);
    const granted = [...new Set(form.list("grant_scope"))].filter((s) => asked.has(s));
    const mine = new Set(session.companies.map((m) => m.id));
    const companyIds = [...new Set(form.ids("grant_company", "Companies"))].filter((id) => mine.has(id)).sort((a, b) => a - b);
    const again = (error: string) =>
      render(
        c,
        <ConsentPage session={session} request={r} granted={new Set(granted)} companies={new Set(companyIds)} error={error} />,
        { status: 400, formAction: [formActionSource(r.redirectUri)] },
      );
    if (companyIds.length === 0) return again("Tick at least one company the application may act for.");
    if (granted.length === 0) return again("Tick at least one scope, or choose Deny.");
    // Keep the grant in the order the client asked for it.
    const scopes = r.scopes.filter((s) => granted.includes(s));
    const code = await issueCode(deps, r, session.user.id, scopes, companyIds);
    return c.redirect(buildRedirect(deps, r.redirectUri, { code, state: r.state }), 303);
  });
}
