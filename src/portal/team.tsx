/**
 * Team: the active company's members and roles, and invitations. Everyone
 * sees the members (with title and local time) and may leave; owners and
 * admins invite people by email, resend or revoke invitations, change roles
 * and remove members. The verbs are the team domain's, the same the team
 * tools call. Removal takes effect on the member's very next request,
 * whatever credential they use.
 */
import type { Context, Hono } from "hono";
import type { ActorContext, Deps } from "../core/context";
import { AppError, isAppError } from "../core/errors";
import { ROLES } from "../core/roles";
import { inviteMember, listInvitations, resendInvitation, revokeInvitation } from "../domains/team/invitations";
import {
  changeRole,
  leaveTeam,
  listMembers,
  removeMember,
  type HandOver,
  type MemberItem,
} from "../domains/team/members";
import { canManage } from "../ui/signed-in";
import { portalActor } from "./actor";
import { signedIn, type PortalEnv } from "./guard";
import { Csrf, DangerButton, Field } from "../ui/forms";
import { Layout, render } from "../ui/layout";
import { Notice } from "../ui/notice";
import { when } from "../ui/format";
import type { Session } from "./session";
import { StatusBadge } from "../ui/badge";
import { PageHeader } from "../ui/page-header";
import { DataTable, EmptyState } from "../ui/table";

const PATH = "/team";
type Invitation = Awaited<ReturnType<typeof listInvitations>>["items"][number];

const TeamPage = (p: {
  session: Session;
  members: MemberItem[];
  total: number;
  invitations: Invitation[];
  error?: string;
  notice?: string;
  link?: string;
  form?: { email: string; role: string; message: string };
  /** A removal (or leave) refused for open work: who may take it over, and where the answer goes. */
  handOver?: { action: string; label: string; candidates: MemberItem[] };
}) => {
  const manage = canManage(p.session);
  const company = p.session.active!;
  return (
    <Layout title="Team" viewer={p.session} path={PATH}>
      <PageHeader
        title={`Team of ${company.name}`}
        lead="Owners and admins manage the team and can write; viewers can read."
      />
      {p.notice && <Notice kind="ok">{p.notice}</Notice>}
      {p.link && (
        <Notice kind="warn">
          This server sends no email (no SMTP server is configured), so pass this link on yourself:{" "}
          <code>{p.link}</code>
        </Notice>
      )}
      {p.error && <Notice kind="error">{p.error}</Notice>}
      {p.handOver && (
        <form class="card" method="post" action={p.handOver.action}>
          <Csrf viewer={p.session} />
          <input type="hidden" name="handover" value="1" />
          <label for="reassignTo">Hand the open work to</label>
          <select id="reassignTo" name="reassignTo">
            {p.handOver.candidates.map((m) => (
              <option value={String(m.userId)}>{m.name ? `${m.name} (${m.email})` : m.email}</option>
            ))}
            <option value="">Nobody: leave it unassigned</option>
          </select>{" "}
          <button class="danger" type="submit">
            {p.handOver.label}
          </button>
        </form>
      )}
      <DataTable
        columns={["Member", "Role", { label: "Local time", hideSm: true }, { label: "Since", hideSm: true }, ""]}
        footer={
          p.total > p.members.length && (
            <p class="muted small">
              Showing {p.members.length} of {p.total} members.
            </p>
          )
        }
      >
        {p.members.map((m) => (
          <tr>
            <td>
              {m.name ?? m.email}
              {m.userId === p.session.user.id && <StatusBadge>you</StatusBadge>}
              {(m.name || m.title) && (
                <div class="muted small">{[m.title, m.name ? m.email : null].filter(Boolean).join(" · ")}</div>
              )}
            </td>
            <td>
              {manage ? (
                <form class="inline switcher" method="post" action={`${PATH}/${m.userId}/role`}>
                  <Csrf viewer={p.session} />
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
                <StatusBadge>{m.role}</StatusBadge>
              )}
            </td>
            <td class="hide-sm small">
              {m.localTime ? (
                <>
                  {m.localTime} <span class="muted">{m.timeZone}</span>
                  {m.workingNow === false && <span class="muted"> · off</span>}
                </>
              ) : (
                "—"
              )}
            </td>
            <td class="hide-sm small">{when(new Date(m.joinedAt))}</td>
            <td>
              {m.userId === p.session.user.id ? (
                <DangerButton viewer={p.session} action={`${PATH}/leave`} label="Leave" />
              ) : (
                manage && <DangerButton viewer={p.session} action={`${PATH}/${m.userId}/remove`} label="Remove" />
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      <h2>Pending invitations</h2>
      {p.invitations.length === 0 ? (
        <EmptyState>No pending invitations.</EmptyState>
      ) : (
        <DataTable
          label="Pending invitations"
          columns={[
            "Email",
            "Role",
            { label: "Expires", hideSm: true },
            { label: "Invited by", hideSm: true },
            ...(manage ? [""] : []),
          ]}
        >
          {p.invitations.map((i) => (
            <tr>
              <td>{i.email}</td>
              <td>
                <StatusBadge>{i.role}</StatusBadge>
              </td>
              <td class="hide-sm small">{when(new Date(i.expiresAt))}</td>
              <td class="hide-sm small">{i.invitedBy ?? "—"}</td>
              {manage && (
                <td>
                  <form class="inline" method="post" action={`${PATH}/invitations/${i.id}/resend`}>
                    <Csrf viewer={p.session} />
                    <button class="secondary" type="submit">
                      Resend
                    </button>
                  </form>{" "}
                  <DangerButton viewer={p.session} action={`${PATH}/invitations/${i.id}/revoke`} label="Revoke" />
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      {manage && (
        <>
          <h2>Invite someone</h2>
          <form class="card" method="post" action={`${PATH}/invitations`}>
            <Csrf viewer={p.session} />
            <Field id="invite-email" label="Email">
              <input id="invite-email" type="email" name="email" maxlength={254} required value={p.form?.email ?? ""} />
            </Field>
            <Field id="invite-role" label="Role">
              <select id="invite-role" name="role">
                {ROLES.filter((r) => r !== "owner" || company.role === "owner").map((r) => (
                  <option value={r} selected={r === (p.form?.role || "viewer")}>
                    {r}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="invite-days" label="Link works for">
              <select id="invite-days" name="days">
                {[1, 3, 7, 14, 30].map((d) => (
                  <option value={String(d)} selected={d === 7}>
                    {d} day{d === 1 ? "" : "s"}
                  </option>
                ))}
              </select>
            </Field>
            <Field id="invite-message" label="Message (optional, quoted in the email)">
              <textarea id="invite-message" name="message" maxlength={1000} rows={3}>
                {p.form?.message ?? ""}
              </textarea>
            </Field>
            <div class="actions">
              <button type="submit">Send invitation</button>
            </div>
          </form>
        </>
      )}
    </Layout>
  );
};

const NOTICES: Record<string, string> = {
  joined: "Welcome to the team.",
  invited: "Invitation sent.",
  resent: "Invitation sent again with a new link; the old link no longer works.",
  revoked: "Invitation revoked.",
  role: "Role saved.",
  removed: "Member removed. Their keys and connected apps no longer reach this company.",
};

export function teamRoutes(app: Hono<PortalEnv>, deps: Deps) {
  const actor = (c: Context<PortalEnv>): ActorContext => portalActor(deps, c, c.get("session"));
  const page = async (
    c: Context<PortalEnv>,
    extra: {
      error?: string;
      notice?: string;
      link?: string;
      form?: { email: string; role: string; message: string };
      handOver?: { action: string; label: string; leaving: number };
    } = {},
  ) => {
    const ctx = actor(c);
    const members = await listMembers(ctx, { limit: 100, offset: 0 });
    const invitations = await listInvitations(ctx, { status: "pending", limit: 100, offset: 0 });
    const { handOver, ...rest } = extra;
    const candidates = handOver
      ? members.items.filter((m) => m.userId !== handOver.leaving && m.role !== "viewer")
      : [];
    return (
      <TeamPage
        session={c.get("session")}
        members={members.items}
        total={members.total}
        invitations={invitations.items}
        {...rest}
        handOver={handOver && { action: handOver.action, label: handOver.label, candidates }}
      />
    );
  };
  /** The hand-over the refusal's form sends back: someone, or nobody (force). None on the first click. */
  const handOverOf = (c: Context<PortalEnv>): HandOver => {
    const form = c.get("form");
    if (form.text("handover", { max: 1 }) !== "1") return {};
    const to = form.id("reassignTo", { label: "Hand the open work to" });
    return to === undefined ? { force: true } : { reassignTo: to };
  };
  const isOpenWork = (e: unknown) =>
    isAppError(e) &&
    e.code === "conflict" &&
    typeof (e.details as { openCards?: unknown } | undefined)?.openCards === "number";
  /** Rule violations re-show the page with the reason; anything else goes to the error page. */
  const attempt = async (
    c: Context<PortalEnv>,
    action: () => Promise<unknown>,
    done: string,
    form?: () => { email: string; role: string; message: string },
  ) => {
    try {
      const r = (await action()) as { acceptUrl?: string } | undefined;
      // Without SMTP the inviter gets the link to pass on; it is shown once, on this answer, never in a URL.
      if (r?.acceptUrl) return render(c, await page(c, { notice: NOTICES[done], link: r.acceptUrl }));
      return c.redirect(`${PATH}?done=${done}`, 303);
    } catch (e) {
      if (!isAppError(e) || !["validation", "conflict", "not_found", "forbidden"].includes(e.code)) throw e;
      const status = e.code === "forbidden" ? 403 : e.code === "conflict" ? 409 : e.code === "not_found" ? 404 : 400;
      return render(c, await page(c, { error: e.message, form: form?.() }), { status });
    }
  };

  app.get(PATH, signedIn(deps), async (c) => render(c, await page(c, { notice: NOTICES[c.req.query("done") ?? ""] })));

  app.post(`${PATH}/invitations`, signedIn(deps), async (c) => {
    const form = c.get("form");
    let entered = { email: "", role: "", message: "" };
    return await attempt(
      c,
      async () => {
        entered = {
          email: form.text("email", { label: "Email", max: 254, required: true }),
          role: form.text("role", { label: "Role", max: 20, required: true }),
          message: form.text("message", { label: "Message", max: 1000 }),
        };
        const days = form.id("days", { label: "Link works for" }) ?? 7;
        return await inviteMember(actor(c), {
          email: entered.email,
          role: entered.role,
          expiresInDays: days,
          message: entered.message || null,
        });
      },
      "invited",
      () => entered,
    );
  });

  app.post(`${PATH}/invitations/:id/resend`, signedIn(deps), async (c) =>
    attempt(c, async () => await resendInvitation(actor(c), idOf(c.req.param("id"))), "resent"),
  );
  app.post(`${PATH}/invitations/:id/revoke`, signedIn(deps), async (c) =>
    attempt(c, async () => await revokeInvitation(actor(c), idOf(c.req.param("id"))), "revoked"),
  );

  app.post(`${PATH}/leave`, signedIn(deps), async (c) => {
    const company = c.get("session").active?.name ?? "the company";
    try {
      await leaveTeam(actor(c), handOverOf(c));
    } catch (e) {
      if (!isAppError(e) || (e.code !== "conflict" && e.code !== "validation")) throw e;
      const handOver = isOpenWork(e)
        ? { action: `${PATH}/leave`, label: "Leave", leaving: c.get("session").user.id }
        : undefined;
      return render(c, await page(c, { error: e.message, handOver }), { status: e.code === "conflict" ? 409 : 400 });
    }
    return render(
      c,
      <Layout title="Left" viewer={null} path={PATH} narrow>
        <h1>You left {company}</h1>
        <p>Your keys and connected apps no longer reach it.</p>
        <p>
          <a href="/">Back to the portal</a>
        </p>
      </Layout>,
    );
  });

  app.post(`${PATH}/:userId/role`, signedIn(deps), async (c) => {
    const userId = idOf(c.req.param("userId"));
    return await attempt(
      c,
      async () =>
        await changeRole(actor(c), { userId }, c.get("form").text("role", { label: "Role", max: 20, required: true })),
      "role",
    );
  });

  app.post(`${PATH}/:userId/remove`, signedIn(deps), async (c) => {
    const userId = idOf(c.req.param("userId"));
    try {
      await removeMember(actor(c), { userId }, handOverOf(c));
    } catch (e) {
      // Open work: the same page, with the list and a choice of who takes it over.
      if (isOpenWork(e))
        return render(
          c,
          await page(c, {
            error: (e as Error).message,
            handOver: { action: `${PATH}/${userId}/remove`, label: "Remove", leaving: userId },
          }),
          { status: 409 },
        );
      return await attempt(c, async () => Promise.reject(e), "removed");
    }
    return c.redirect(`${PATH}?done=removed`, 303);
  });
}

/** Ids in paths: not a number is "not found", like an id of someone else's. */
function idOf(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw new AppError("not_found", "No such member or invitation.");
  return Number(raw);
}
