/**
 * Team: the active company's members and roles. Everyone sees the list;
 * owners and admins add people (who already have a Plinth account), change
 * roles and remove members. Removal takes effect on the member's very next
 * request, whatever credential they use.
 */
import type { Context, Hono } from "hono";
import type { Deps } from "../core/context";
import { AppError, isAppError } from "../core/errors";
import { ROLES } from "../domains/accounts/tables";
import { canManage } from "./actor";
import { signedIn, type PortalEnv } from "./guard";
import { Csrf, DangerButton, Layout, Notice, render, when } from "./layout";
import type { Session } from "./session";
import { addMemberByEmail, changeRole, listMembers, removeFromTeam, type Member } from "../domains/accounts/team";

const PATH = "/team";

const TeamPage = (p: { session: Session; members: Member[]; error?: string; notice?: string; email?: string }) => {
  const manage = canManage(p.session);
  const company = p.session.active!;
  return (
    <Layout title="Team" session={p.session} path={PATH}>
      <h1>Team of {company.name}</h1>
      <p class="lead">Owners and admins manage the team and can write; viewers can read.</p>
      {p.notice && <Notice kind="ok">{p.notice}</Notice>}
      {p.error && <Notice kind="error">{p.error}</Notice>}
      <div class="card scroll">
        <table>
          <thead>
            <tr>
              <th>Member</th>
              <th>Role</th>
              <th class="hide-sm">Since</th>
              {manage && <th></th>}
            </tr>
          </thead>
          <tbody>
            {p.members.map((m) => (
              <tr>
                <td>
                  {m.name ?? m.email}
                  {m.name && <div class="muted small">{m.email}</div>}
                  {m.userId === p.session.user.id && <span class="badge">you</span>}
                </td>
                <td>
                  {manage ? (
                    <form class="inline switcher" method="post" action={`${PATH}/${m.userId}/role`}>
                      <Csrf session={p.session} />
                      <select name="role" aria-label={`Role of ${m.email}`}>
                        {ROLES.map((r) => (
                          <option value={r} selected={r === m.role}>
                            {r}
                          </option>
                        ))}
                      </select>
                      <button class="secondary" type="submit">
                        Save
                      </button>
                    </form>
                  ) : (
                    <span class="badge">{m.role}</span>
                  )}
                </td>
                <td class="hide-sm small">{when(m.joinedAt)}</td>
                {manage && (
                  <td>
                    <DangerButton session={p.session} action={`${PATH}/${m.userId}/remove`} label="Remove" />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {manage && (
        <>
          <h2>Add a member</h2>
          <form class="card" method="post" action={PATH}>
            <Csrf session={p.session} />
            <label for="member-email">Email of their Plinth account</label>
            <input id="member-email" type="email" name="email" maxlength={254} required value={p.email ?? ""} />
            <label for="member-role">Role</label>
            <select id="member-role" name="role">
              {ROLES.map((r) => (
                <option value={r} selected={r === "viewer"}>
                  {r}
                </option>
              ))}
            </select>
            <div class="actions">
              <button type="submit">Add to {company.name}</button>
            </div>
          </form>
        </>
      )}
    </Layout>
  );
};

const NOTICES: Record<string, string> = {
  added: "Member added.",
  role: "Role saved.",
  removed: "Member removed. Their keys and connected apps no longer reach this company.",
};

export function teamRoutes(app: Hono<PortalEnv>, deps: Deps) {
  const active = (s: Session) => {
    if (!s.active) throw new AppError("not_found", "You do not belong to any company yet.");
    return s.active;
  };
  const page = async (s: Session, extra: { error?: string; notice?: string; email?: string } = {}) => (
    <TeamPage session={s} members={await listMembers(deps, active(s).id)} {...extra} />
  );
  const userIdParam = (raw: string) => {
    if (!/^\d{1,15}$/.test(raw)) throw new AppError("not_found", "No such member.");
    return Number(raw);
  };
  /** Rule violations re-show the page with the reason; anything else goes to the error page. */
  const attempt = async (c: Context<PortalEnv>, s: Session, action: () => Promise<void>, done: string, email = () => "") => {
    try {
      await action();
      return c.redirect(`${PATH}?done=${done}`, 303);
    } catch (e) {
      if (!isAppError(e) || !["validation", "conflict", "not_found", "forbidden"].includes(e.code)) throw e;
      const status = e.code === "forbidden" ? 403 : e.code === "conflict" ? 409 : e.code === "not_found" ? 404 : 400;
      return render(c, await page(s, { error: e.message, email: email() }), { status });
    }
  };

  app.get(PATH, signedIn(deps), async (c) => {
    const s = c.get("session");
    return render(c, await page(s, { notice: NOTICES[c.req.query("done") ?? ""] }));
  });

  app.post(PATH, signedIn(deps), async (c) => {
    const s = c.get("session");
    const form = c.get("form");
    let email = "";
    return await attempt(
          c,
          s,
          async () => {
            email = form.text("email", { label: "Email", max: 254, required: true });
            await addMemberByEmail(deps, active(s), email, form.text("role", { label: "Role", max: 20, required: true }));
          },
          "added",
          () => email,
        );
  });

  app.post(`${PATH}/:userId/role`, signedIn(deps), async (c) => {
    const s = c.get("session");
    const userId = userIdParam(c.req.param("userId"));
    return await attempt(c, s, async () => await changeRole(deps, active(s), userId, c.get("form").text("role", { label: "Role", max: 20, required: true })), "role");
  });

  app.post(`${PATH}/:userId/remove`, signedIn(deps), async (c) => {
    const s = c.get("session");
    const userId = userIdParam(c.req.param("userId"));
    return await attempt(c, s, async () => await removeFromTeam(deps, active(s), userId), "removed");
  });
}
