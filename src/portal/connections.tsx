/**
 * Settings → Connected apps: the OAuth connections a person has granted,
 * what each may do and where, its tool listing (changeable: every token of
 * the connection follows, src/portal/listing-picker.tsx), and a button to
 * disconnect (which revokes every token of that connection at once).
 */
import type { Hono } from "hono";
import type { Deps } from "../core/context";
import { AppError, isAppError } from "../core/errors";
import { disconnect, listConnections, setConnectionListing } from "../oauth/grants";
import { signedIn, type PortalEnv } from "./guard";
import { Csrf, DangerButton } from "../ui/forms";
import { ListingChooser, listingSummary, readListing } from "./listing-picker";
import { Layout, render } from "../ui/layout";
import { Notice } from "../ui/notice";
import { PageHeader } from "../ui/page-header";
import { DataTable, EmptyState } from "../ui/table";
import { when } from "../ui/format";

const PATH = "/settings/connections";

export function connectionRoutes(app: Hono<PortalEnv>, deps: Deps) {
  app.get(PATH, signedIn(deps), async (c) => {
    const session = c.get("session");
    const apps = await listConnections(deps, session.user.id);
    const companyName = new Map(session.companies.map((m) => [m.id, m.name]));
    return render(
      c,
      <Layout title="Connected apps" viewer={session} path={PATH}>
        <PageHeader
          title="Connected apps"
          lead="Applications you allowed to use Plinth on your behalf through the browser consent screen."
        />
        {c.req.query("disconnected") === "1" && <Notice kind="ok">Disconnected. Its tokens no longer work.</Notice>}
        {c.req.query("listed") === "1" && (
          <Notice kind="ok">Tool listing changed. It applies from the application's next request.</Notice>
        )}
        {apps.length === 0 ? (
          <EmptyState>No connected apps.</EmptyState>
        ) : (
          <DataTable
            columns={[
              "Application",
              "Scopes",
              "Tool listing",
              { label: "Companies", hideSm: true },
              { label: "Connected", hideSm: true },
              "Last used",
              "",
            ]}
          >
            {apps.map((a) => (
              <tr>
                <td>
                  {a.clientName ?? "Unnamed application"}
                  <div class="muted small">
                    <code>{a.clientId}</code>
                  </div>
                </td>
                <td class="small">{a.scopes.join(" ")}</td>
                <td class="small">
                  <span class="listing-summary">{listingSummary(a.listingMode, a.scopes)}</span>
                  <details>
                    <summary>Change</summary>
                    <form method="post" action={`${PATH}/${a.familyId}/listing`}>
                      <Csrf viewer={session} />
                      <ListingChooser scopes={a.scopes} mode={a.listingMode} id={`listing-${a.familyId}`} />
                      <button type="submit">Save listing</button>
                    </form>
                  </details>
                </td>
                <td class="hide-sm small">
                  {a.companyIds
                    .map((id) => companyName.get(id))
                    .filter(Boolean)
                    .join(", ") || <span class="muted">none you still belong to</span>}
                </td>
                <td class="hide-sm small">{when(a.connectedAt)}</td>
                <td class="small">{a.lastUsedAt ? when(a.lastUsedAt) : "never"}</td>
                <td>
                  <DangerButton viewer={session} action={`${PATH}/${a.familyId}/disconnect`} label="Disconnect" />
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Layout>,
    );
  });

  app.post(`${PATH}/:family/listing`, signedIn(deps), async (c) => {
    const family = c.req.param("family");
    let mode: string | null;
    try {
      mode = readListing(c.get("form"));
    } catch (e) {
      if (!isAppError(e) || e.code !== "validation") throw e;
      throw new AppError("validation", `Tool listing: ${e.message}`);
    }
    if (!/^[0-9a-f]{32}$/.test(family) || !(await setConnectionListing(deps, c.get("session").user.id, family, mode)))
      throw new AppError("not_found", "No such connection among yours.");
    return c.redirect(`${PATH}?listed=1`, 303);
  });

  app.post(`${PATH}/:family/disconnect`, signedIn(deps), async (c) => {
    const family = c.req.param("family");
    if (!/^[0-9a-f]{32}$/.test(family) || !(await disconnect(deps, c.get("session").user.id, family)))
      throw new AppError("not_found", "No such connection among yours.");
    return c.redirect(`${PATH}?disconnected=1`, 303);
  });
}
