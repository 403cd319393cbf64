/**
 * The consent screen: who is asking (the client, and where the answer will
 * be sent), a sentence saying what it asks for, what it may do (one line per
 * area with no access / read / read and change, pre-set to what was asked,
 * and `*` as a separate full-access box), and which companies the
 * connection may reach (one checkbox per membership), and its tool listing
 * (how many tools each mode lists for what is granted and which clients take
 * that: src/portal/listing-picker.tsx; Preview recounts without granting).
 * What is granted is the
 * person's choice, never more than asked (src/portal/scope-picker.tsx). The
 * connection is limited to the companies ticked here, intersected on every
 * request with the person's live membership; joining a company later means
 * connecting again. Consent is never remembered: every authorization asks.
 *
 * Mounted by the portal (src/portal/routes.tsx), so its post has passed the
 * portal's formGuard (same origin, and the session's CSRF token when signed in).
 */
import { randomHex, sha256Hex } from "../core/secrets";
import type { Context, Hono } from "hono";
import type { Deps } from "../core/context";
import { AppError, isAppError } from "../core/errors";
import { readForm } from "../ui/form-data";
import { checkedForm, loginRedirect, type PortalEnv } from "../portal/guard";
import { Csrf } from "../ui/forms";
import { Layout, render } from "../ui/layout";
import { Notice } from "../ui/notice";
import {
  askedChoice,
  askedSummary,
  grantedScopes,
  offerFor,
  readScopeChoice,
  ScopeChooser,
  type ScopeChoice,
  type ScopeOffer,
} from "../portal/scope-picker";
import { readSession, type Membership, type Session } from "../portal/session";
import { ListingChooser, readListing } from "../portal/listing-picker";
import { parseAuthorizeRequest, REQUEST_PARAMS, type AuthorizeRequest } from "./authorize";
import { CODE_TTL_MS, PATHS } from "./metadata";
import { buildRedirect } from "./redirect";
import { oauthCodes } from "../domains/accounts/tables";

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

/**
 * Companies ticked when the page opens: those where the person is an owner
 * or admin (where the application can act, not only read); a person who is
 * a viewer everywhere gets all their companies ticked.
 */
export function defaultCompanies(companies: readonly Membership[]): Set<number> {
  const managed = companies.filter((m) => m.role === "owner" || m.role === "admin");
  return new Set((managed.length ? managed : companies).map((m) => m.id));
}

/** "A, B and 3 more", for the areas a client asked for that have no tools here. */
function someNames(names: string[]): string {
  const shown = names.slice(0, 4);
  const rest = names.length - shown.length;
  if (rest > 0) return `${shown.join(", ")} and ${rest} more`;
  return shown.length > 1 ? `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}` : (shown[0] ?? "");
}

const ConsentPage = (p: {
  session: Session;
  request: AuthorizeRequest;
  offer: ScopeOffer;
  choice: ScopeChoice;
  companies: ReadonlySet<number>;
  listingMode: string | null;
  error?: string;
}) => {
  const { name, detail } = clientLabel(p.request);
  const hasCompanies = p.session.companies.length > 0;
  const grantable = p.offer.areas.length > 0 || p.offer.fullAccess;
  return (
    <Layout title={`Connect ${name}`} viewer={p.session} path={PATHS.authorize} narrow focused>
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
      <p class="summary">
        {name} {askedSummary(p.offer, p.request.scopes)}
        {grantable && hasCompanies ? ", acting as you in the companies you choose below." : "."}
      </p>
      {p.offer.withoutTools.length > 0 && (
        <p class="muted small">
          It also asked for {someNames(p.offer.withoutTools)}, which this server has no tools for yet; that is not shown
          and not granted.
        </p>
      )}
      <p class="muted small">
        Signed in as <strong>{p.session.user.email}</strong>. Not you? Sign out first.
      </p>
      <form method="post" action={PATHS.authorize}>
        <Csrf viewer={p.session} />
        {REQUEST_PARAMS.filter((k) => p.request.params[k] !== undefined).map((k) => (
          <input type="hidden" name={k} value={p.request.params[k]} />
        ))}
        {!hasCompanies ? (
          <Notice kind="warn">
            You do not belong to any company yet, so there is nothing this application could reach.
          </Notice>
        ) : !grantable ? (
          <Notice kind="warn">Nothing it asked for exists on this server yet, so there is nothing to grant.</Notice>
        ) : (
          <>
            <fieldset class="card">
              <legend>Companies it may act for</legend>
              {p.session.companies.map((m) => (
                <label class="inline">
                  <input type="checkbox" name="grant_company" value={String(m.id)} checked={p.companies.has(m.id)} />{" "}
                  {m.name} <span class="badge">{m.role}</span>
                </label>
              ))}
              <p class="muted small">
                Your role still applies: where you are a viewer, it can only read. To add a company you join later,
                connect again.
              </p>
            </fieldset>
            <h2>What it may do</h2>
            <p class="muted small">
              Each area starts at what it asked for. Choose less wherever you like; it never gets more.
            </p>
            <div class="card">
              <ScopeChooser offer={p.offer} choice={p.choice} />
            </div>
            <div class="card">
              <ListingChooser scopes={grantedScopes(p.offer, p.choice)} mode={p.listingMode} />
              <p class="muted small">
                Counts for the access chosen above as the page opened; Preview recounts. You can change the listing
                later under Settings → Connections.
              </p>
            </div>
          </>
        )}
        <div class="actions">
          {hasCompanies && grantable && (
            <button type="submit" name="decision" value="approve">
              Allow access
            </button>
          )}
          {hasCompanies && grantable && (
            <button class="secondary" type="submit" name="decision" value="preview">
              Preview tool counts
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
  <Layout title="Cannot connect" viewer={p.session} path={PATHS.authorize} narrow>
    <h1>This connection request cannot be used</h1>
    <Notice kind="error">{p.message}</Notice>
    <p class="muted">Go back to the application and start connecting again. If it keeps failing, tell its publisher.</p>
  </Layout>
);

/** Mints the authorization code: shown once in the redirect, stored as its SHA-256. */
async function issueCode(
  deps: Deps,
  r: AuthorizeRequest,
  userId: number,
  scopes: string[],
  companyIds: number[],
  listingMode: string | null,
): Promise<string> {
  const code = randomHex(32);
  const now = deps.clock.ms();
  await deps.db.insert(oauthCodes).values({
    codeHash: sha256Hex(code),
    familyId: randomHex(16),
    clientId: r.client.clientId,
    userId,
    redirectUri: r.redirectUri,
    codeChallenge: r.codeChallenge,
    scopes,
    companyIds,
    listingMode,
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
    if (parsed.kind === "fatal")
      return render(c, <ErrorPage session={session} message={parsed.message} />, { status: 400 });
    if (parsed.kind === "redirect") return c.redirect(parsed.location, 302);
    if (!session) return loginRedirect(c);
    const r = parsed.request;
    const offer = offerFor(r.scopes);
    return render(
      c,
      <ConsentPage
        session={session}
        request={r}
        offer={offer}
        choice={askedChoice(offer, r.scopes)}
        companies={defaultCompanies(session.companies)}
        listingMode={null}
      />,
      { formAction: [formActionSource(r.redirectUri)] },
    );
  });

  app.post(PATHS.authorize, async (c: Context<PortalEnv>) => {
    // formGuard has checked the origin, and for a signed-in person the CSRF token, and read the form.
    const session = c.var.session as Session | undefined;
    const form = session ? checkedForm(c) : await readForm(c);
    const parsed = await parseAuthorizeRequest(deps, form.params);
    if (parsed.kind === "fatal")
      return render(c, <ErrorPage session={session ?? null} message={parsed.message} />, { status: 400 });
    if (parsed.kind === "redirect") return c.redirect(parsed.location, 303);
    const r = parsed.request;
    if (!session) {
      // The session ended while the page was open: sign in again, then see the same request.
      const q = new URLSearchParams(r.params);
      return c.redirect(`/login?next=${encodeURIComponent(`${PATHS.authorize}?${q}`)}`, 303);
    }
    const decision = form.text("decision", { max: 20 });
    if (decision === "deny")
      return c.redirect(
        buildRedirect(deps, r.redirectUri, {
          error: "access_denied",
          error_description: "The user denied access.",
          state: r.state,
        }),
        303,
      );
    if (decision !== "approve" && decision !== "preview")
      throw new AppError("validation", "Choose Allow access or Deny.");

    const offer = offerFor(r.scopes);
    const mine = new Set(session.companies.map((m) => m.id));
    const companyIds = [...new Set(form.ids("grant_company", "Companies"))]
      .filter((id) => mine.has(id))
      .sort((a, b) => a - b);
    let listingMode: string | null = null;
    const again = (error: string | undefined, choice: ScopeChoice) =>
      render(
        c,
        <ConsentPage
          session={session}
          request={r}
          offer={offer}
          choice={choice}
          companies={new Set(companyIds)}
          listingMode={listingMode}
          error={error}
        />,
        { status: error ? 400 : 200, formAction: [formActionSource(r.redirectUri)] },
      );
    let choice: ScopeChoice;
    try {
      choice = readScopeChoice(form, offer);
    } catch (e) {
      if (!isAppError(e) || e.code !== "validation") throw e;
      return again(e.message, askedChoice(offer, r.scopes));
    }
    try {
      listingMode = readListing(form);
    } catch (e) {
      if (!isAppError(e) || e.code !== "validation") throw e;
      return again(e.message, choice);
    }
    // Preview: the same page, counted for what is now chosen; nothing granted.
    if (decision === "preview") return again(undefined, choice);
    if (companyIds.length === 0) return again("Tick at least one company the application may act for.", choice);
    const scopes = grantedScopes(offer, choice);
    if (scopes.length === 0)
      return again("Choose Read or Read and change for at least one area, or choose Deny.", choice);
    const code = await issueCode(deps, r, session.user.id, scopes, companyIds, listingMode);
    return c.redirect(buildRedirect(deps, r.redirectUri, { code, state: r.state }), 303);
  });
}
