/**
 * The approvals inbox: pending approval links of the active company, each
 * with its preview (summary, facts, what changes), and a page per link with
 * the full rendered proposal where owners and admins approve or reject.
 * Listing, previews and decisions all go through the approvals verbs, with
 * the signed-in person as the actor. Under the company's `person` policy the
 * person who asked does not decide their own request here either.
 *
 * Owners and admins also set here who may decide on the public approval
 * pages (the policy and the listed reviewers, reviewers.ts): a plain form,
 * no script, guarded like every portal form.
 */
import type { Hono } from "hono";
import type { Deps } from "../core/context";
import { AppError } from "../core/errors";
import { getApprovalSettings, MAX_REVIEWERS, settingsOf, updateApprovalSettings } from "../domains/approvals/reviewers";
import {
  decideApproval,
  getApproval,
  listApprovals,
  MEMBER_REFUSALS,
  previewCss,
  type ApprovalView,
} from "../domains/approvals/verbs";
import { canManage, type Viewer } from "../ui/signed-in";
import { portalActor, requireManager } from "./actor";
import { signedIn, type PortalEnv } from "./guard";
import { Csrf } from "../ui/forms";
import { Layout, render } from "../ui/layout";
import { Notice } from "../ui/notice";
import { PageHeader } from "../ui/page-header";
import { EmptyState } from "../ui/table";
import { when } from "../ui/format";
import { mapSeq } from "../core/maybe";

const PATH = "/approvals";
const PAGE_SIZE = 20;

type Detail = Awaited<ReturnType<typeof getApproval>>;

const Proposal = (p: { a: Detail }) =>
  p.a.proposal ? (
    <>
      <p>{p.a.proposal.summary}</p>
      {p.a.proposal.facts.length > 0 && (
        <table class="small">
          <tbody>
            {p.a.proposal.facts.map((f) => (
              <tr>
                <th scope="row">{f.label}</th>
                <td>{f.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {p.a.proposal.changes.length > 0 && (
        <div class="scroll">
          <table class="small">
            <thead>
              <tr>
                <th>Field</th>
                <th>Live now</th>
                <th>Proposed</th>
              </tr>
            </thead>
            <tbody>
              {p.a.proposal.changes.map((ch) => (
                <tr>
                  <th scope="row">{ch.field}</th>
                  <td>{ch.before ?? <span class="muted">(none)</span>}</td>
                  <td>{ch.after ?? <span class="muted">(none)</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  ) : (
    <p class="muted">The item this request was about no longer exists.</p>
  );

const Meta = (p: { a: ApprovalView }) => (
  <p class="muted small">
    {p.a.linkType === "pending_change" ? `Staged call ${p.a.tool ?? ""}` : p.a.entityType} · requested by{" "}
    {p.a.requestedBy.name ?? "unknown"}
    {p.a.credential.name ? ` via ${p.a.credential.name}` : ""} · {when(new Date(p.a.createdAt))} · expires{" "}
    {when(new Date(p.a.expiresAt))}
  </p>
);

/** Who may decide on the approval pages: the policy and the reviewer list, for owners and admins. */
const Settings = (p: { viewer: Viewer; policy: "person" | "link"; reviewers: string[]; saved: boolean }) => (
  <form class="card" method="post" action={`${PATH}/settings`}>
    <Csrf viewer={p.viewer} />
    <h2 id="who-decides">Who may decide on approval pages</h2>
    {p.saved && <Notice kind="ok">Saved.</Notice>}
    <p class="muted small">
      Agents get the approval link too, so holding it should not be enough. The preview stays visible to anyone with the
      link either way.
    </p>
    <label>
      <input type="radio" name="policy" value="person" checked={p.policy === "person"} /> A person: a signed-in owner or
      admin who did not ask for the change, or a reviewer listed below who enters a code sent to their address
      (recommended)
    </label>
    <label>
      <input type="radio" name="policy" value="link" checked={p.policy === "link"} /> Anyone with the link, including
      the agent that asked (owners and admins are notified of each such decision)
    </label>
    <label for="reviewers">Reviewers by email, one per line (no portal account needed; at most {MAX_REVIEWERS})</label>
    <textarea id="reviewers" name="reviewers" rows={4} maxlength={MAX_REVIEWERS * 255}>
      {p.reviewers.join("\n")}
    </textarea>
    <div class="actions">
      <button type="submit">Save</button>
    </div>
  </form>
);

export function approvalRoutes(app: Hono<PortalEnv>, deps: Deps) {
  const idParam = (raw: string) => {
    if (!/^\d{1,15}$/.test(raw)) throw new AppError("not_found", "No such approval.");
    return Number(raw);
  };

  app.get(PATH, signedIn(deps), async (c) => {
    const session = c.get("session");
    const ctx = portalActor(deps, c, session);
    const rawOffset = c.req.query("offset") ?? "0";
    const offset = /^\d{1,9}$/.test(rawOffset) ? Number(rawOffset) : 0;
    const list = await listApprovals(ctx, { status: "pending", limit: PAGE_SIZE, offset });
    const details = await mapSeq(list.items, async (a) => await getApproval(ctx, a.id));
    const settings = canManage(session) ? await getApprovalSettings(ctx) : null;
    return render(
      c,
      <Layout title="Approvals" viewer={session} path={PATH}>
        <PageHeader
          title="Approvals"
          lead={`Changes agents drafted or staged for ${session.active!.name}, waiting for a person. ${list.total} pending.`}
        />
        {details.length === 0 && <EmptyState>Nothing is waiting for approval.</EmptyState>}
        {details.map((a) => (
          <article class="card">
            <h2>
              <a href={`${PATH}/${a.id}`}>{a.proposal?.title ?? a.title ?? `Approval #${a.id}`}</a>
            </h2>
            <Meta a={a} />
            {a.lastError && <Notice kind="warn">Last attempt to approve failed: {a.lastError}</Notice>}
            <div class="preview">
              <Proposal a={a} />
            </div>
            <div class="actions">
              <a class="button secondary" href={`${PATH}/${a.id}`}>
                {canManage(session) ? "Review" : "View"}
              </a>
            </div>
          </article>
        ))}
        <div class="actions">
          {offset > 0 && (
            <a class="button secondary" href={`${PATH}?offset=${Math.max(0, offset - PAGE_SIZE)}`}>
              Newer
            </a>
          )}
          {list.nextOffset !== null && (
            <a class="button secondary" href={`${PATH}?offset=${list.nextOffset}`}>
              Older
            </a>
          )}
        </div>
        {settings && (
          <Settings
            viewer={session}
            policy={settings.policy}
            reviewers={settings.reviewers}
            saved={c.req.query("saved") === "1"}
          />
        )}
      </Layout>,
    );
  });

  app.get(`${PATH}/:id/preview.css`, signedIn(deps), async (c) => {
    const ctx = portalActor(deps, c, c.get("session"));
    const a = await getApproval(ctx, idParam(c.req.param("id")));
    c.header("Cache-Control", "private, max-age=300");
    c.header("X-Content-Type-Options", "nosniff");
    return c.body(await previewCss(deps, a.siteId), 200, { "Content-Type": "text/css; charset=utf-8" });
  });

  app.get(`${PATH}/:id`, signedIn(deps), async (c) => {
    const session = c.get("session");
    const ctx = portalActor(deps, c, session);
    const a = await getApproval(ctx, idParam(c.req.param("id")), { html: true });
    const outcome = c.req.query("outcome");
    const ownRequest =
      a.requestedBy.userId === session.user.id && (await settingsOf(deps.db, ctx.company.id)).policy === "person";
    return render(
      c,
      <Layout title={`Approval #${a.id}`} viewer={session} path={PATH}>
        <p>
          <a href={PATH}>← All approvals</a>
        </p>
        <h1>{a.proposal?.title ?? a.title ?? `Approval #${a.id}`}</h1>
        <Meta a={a} />
        {outcome === "approve" && <Notice kind="ok">Approved: the change is live.</Notice>}
        {outcome === "reject" && <Notice kind="ok">Rejected: nothing was published or changed.</Notice>}
        {a.status !== "pending" && (
          <Notice kind="info">
            Status: <strong>{a.status}</strong>
            {a.decidedBy ? ` · decided by ${a.decidedBy}` : ""}
            {a.decidedAt ? ` on ${when(new Date(a.decidedAt))}` : ""}
            {a.comment ? ` · “${a.comment}”` : ""}
          </Notice>
        )}
        {a.lastError && <Notice kind="warn">Last attempt to approve failed: {a.lastError}</Notice>}
        <link rel="stylesheet" href={`${PATH}/${a.id}/preview.css`} />
        {/* The approvals domain renders the fragment with every content string escaped (src/domains/approvals/preview.ts). */}
        <div class="preview card" dangerouslySetInnerHTML={{ __html: a.html ?? "" }} />
        {a.status === "pending" && ownRequest && <p class="muted small">{MEMBER_REFUSALS.requester}</p>}
        {a.status === "pending" &&
          !ownRequest &&
          (canManage(session) ? (
            <form class="card" method="post" action={`${PATH}/${a.id}/decide`}>
              <Csrf viewer={session} />
              <label for="comment">Comment (optional)</label>
              <input id="comment" type="text" name="comment" maxlength={2000} />
              <div class="actions">
                <button type="submit" name="decision" value="approve">
                  Approve
                </button>
                <button class="danger" type="submit" name="decision" value="reject">
                  Reject
                </button>
              </div>
            </form>
          ) : (
            <p class="muted small">Only owners and admins can approve or reject.</p>
          ))}
      </Layout>,
    );
  });

  app.post(`${PATH}/:id/decide`, signedIn(deps), async (c) => {
    const session = c.get("session");
    const ctx = portalActor(deps, c, session);
    requireManager(session, "approve or reject requests");
    const id = idParam(c.req.param("id"));
    const form = c.get("form");
    const decision = form.text("decision", { max: 10 });
    if (decision !== "approve" && decision !== "reject") throw new AppError("validation", "Choose Approve or Reject.");
    const comment = form.text("comment", { label: "Comment", max: 2000 }) || null;
    const outcome = await decideApproval(deps, { ctx, id }, decision, {
      comment,
      decidedBy: `${session.user.name ?? session.user.email} (member)`,
    });
    if (!outcome.ok) throw new AppError("conflict", outcome.message);
    return c.redirect(`${PATH}/${id}?outcome=${decision}`, 303);
  });

  app.post(`${PATH}/settings`, signedIn(deps), async (c) => {
    const session = c.get("session");
    const ctx = portalActor(deps, c, session);
    requireManager(session, "change who may decide approvals");
    const form = c.get("form");
    const policy = form.text("policy", { label: "Who may decide", max: 10, required: true });
    if (policy !== "person" && policy !== "link") throw new AppError("validation", "Choose who may decide.");
    const reviewers = form.text("reviewers", { label: "Reviewers", max: MAX_REVIEWERS * 255 }).split(/\r?\n|,/);
    await updateApprovalSettings(ctx, { policy, reviewers });
    return c.redirect(`${PATH}?saved=1#who-decides`, 303);
  });
}
