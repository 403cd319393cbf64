/**
 * Settings → REST keys: the read keys (svc_live_…) of the active company's
 * sites. Owners and admins create and revoke; viewers see the list. The
 * secret is shown once, on the page answering the create form. Every site
 * id from the browser goes through siteForActor, the one tenancy check.
 */
import { asc, eq } from "drizzle-orm";
import type { Hono } from "hono";
import type { ActorContext, Deps } from "../core/context";
import { AppError, invalid, isAppError } from "../core/errors";
import { siteForActor } from "../domains/sites/access";
import { createRestKey, listRestKeys, revokeRestKey, type RestKeyInfo } from "../domains/sites/rest-keys";
import { sites } from "../domains/sites/tables";
import { canManage } from "../ui/signed-in";
import { portalActor, requireManager } from "./actor";
import { EXPIRY_CHOICES } from "./api-keys";
import { signedIn, type PortalEnv } from "./guard";
import { Csrf, DangerButton } from "../ui/forms";
import { Layout, render } from "../ui/layout";
import { Notice } from "../ui/notice";
import { when } from "../ui/format";
import type { Session } from "./session";
import { StatusBadge, type Tone } from "../ui/badge";
import { PageHeader } from "../ui/page-header";
import { DataTable, EmptyState } from "../ui/table";

const PATH = "/settings/rest-keys";

async function companySites(ctx: ActorContext) {
  return await ctx.deps.db
    .select({ id: sites.id, name: sites.name })
    .from(sites)
    .where(eq(sites.companyId, ctx.company.id))
    .orderBy(asc(sites.id));
}

const at = (s: string | null) => (s ? when(new Date(s)) : null);

const RestKeysPage = (p: {
  session: Session;
  sites: { id: number; name: string }[];
  site: { id: number; name: string } | null;
  keys: RestKeyInfo[];
  now: number;
  error?: string;
  notice?: string;
  created?: { name: string; key: string };
  name?: string;
}) => {
  const manage = canManage(p.session);
  return (
    <Layout title="REST keys" viewer={p.session} path={PATH}>
      <PageHeader
        title="REST keys"
        lead="Read keys for a site's headless front end (the REST API at /api/v1). Each key works for one site only."
      />
      {p.sites.length === 0 && <p class="muted">{p.session.active?.name} has no sites yet.</p>}
      {p.sites.length > 1 && (
        <form class="card switcher" method="get" action={PATH}>
          <label class="inline" for="site">
            Site
          </label>
          <select id="site" name="site">
            {p.sites.map((s) => (
              <option value={String(s.id)} selected={s.id === p.site?.id}>
                {s.name}
              </option>
            ))}
          </select>
          <button class="secondary" type="submit">
            Show
          </button>
        </form>
      )}
      {p.notice && <Notice kind="ok">{p.notice}</Notice>}
      {p.created && (
        <div class="notice ok" role="status">
          <strong>Key “{p.created.name}” created.</strong> Copy it now: it will not be shown again.
          <code class="secret" id="new-key">
            {p.created.key}
          </code>
        </div>
      )}
      {p.site && (
        <>
          <h2>Keys for {p.site.name}</h2>
          {p.keys.length === 0 ? (
            <EmptyState>No keys yet.</EmptyState>
          ) : (
            <DataTable
              columns={[
                "Name",
                { label: "Created", hideSm: true },
                "Last used",
                { label: "Expires", hideSm: true },
                "Status",
                ...(manage ? [""] : []),
              ]}
            >
              {p.keys.map((k) => {
                const expired = k.expiresAt !== null && Date.parse(k.expiresAt) <= p.now;
                const state: [string, Tone] = k.revokedAt
                  ? ["revoked", "danger"]
                  : expired
                    ? ["expired", "warn"]
                    : ["active", "ok"];
                return (
                  <tr>
                    <td>
                      {k.name}
                      <div class="muted small">
                        <code>{k.hint}…</code>
                      </div>
                    </td>
                    <td class="hide-sm small">{at(k.createdAt)}</td>
                    <td class="small">{at(k.lastUsedAt) ?? "never"}</td>
                    <td class="hide-sm small">{at(k.expiresAt) ?? "never"}</td>
                    <td>
                      <StatusBadge tone={state[1]}>{state[0]}</StatusBadge>
                    </td>
                    {manage && (
                      <td>
                        {state[0] === "active" && (
                          <DangerButton viewer={p.session} action={`${PATH}/${k.id}/revoke`} label="Revoke">
                            <input type="hidden" name="site_id" value={String(p.site!.id)} />
                          </DangerButton>
                        )}
                      </td>
                    )}
                  </tr>
                );
              })}
            </DataTable>
          )}
          {manage ? (
            <>
              <h2>Create a key</h2>
              {p.error && <Notice kind="error">{p.error}</Notice>}
              <form class="card" method="post" action={PATH}>
                <Csrf viewer={p.session} />
                <input type="hidden" name="site_id" value={String(p.site.id)} />
                <label for="rest-name">Name</label>
                <input
                  id="rest-name"
                  type="text"
                  name="name"
                  maxlength={100}
                  required
                  value={p.name ?? ""}
                  placeholder="e.g. Production front end"
                />
                <label for="rest-expiry">Expires</label>
                <select id="rest-expiry" name="expiry">
                  {EXPIRY_CHOICES.map((e) => (
                    <option value={e.value}>{e.label}</option>
                  ))}
                </select>
                <div class="actions">
                  <button type="submit">Create key</button>
                </div>
              </form>
            </>
          ) : (
            <p class="muted small">Only owners and admins can create or revoke keys.</p>
          )}
        </>
      )}
    </Layout>
  );
};

export function restKeyRoutes(app: Hono<PortalEnv>, deps: Deps) {
  const view = async (
    ctx: ActorContext,
    session: Session,
    siteId: number | undefined,
    extra: Record<string, unknown> = {},
  ) => {
    const all = await companySites(ctx);
    const site = siteId !== undefined ? await siteForActor(ctx, siteId) : (all[0] ?? null);
    return (
      <RestKeysPage
        session={session}
        sites={all}
        site={site ? { id: site.id, name: site.name } : null}
        keys={site ? await listRestKeys(deps, site.id) : []}
        now={deps.clock.ms()}
        {...extra}
      />
    );
  };
  const siteParam = (raw: string | undefined) => {
    if (raw === undefined || raw === "") return undefined;
    if (!/^\d{1,15}$/.test(raw)) throw new AppError("not_found", "No such site.");
    return Number(raw);
  };

  app.get(PATH, signedIn(deps), async (c) => {
    const session = c.get("session");
    const ctx = portalActor(deps, c, session);
    const notice = c.req.query("revoked") ? "Key revoked. Requests with it now get 401." : undefined;
    return render(c, await view(ctx, session, siteParam(c.req.query("site")), { notice }));
  });

  app.post(PATH, signedIn(deps), async (c) => {
    const session = c.get("session");
    const ctx = portalActor(deps, c, session);
    const form = c.get("form");
    requireManager(session, "create REST keys");
    const site = await siteForActor(ctx, form.id("site_id", { label: "Site", required: true })!);
    let name = "";
    try {
      name = form.text("name", { label: "Name", max: 100, required: true });
      const expiry = form.text("expiry", { label: "Expiry", max: 5 });
      if (!EXPIRY_CHOICES.some((e) => e.value === expiry)) throw invalid("Choose an expiry from the list.");
      const days = expiry ? Number(expiry) : null;
      const created = await createRestKey(deps, {
        siteId: site.id,
        name,
        expiresAt: days ? new Date(deps.clock.ms() + days * 86_400_000) : undefined,
      });
      return render(c, await view(ctx, session, site.id, { created: { name: created.name, key: created.key } }));
    } catch (e) {
      if (!isAppError(e) || e.code !== "validation") throw e;
      return render(c, await view(ctx, session, site.id, { error: e.message, name }), { status: 400 });
    }
  });

  app.post(`${PATH}/:id/revoke`, signedIn(deps), async (c) => {
    const session = c.get("session");
    const ctx = portalActor(deps, c, session);
    requireManager(session, "revoke REST keys");
    const site = await siteForActor(ctx, c.get("form").id("site_id", { label: "Site", required: true })!);
    const raw = c.req.param("id");
    const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    // The key must belong to this site, which belongs to this company.
    const key = (await listRestKeys(deps, site.id)).find((k) => k.id === id);
    if (!key) throw new AppError("not_found", `No such key for ${site.name}.`);
    if (!key.revokedAt) await revokeRestKey(deps, id);
    return c.redirect(`${PATH}?site=${site.id}&revoked=1`, 303);
  });
}
