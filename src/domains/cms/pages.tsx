/**
 * The CMS in the portal (issue 31): each site's posts and pages with their
 * status, the time a scheduled one goes live, what awaits approval (with a
 * link to the approval in the portal's Approvals inbox, where a person
 * decides it), and the live URL of what is published; filtered by status
 * and by type.
 *
 * Every page reads and every form acts through the same verbs as the MCP
 * tools (listSites, listPosts, unschedulePost; the approval a post waits
 * on is read as posts_get reads it), called as the signed-in person
 * (actorOf), so role, scope and tenancy are checked where they are for an
 * agent: a site or post of another company is "not found"
 * inside the lookup (404), and a viewer's post is refused by the verb's own
 * role check (403). Owners and admins may cancel a scheduled go-live (the
 * post goes back to a draft, as posts_unschedule does); approving stays on
 * the approval page, the one place decisions are made.
 *
 * The live URL is the site's primary domain with the path a renderer
 * conventionally gives the post: /{slug} for a page, /{type}/{slug} for the
 * other types (/blog/{slug}); the site's own renderer decides in the end,
 * so the link says where the post is expected to be, and a site with no
 * domain yet shows none.
 */
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { invalid, isAppError, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { approvalState, latestLinkFor } from "../approvals/links";
import { listSites } from "../sites/verbs";
import { StatusBadge, type Tone } from "../../ui/badge";
import { FilterSelect } from "../../ui/filters";
import { when } from "../../ui/format";
import { Csrf } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { Pager, pageNoOf } from "../../ui/pager";
import { actorOf, canManage, type PageEnv, type Viewer, viewerOf } from "../../ui/signed-in";
import { DataTable, EmptyState } from "../../ui/table";
import { listPosts } from "./posts";
import { unschedulePost } from "./schedule";
import { POST_STATUSES } from "./tables";

export const CMS_PATH = "/cms";
const PER_PAGE = 25;
/** How many sites the tabs list (a company with more pages through them by id in the URL). */
const MAX_SITES = 100;
const STATUSES = [...POST_STATUSES, "scheduled"] as const;
const TYPE_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;

type Actor = ReturnType<typeof actorOf>;
type Site = Awaited<ReturnType<typeof listSites>>["items"][number];
type PostItem = Awaited<ReturnType<typeof listPosts>>["items"][number];
interface Approval {
  id: number;
  status: string;
  expiresAt: string | null;
}

const siteHref = (id: number) => `${CMS_PATH}/sites/${id}`;

const STATUS_TONE: Record<string, Tone> = {
  draft: "neutral",
  pending: "warn",
  scheduled: "unread",
  published: "ok",
  rejected: "danger",
  archived: "neutral",
};
const STATUS_WORDS: Record<string, string> = {
  pending: "awaits approval",
};

/** The public address of a published post on the site's primary domain, or null without a domain. */
export function liveUrl(domain: string | null, p: { postType: string; slug: string }): string | null {
  if (!domain) return null;
  const path = p.postType === "page" ? `/${p.slug}` : `/${p.postType}/${p.slug}`;
  return `https://${domain}${path}`;
}

interface Filters {
  status: string;
  type: string;
}

/** Filters from the query string; a value the list does not know is a 400 naming it, never a 500. */
function filtersOf(c: Context<PageEnv>): Filters {
  const status = (c.req.query("status") ?? "").trim();
  const type = (c.req.query("type") ?? "").trim();
  if (status && !(STATUSES as readonly string[]).includes(status))
    throw invalid(`Status must be one of ${STATUSES.join(", ")}.`);
  if (type && !TYPE_RE.test(type)) throw invalid("Type must be a post type's slug, such as blog or page.");
  return { status, type };
}

function listHref(siteId: number, f: Filters, pageNo = 1): string {
  const p = new URLSearchParams();
  if (f.status) p.set("status", f.status);
  if (f.type) p.set("type", f.type);
  if (pageNo > 1) p.set("page", String(pageNo));
  const s = p.toString();
  return s ? `${siteHref(siteId)}?${s}` : siteHref(siteId);
}

/**
 * The approval each listed post waits on: its latest link, when still
 * pending (what posts_get answers as `approval`). Read with one small query
 * per post that waits, in the company, for posts the verb already listed
 * from a site it checked is the company's.
 */
async function approvalsOf(actor: Actor, items: PostItem[]): Promise<Map<number, Approval>> {
  const out = new Map<number, Approval>();
  const now = actor.deps.clock.now();
  for (const p of items) {
    if (p.status !== "pending" && !p.hasPendingRevision) continue;
    const a = approvalState(await latestLinkFor(actor.deps.db, actor.company.id, "post", p.id), now);
    if (a && a.status === "pending") out.set(p.id, a);
  }
  return out;
}

const NOTICES: Record<string, string> = {
  unscheduled: "Schedule cancelled: the post is a draft again, to be proposed anew.",
};

const UnscheduleForm = ({ viewer, siteId, id }: { viewer: Viewer; siteId: number; id: number }) => (
  <form class="inline" method="post" action={`${siteHref(siteId)}/posts/${id}/unschedule`}>
    <Csrf viewer={viewer} />
    <button class="secondary" type="submit">
      Cancel schedule
    </button>
  </form>
);

async function sitePage(
  c: Context<PageEnv>,
  chosen: number | null,
  extra: { error?: string; status?: 400 | 409 } = {},
) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const f = filtersOf(c);
  const pageNo = pageNoOf(c);
  const sites = (await listSites(actor, { limit: MAX_SITES, offset: 0 })).items;
  const header = (
    <PageHeader
      title={`Content of ${viewer.active!.name}`}
      lead="Posts and pages per site: what is live, what is scheduled, and what awaits a person's approval."
    />
  );
  if (chosen === null && sites.length === 0)
    return render(
      c,
      <Layout title="Content" viewer={viewer} path={CMS_PATH}>
        {header}
        <div class="card">
          <EmptyState>No sites yet. An owner adds one with the command line (plinth sites create).</EmptyState>
        </div>
      </Layout>,
    );
  const siteId = chosen ?? sites[0]!.id;
  // The verb looks the site up in the company: another company's site is a 404 from here.
  const list = await listPosts(actor, {
    siteId,
    ...(f.status ? { status: f.status } : {}),
    ...(f.type ? { postType: f.type } : {}),
    limit: PER_PAGE,
    offset: (pageNo - 1) * PER_PAGE,
  });
  const site: Site | undefined = sites.find((s) => s.id === siteId);
  const domain = site?.domain ?? null;
  const [approvals, waiting] = await Promise.all([
    approvalsOf(actor, list.items),
    listPosts(actor, { siteId, status: "pending", limit: 1, offset: 0 }),
  ]);
  const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
  const manage = canManage(viewer);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const filtered = !!(f.status || f.type);
  return render(
    c,
    <Layout title={site ? `${site.name} · Content` : "Content"} viewer={viewer} path={CMS_PATH}>
      {header}
      {sites.length > 1 && (
        <nav class="tabs" aria-label="Sites">
          {sites.map((s) => (
            <a href={siteHref(s.id)} aria-current={s.id === siteId ? "page" : undefined}>
              {s.name}
            </a>
          ))}
        </nav>
      )}
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && <Notice kind="error">{extra.error}</Notice>}
      <div class="stats">
        <p class="stat">
          <span class="stat-n">{site?.name ?? `Site ${siteId}`}</span>
          <span class="muted small">{domain ?? "no domain yet"}</span>
        </p>
        <p class="stat" id="awaiting">
          <span class="stat-n">{waiting.total}</span>
          <a class="small" href={listHref(siteId, { status: "pending", type: "" })}>
            await{waiting.total === 1 ? "s" : ""} approval
          </a>
        </p>
      </div>
      <form class="card grid-form" method="get" action={siteHref(siteId)} id="filters" aria-label="Filter posts">
        <FilterSelect
          name="status"
          label="Status"
          value={f.status}
          options={[["", "Any status"], ...STATUSES.map((s): [string, string] => [s, STATUS_WORDS[s] ?? s])]}
        />
        <FilterSelect
          name="type"
          label="Type"
          value={f.type}
          options={[
            ["", "Posts and pages"],
            ["blog", "Blog posts"],
            ["page", "Pages"],
            ...(f.type && f.type !== "blog" && f.type !== "page" ? [[f.type, f.type] as [string, string]] : []),
          ]}
        />
        <div class="actions wide-field">
          <button type="submit">Filter</button>
          {filtered && (
            <a class="button secondary" href={siteHref(siteId)}>
              Clear
            </a>
          )}
        </div>
      </form>
      <DataTable
        id="posts"
        label="Posts and pages"
        columns={["Title", "Status", { label: "Goes live / live since", hideSm: true }, "Where"]}
        empty={
          list.items.length === 0 &&
          (filtered ? "Nothing matches these filters." : "No posts yet. Agents draft them with posts_create.")
        }
      >
        {list.items.map((p) => {
          const a = approvals.get(p.id);
          const url = p.published && p.status === "published" ? liveUrl(domain, p) : null;
          return (
            <tr data-post={p.id} data-status={p.status}>
              <td>
                {p.title}
                <div class="muted small">
                  <span class="badge label">{p.postType}</span> /{p.slug}
                </div>
              </td>
              <td>
                <StatusBadge tone={STATUS_TONE[p.status] ?? "neutral"}>
                  {STATUS_WORDS[p.status] ?? p.status}
                </StatusBadge>
                {p.hasPendingRevision && p.status !== "pending" && (
                  <div class="muted small">a change awaits approval</div>
                )}
              </td>
              <td class="hide-sm small">
                {p.status === "scheduled"
                  ? `goes live ${when(p.publishedAt ? new Date(p.publishedAt) : null)}`
                  : p.status === "published"
                    ? when(p.publishedAt ? new Date(p.publishedAt) : null)
                    : ""}
              </td>
              <td class="where">
                {a && (
                  <div>
                    <a class="approval" href={`/approvals/${a.id}`}>
                      Approval →
                    </a>
                  </div>
                )}
                {url && (
                  <div>
                    <a class="live" href={url} rel="noreferrer">
                      Live page ↗
                    </a>
                  </div>
                )}
                {p.status === "published" && !url && <span class="muted small">no domain yet</span>}
                {p.status === "scheduled" && manage && <UnscheduleForm viewer={viewer} siteId={siteId} id={p.id} />}
              </td>
            </tr>
          );
        })}
      </DataTable>
      <Pager pageNo={pageNo} pages={pages} href={(n) => listHref(siteId, f, n)} />
    </Layout>,
    extra.error ? { status: extra.status ?? 400 } : {},
  );
}

/** A site id from the path; anything else is a plain 404, never a lookup of text we cannot hold. */
function idParam(c: Context<PageEnv>, name: string, what: string): number {
  const raw = c.req.param(name) ?? "";
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(`${what} ${raw.slice(0, 20)} not found.`);
  return Number(raw);
}

// ---------------------------------------------------------------------------
// Routes

export function cmsPages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(CMS_PATH, (c) => sitePage(c, null));
  app.get(`${CMS_PATH}/sites/:siteId`, (c) => sitePage(c, idParam(c, "siteId", "Site")));
  app.post(`${CMS_PATH}/sites/:siteId/posts/:id/unschedule`, async (c) => {
    const actor = actorOf(c);
    // The verb's role check first: a viewer is refused whatever the path names.
    authorize(actor, "sites:write", { write: true });
    const siteId = idParam(c, "siteId", "Site");
    const id = idParam(c, "id", "Post");
    try {
      const out = await unschedulePost(actor, { siteId, id });
      if ("message" in out && out.message) throw invalid(out.message as string);
      return c.redirect(`${siteHref(siteId)}?done=unscheduled`, 303);
    } catch (e) {
      if (!isAppError(e) || !["validation", "conflict"].includes(e.code)) throw e;
      return await sitePage(c, siteId, { error: e.message, status: e.code === "conflict" ? 409 : 400 });
    }
  });
}
