/** The overview: where a person lands after signing in. */
import type { Hono } from "hono";
import type { Deps } from "../core/context";
import { listMcpKeys } from "../domains/accounts/verbs";
import { countPending } from "../domains/approvals/verbs";
import { listConnections } from "../oauth/grants";
import { portalActor } from "./actor";
import { signedIn, type PortalEnv } from "./guard";
import { Layout, render } from "../ui/layout";
import { Notice } from "../ui/notice";
import { StatusBadge } from "../ui/badge";

export function dashboardRoutes(app: Hono<PortalEnv>, deps: Deps) {
  app.get("/", signedIn(deps), async (c) => {
    const session = c.get("session");
    const now = deps.clock.ms();
    const keys = (await listMcpKeys(deps, session.user.id)).filter(
      (k) => !k.revokedAt && (!k.expiresAt || k.expiresAt.getTime() > now),
    );
    const apps = await listConnections(deps, session.user.id);
    const pending = session.active ? await countPending(portalActor(deps, c, session)) : 0;
    return render(
      c,
      <Layout title="Overview" viewer={session} path="/">
        <h1>Hello{session.user.name ? `, ${session.user.name}` : ""}</h1>
        {!session.active && (
          <Notice kind="warn">
            You do not belong to any company yet. Ask an owner or admin to add you to their team.
          </Notice>
        )}
        {session.active && (
          <div class="card">
            <h2>{session.active.name}</h2>
            <p class="muted">
              Your role: <StatusBadge>{session.active.role}</StatusBadge>
            </p>
            <p>
              <a href="/approvals">
                {pending} pending approval{pending === 1 ? "" : "s"}
              </a>
            </p>
          </div>
        )}
        <div class="card">
          <p>
            <a href="/settings/api-keys">
              {keys.length} active API key{keys.length === 1 ? "" : "s"}
            </a>{" "}
            ·{" "}
            <a href="/settings/connections">
              {apps.length} connected app{apps.length === 1 ? "" : "s"}
            </a>
          </p>
          <p class="muted small">
            Connect Claude, MCP Inspector or any MCP client to <code>{deps.config.publicUrl}/api/mcp</code>: it will
            send you here to sign in and approve.
          </p>
        </div>
      </Layout>,
    );
  });
}
