/**
 * Settings → API keys: a person's own MCP keys (svc_mcp_…). Create one with
 * a name, what it may do (per area: no access / read / read and change, or
 * full access: the same chooser as the OAuth consent screen), the companies
 * it may reach, whether its content changes need approval, its tool
 * listing (src/portal/listing-picker.tsx: how many tools each mode lists and
 * which clients take that; changeable later per key), and an expiry; the
 * secret is shown once, on the page that answers the create form, and never
 * again. List with created / last used; revoke.
 */
import type { Hono } from "hono";
import type { Deps } from "../core/context";
import { AppError, invalid, isAppError } from "../core/errors";
import { listMcpKeys, mintMcpKey, revokeMcpKey, setMcpKeyListing } from "../domains/accounts/verbs";
import type { Form } from "../ui/form-data";
import { signedIn, type PortalEnv } from "./guard";
import { Csrf, DangerButton, Field } from "../ui/forms";
import { Layout, render } from "../ui/layout";
import { StatusBadge, type Tone } from "../ui/badge";
import { Notice } from "../ui/notice";
import { PageHeader } from "../ui/page-header";
import { DataTable, EmptyState } from "../ui/table";
import { when } from "../ui/format";
import { emptyChoice, grantedScopes, offerAll, readScopeChoice, ScopeChooser, type ScopeChoice } from "./scope-picker";
import type { Session } from "./session";
import { ListingChooser, listingSummary, readListing } from "./listing-picker";

const PATH = "/settings/api-keys";
export const EXPIRY_CHOICES = [
  { value: "", label: "Never" },
  { value: "7", label: "In 7 days" },
  { value: "30", label: "In 30 days" },
  { value: "90", label: "In 90 days" },
  { value: "365", label: "In a year" },
] as const;

export interface KeyDraft {
  name: string;
  /** What the person chose, kept to re-show the form. */
  choice: ScopeChoice;
  scopes: string[];
  companyIds: number[];
  requireCmsApproval: boolean;
  /** The tool listing chosen (null: automatic). */
  listingMode: string | null;
  expiry: string;
}

/** Reads and checks the create form; an AppError names the field at fault. */
export function readKeyDraft(form: Form, session: Session): KeyDraft {
  const name = form.text("name", { label: "Name", max: 100, required: true });
  if (/[\x00-\x1f\x7f]/.test(name)) throw invalid("Name must not contain control characters.");
  const offer = offerAll();
  const choice = readScopeChoice(form, offer);
  const scopes = grantedScopes(offer, choice);
  if (scopes.length === 0) throw invalid("Choose Read or Read and change for at least one area, or full access.");
  const mine = new Set(session.companies.map((m) => m.id));
  const companyIds = [...new Set(form.ids("company", "Companies"))];
  if (companyIds.length === 0) throw invalid("Choose at least one company the key may reach.");
  if (companyIds.some((id) => !mine.has(id))) throw invalid("You can only choose companies you belong to.");
  const expiry = form.text("expiry", { label: "Expiry", max: 5 });
  if (!EXPIRY_CHOICES.some((e) => e.value === expiry)) throw invalid("Choose an expiry from the list.");
  const listingMode = readListing(form);
  return {
    name,
    choice,
    scopes,
    companyIds,
    requireCmsApproval: form.bool("require_cms_approval"),
    listingMode,
    expiry,
  };
}

type KeyRow = Awaited<ReturnType<typeof listMcpKeys>>[number];

function status(k: KeyRow, now: number): { label: string; tone: Tone } {
  if (k.revokedAt) return { label: "revoked", tone: "danger" };
  if (k.expiresAt && k.expiresAt.getTime() <= now) return { label: "expired", tone: "warn" };
  return { label: "active", tone: "ok" };
}

const EMPTY: KeyDraft = {
  name: "",
  choice: emptyChoice,
  scopes: [],
  companyIds: [],
  requireCmsApproval: false,
  listingMode: null,
  expiry: "",
};

const KeysPage = (p: {
  session: Session;
  keys: KeyRow[];
  now: number;
  draft: KeyDraft;
  error?: string;
  created?: { name: string; key: string };
  notice?: string;
}) => {
  const companyName = new Map(p.session.companies.map((m) => [m.id, m.name]));
  const checkedCompanies = new Set(
    p.draft.companyIds.length ? p.draft.companyIds : p.session.active ? [p.session.active.id] : [],
  );
  return (
    <Layout title="API keys" viewer={p.session} path={PATH}>
      <PageHeader
        title="API keys"
        lead="Keys for MCP clients that cannot sign in with a browser. They act as you, with the scopes you choose, in the companies you choose."
      />
      {p.notice && <Notice kind="ok">{p.notice}</Notice>}
      {p.created && (
        <div class="notice ok" role="status">
          <strong>Key “{p.created.name}” created.</strong> Copy it now: it will not be shown again.
          <code class="secret" id="new-key">
            {p.created.key}
          </code>
          <span class="muted small">
            Send it as <code>Authorization: Bearer …</code> to <code>/api/mcp</code>.
          </span>
        </div>
      )}
      <h2>Your keys</h2>
      {p.keys.length === 0 ? (
        <EmptyState>No keys yet.</EmptyState>
      ) : (
        <DataTable
          columns={[
            "Name",
            "Scopes",
            "Tool listing",
            { label: "Companies", hideSm: true },
            { label: "Created", hideSm: true },
            "Last used",
            { label: "Expires", hideSm: true },
            "Status",
            "",
          ]}
        >
          {p.keys.map((k) => {
            const s = status(k, p.now);
            return (
              <tr>
                <td>
                  {k.name}
                  <div class="muted small">
                    <code>{k.hint}…</code>
                    {k.requireCmsApproval && <StatusBadge tone="warn">changes need approval</StatusBadge>}
                  </div>
                </td>
                <td class="small">{k.scopes.join(" ")}</td>
                <td class="small">
                  <span class="listing-summary">{listingSummary(k.listingMode, k.scopes)}</span>
                  {s.label === "active" && (
                    <details>
                      <summary>Change</summary>
                      <form method="post" action={`${PATH}/${k.id}/listing`}>
                        <Csrf viewer={p.session} />
                        <ListingChooser scopes={k.scopes} mode={k.listingMode} id={`listing-${k.id}`} />
                        <button type="submit">Save listing</button>
                      </form>
                    </details>
                  )}
                </td>
                <td class="hide-sm small">{k.companyIds.map((id) => companyName.get(id) ?? `#${id}`).join(", ")}</td>
                <td class="hide-sm small">{when(k.createdAt)}</td>
                <td class="small">{k.lastUsedAt ? when(k.lastUsedAt) : "never"}</td>
                <td class="hide-sm small">{k.expiresAt ? when(k.expiresAt) : "never"}</td>
                <td>
                  <StatusBadge tone={s.tone}>{s.label}</StatusBadge>
                </td>
                <td>
                  {s.label === "active" && (
                    <DangerButton viewer={p.session} action={`${PATH}/${k.id}/revoke`} label="Revoke" />
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      <h2 id="create">Create a key</h2>
      {p.error && <Notice kind="error">{p.error}</Notice>}
      <form class="card" method="post" action={PATH}>
        <Csrf viewer={p.session} />
        <Field id="key-name" label="Name">
          <input
            id="key-name"
            type="text"
            name="name"
            maxlength={100}
            required
            value={p.draft.name}
            placeholder="e.g. Claude on my laptop"
          />
        </Field>
        <fieldset>
          <legend>Companies it may reach</legend>
          {p.session.companies.map((m) => (
            <label class="inline">
              <input type="checkbox" name="company" value={String(m.id)} checked={checkedCompanies.has(m.id)} />{" "}
              {m.name} <StatusBadge>{m.role}</StatusBadge>
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>What it may do</legend>
          <ScopeChooser offer={offerAll()} choice={p.draft.choice} />
        </fieldset>
        <label class="inline">
          <input type="checkbox" name="require_cms_approval" checked={p.draft.requireCmsApproval} /> Changes the public
          would see (content, media, branding, the store, sends) made with this key wait for a person's approval
        </label>
        <ListingChooser scopes={p.draft.scopes.length ? p.draft.scopes : ["*"]} mode={p.draft.listingMode} />
        <p class="muted small">
          {p.draft.scopes.length ? "Counts for the scopes chosen above." : "Counts for full access;"} Preview recounts
          for what you chose.
        </p>
        <Field id="key-expiry" label="Expires">
          <select id="key-expiry" name="expiry">
            {EXPIRY_CHOICES.map((e) => (
              <option value={e.value} selected={p.draft.expiry === e.value}>
                {e.label}
              </option>
            ))}
          </select>
        </Field>
        <div class="actions">
          <button type="submit">Create key</button>
          <button class="secondary" type="submit" name="preview" value="1">
            Preview tool counts
          </button>
        </div>
      </form>
    </Layout>
  );
};

export function apiKeyRoutes(app: Hono<PortalEnv>, deps: Deps) {
  const page = async (session: Session, extra: Partial<Parameters<typeof KeysPage>[0]> = {}) => (
    <KeysPage
      session={session}
      keys={await listMcpKeys(deps, session.user.id)}
      now={deps.clock.ms()}
      draft={EMPTY}
      {...extra}
    />
  );

  app.get(PATH, signedIn(deps), async (c) => {
    const session = c.get("session");
    const revoked = Number(c.req.query("revoked"));
    const key = Number.isSafeInteger(revoked)
      ? (await listMcpKeys(deps, session.user.id)).find((k) => k.id === revoked)
      : undefined;
    const listed = Number(c.req.query("listed"));
    const changed = Number.isSafeInteger(listed)
      ? (await listMcpKeys(deps, session.user.id)).find((k) => k.id === listed)
      : undefined;
    const notice = key?.revokedAt
      ? `Key “${key.name}” revoked. Clients using it are refused from now on.`
      : changed
        ? `Tool listing of “${changed.name}” changed to ${listingSummary(changed.listingMode, changed.scopes)}, from its next request.`
        : undefined;
    return render(c, await page(session, { notice }));
  });

  app.post(PATH, signedIn(deps), async (c) => {
    const session = c.get("session");
    let draft = EMPTY;
    try {
      draft = readKeyDraft(c.get("form"), session);
      // Preview: the same page with the counts for what was chosen, nothing created.
      if (c.get("form").bool("preview")) return render(c, await page(session, { draft }));
      const days = draft.expiry ? Number(draft.expiry) : null;
      const { key } = await mintMcpKey(deps, {
        userId: session.user.id,
        name: draft.name,
        scopes: draft.scopes,
        companyIds: draft.companyIds,
        requireCmsApproval: draft.requireCmsApproval,
        listingMode: draft.listingMode,
        expiresAt: days ? new Date(deps.clock.ms() + days * 86_400_000) : undefined,
      });
      return render(c, await page(session, { created: { name: draft.name, key } }));
    } catch (e) {
      if (!isAppError(e) || e.code !== "validation") throw e;
      // Keep what they typed (except on a malformed post, where draft stays empty).
      let kept = draft;
      try {
        kept = { ...EMPTY, name: c.get("form").text("name", { max: 100 }) };
        kept = { ...kept, choice: readScopeChoice(c.get("form"), offerAll()) };
      } catch {
        // Keep what could be read.
      }
      return render(c, await page(session, { draft: draft === EMPTY ? kept : draft, error: e.message }), {
        status: 400,
      });
    }
  });

  app.post(`${PATH}/:id/listing`, signedIn(deps), async (c) => {
    const session = c.get("session");
    const raw = c.req.param("id");
    const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    // Only your own keys: someone else's id answers like a key that does not exist.
    const key = (await listMcpKeys(deps, session.user.id)).find((k) => k.id === id);
    if (!key) throw new AppError("not_found", "No such key among yours.");
    let mode: string | null;
    try {
      mode = readListing(c.get("form"));
    } catch (e) {
      if (!isAppError(e) || e.code !== "validation") throw e;
      return render(c, await page(session, { error: `Key “${key.name}”: ${e.message}` }), { status: 400 });
    }
    await setMcpKeyListing(deps, id, mode);
    return c.redirect(`${PATH}?listed=${id}`, 303);
  });

  app.post(`${PATH}/:id/revoke`, signedIn(deps), async (c) => {
    const session = c.get("session");
    const raw = c.req.param("id");
    const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    // Only your own keys: someone else's id answers like a key that does not exist.
    const key = (await listMcpKeys(deps, session.user.id)).find((k) => k.id === id);
    if (!key) throw new AppError("not_found", "No such key among yours.");
    await revokeMcpKey(deps, id);
    return c.redirect(`${PATH}?revoked=${id}`, 303);
  });
}
