/**
 * The brain in the portal (issue 31): search over the knowledge base with
 * the results grouped by kind, one record with its relations as links (a
 * meeting with its decisions and the tasks its action items became, a
 * document, a person with what is assigned to them), and the review queue,
 * where those allowed approve or reject the writes held for review.
 *
 * Every page reads and every form acts through the same verbs as the MCP
 * tools (searchBrain, listRecords, getRecord, listReviews, getReview,
 * decideReview), called as the signed-in person (actorOf), so role, scope
 * and tenancy are checked where they are for an agent: a record or review
 * of another company is "not found" inside the lookup (404), and a viewer's
 * decision is refused by the verb's role check (403). The person who asked
 * for a change never decides it here: the verb refuses that for their agent
 * credentials, and this page refuses it for the person themself (the same
 * rule as the Approvals inbox), showing why instead of the forms.
 *
 * Nothing needs JavaScript: the search is a GET form, so a search is a URL.
 * Record text is shown as text (Hono's JSX escapes it; markdown is not
 * rendered), and the search's «marked» words become <mark> elements.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { forbidden, invalid, isAppError, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { StatusBadge, type Tone } from "../../ui/badge";
import { parsed } from "../../ui/form-data";
import { when } from "../../ui/format";
import { Csrf } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { Pager, pageNoOf } from "../../ui/pager";
import { actorOf, canManage, type PageEnv, type Viewer, viewerOf } from "../../ui/signed-in";
import { DataTable, EmptyState } from "../../ui/table";
import { KIND_LABEL } from "./access";
import { getRecord, listRecords } from "./records";
import { decideReview, getReview, listReviews } from "./review";
import { reviewApproveInput, reviewListInput, reviewRejectInput, searchInput } from "./schemas";
import { searchBrain } from "./search";
import { brainRecords, RECORD_KINDS, type RecordKind } from "./tables";

export const BRAIN_PATH = "/brain";
const REVIEWS_PATH = `${BRAIN_PATH}/reviews`;
const PER_PAGE = 20;
const REVIEWS_PER_PAGE = 10;
const MAX_REASON = 2000;

type Actor = ReturnType<typeof actorOf>;
type Review = Awaited<ReturnType<typeof getReview>>;
type SearchHit = Awaited<ReturnType<typeof searchBrain>>["items"][number];
type Relation = {
  id: number;
  type: string;
  direction: "out" | "in";
  record: { id: number; kind: string; title: string };
};
/** What getRecord answers (the record's fields spread into it), as this page reads it. */
interface RecordFull {
  id: number;
  kind: RecordKind;
  title: string;
  body: string;
  status?: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  createdBy: { userId: number; name: string } | null;
  updatedBy: { userId: number; name: string } | null;
  relations: Relation[];
  backlinks: { id: number; kind: string; title: string }[];
  [field: string]: unknown;
}

export const recordHref = (id: number) => `${BRAIN_PATH}/records/${id}`;

/** Plurals for the headings of the grouped results. */
const KIND_PLURAL: Record<RecordKind, string> = {
  note: "Notes",
  document: "Documents",
  meeting: "Meetings",
  task: "Tasks",
  person: "People",
  topic: "Topics",
  glossary: "Glossary terms",
  goal: "Goals",
  initiative: "Initiatives",
  playbook: "Playbooks",
  org_unit: "Org units",
};

const words = (s: string) => s.replace(/_/g, " ");
const STATUS_TONE: Record<string, Tone> = {
  open: "unread",
  in_progress: "warn",
  done: "ok",
  cancelled: "neutral",
  not_started: "neutral",
  on_track: "ok",
  at_risk: "warn",
  off_track: "danger",
  dropped: "neutral",
};
const REVIEW_TONE: Record<string, Tone> = {
  pending: "warn",
  approved: "ok",
  rejected: "danger",
  expired: "neutral",
  superseded: "neutral",
  withdrawn: "neutral",
};

/** An id from the path ("12"); anything else is a plain 404, never a lookup of text we cannot hold. */
function idOf(c: Context<PageEnv>, what: string): number {
  const raw = c.req.param("id") ?? "";
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(`${what} ${raw.slice(0, 20)} not found.`);
  return Number(raw);
}

/** A search snippet with its «marked» words as <mark>: split on the markers, so the text between stays text. */
const Snippet = ({ text }: { text: string }) => (
  <p class="small snippet">{text.split(/«|»/).map((part, i) => (i % 2 ? <mark>{part}</mark> : part))}</p>
);

const KindBadge = ({ kind }: { kind: string }) => (
  <span class="badge label">{KIND_LABEL[kind as RecordKind] ?? words(kind)}</span>
);

const RecordLink = ({ r }: { r: { id: number; title: string } }) => <a href={recordHref(r.id)}>{r.title}</a>;

// ---------------------------------------------------------------------------
// Search and recent records

interface SearchForm {
  q: string;
  kind: RecordKind | "";
}

function searchFormOf(c: Context<PageEnv>): SearchForm {
  const q = (c.req.query("q") ?? "").trim();
  const kind = (c.req.query("kind") ?? "").trim();
  if (q.length > 500) throw invalid("The search is at most 500 characters; search with the few words that matter.");
  if (kind && !(RECORD_KINDS as readonly string[]).includes(kind))
    throw invalid(`Kind must be one of ${RECORD_KINDS.join(", ")}.`);
  return { q, kind: kind as RecordKind | "" };
}

function searchHref(f: SearchForm, pageNo = 1): string {
  const p = new URLSearchParams();
  if (f.q) p.set("q", f.q);
  if (f.kind) p.set("kind", f.kind);
  if (pageNo > 1) p.set("page", String(pageNo));
  const s = p.toString();
  return s ? `${BRAIN_PATH}?${s}` : BRAIN_PATH;
}

/** The hits grouped by kind, the groups in the order of their best hit (the search ranks; the page only groups). */
function byKind(items: SearchHit[]): [RecordKind, SearchHit[]][] {
  const groups = new Map<RecordKind, SearchHit[]>();
  for (const h of items) {
    const k = h.kind as RecordKind;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(h);
  }
  return [...groups];
}

async function pendingReviews(actor: Actor): Promise<number> {
  return (await listReviews(actor, { status: "pending", limit: 1, offset: 0 })).total;
}

async function searchPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const f = searchFormOf(c);
  const pageNo = pageNoOf(c);
  const offset = (pageNo - 1) * PER_PAGE;
  const pending = await pendingReviews(actor);
  const form = (
    <form class="card grid-form" method="get" action={BRAIN_PATH} id="search" aria-label="Search">
      <div class="wide-field">
        <label for="q">Search the knowledge base</label>
        <input
          type="text"
          id="q"
          name="q"
          value={f.q}
          maxlength={500}
          placeholder='words, "a phrase", word*, a OR b, -word'
        />
      </div>
      <div>
        <label for="kind">Kind</label>
        <select id="kind" name="kind">
          <option value="">All kinds</option>
          {RECORD_KINDS.map((k) => (
            <option value={k} selected={f.kind === k}>
              {KIND_LABEL[k]}
            </option>
          ))}
        </select>
      </div>
      <div class="actions">
        <button type="submit">Search</button>
        {(f.q || f.kind) && (
          <a class="button secondary" href={BRAIN_PATH}>
            Clear
          </a>
        )}
      </div>
    </form>
  );
  const header = (
    <PageHeader
      title={`Knowledge base of ${viewer.active!.name}`}
      lead="Meetings, documents, people, tasks and notes your team and its agents keep."
    >
      <a class="button secondary" href={REVIEWS_PATH}>
        Review queue{pending ? ` (${pending} waiting)` : ""}
      </a>
    </PageHeader>
  );

  if (!f.q) {
    const list = await listRecords(actor, {
      ...(f.kind ? { kind: f.kind } : {}),
      sort: "updated",
      limit: PER_PAGE,
      offset,
    });
    const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
    return render(
      c,
      <Layout title="Knowledge base" viewer={viewer} path={BRAIN_PATH}>
        {header}
        {form}
        <h2>
          Recently changed{f.kind ? ` ${KIND_PLURAL[f.kind].toLowerCase()}` : ""}{" "}
          <span class="muted small">{list.total} in all</span>
        </h2>
        <DataTable
          id="records"
          label="Recently changed records"
          columns={["Record", "Kind", { label: "Status", hideSm: true }, { label: "Updated", hideSm: true }]}
          empty={list.items.length === 0 && "Nothing here yet. Agents add records with the brain tools."}
        >
          {list.items.map((r) => (
            <tr data-record={r.id}>
              <td>
                <RecordLink r={r} />
                {"person" in r && r.person && <div class="muted small">{r.person.title}</div>}
              </td>
              <td>
                <KindBadge kind={r.kind} />
              </td>
              <td class="hide-sm">
                {"status" in r && r.status ? (
                  <StatusBadge tone={STATUS_TONE[r.status] ?? "neutral"}>{words(r.status)}</StatusBadge>
                ) : (
                  ""
                )}
              </td>
              <td class="hide-sm small">{when(r.updatedAt ? new Date(r.updatedAt) : null)}</td>
            </tr>
          ))}
        </DataTable>
        <Pager pageNo={pageNo} pages={pages} href={(n) => searchHref(f, n)} />
      </Layout>,
    );
  }

  const input = parsed(
    searchInput,
    { query: f.q, ...(f.kind ? { kinds: [f.kind] } : {}), limit: PER_PAGE, offset },
    { query: "The search", kinds: "Kind" },
  );
  const r = await searchBrain(actor, input);
  const pages = Math.max(1, Math.ceil(r.total / PER_PAGE));
  const groups = byKind(r.items);
  return render(
    c,
    <Layout title={`${f.q} · Knowledge base`} viewer={viewer} path={BRAIN_PATH}>
      {header}
      {form}
      <p class="muted" id="result-count">
        {r.total} record{r.total === 1 ? "" : "s"} match{r.total === 1 ? "es" : ""}
        {"relaxed" in r && r.relaxed ? " some of the words (none had them all)" : ""}.
      </p>
      {"note" in r && r.note && <p class="muted small">{r.note}</p>}
      {groups.length === 0 && (
        <div class="card">
          <EmptyState>Nothing matches. Try fewer words, or a word* to match its beginning.</EmptyState>
        </div>
      )}
      {groups.map(([kind, hits]) => (
        <section class="card" aria-labelledby={`h-${kind}`} data-kind={kind}>
          <h2 id={`h-${kind}`}>
            {KIND_PLURAL[kind]} <span class="muted small">{hits.length}</span>
          </h2>
          <ul class="plain results">
            {hits.map((h) => (
              <li class="note" data-record={h.id}>
                <p class="note-title">
                  <RecordLink r={h} />
                </p>
                <Snippet text={h.snippet} />
                <p class="muted small">Updated {when(new Date(h.updatedAt))}</p>
              </li>
            ))}
          </ul>
        </section>
      ))}
      {"others" in r && r.others && r.others.length > 0 && (
        <section class="card" aria-labelledby="h-others" id="others">
          <h2 id="h-others">Elsewhere: CRM and projects</h2>
          <ul class="plain">
            {r.others.map((o) => (
              <li class="note">
                <p class="note-title">
                  <span class="badge">{`${o.source} ${o.type}`}</span> {o.title}
                </p>
                {o.detail && <p class="muted small">{o.detail}</p>}
              </li>
            ))}
          </ul>
        </section>
      )}
      <Pager pageNo={pageNo} pages={pages} href={(n) => searchHref(f, n)} />
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// One record

/** A meeting's action items with the state of the tasks they became, read in the company (tenancy inside the lookup). */
async function actionTasks(actor: Actor, ids: number[]) {
  if (!ids.length) return new Map<number, { status: string | null; due: string | null; personId: number | null }>();
  const rows = await actor.deps.db
    .select({
      id: brainRecords.id,
      status: brainRecords.status,
      due: brainRecords.dueDate,
      personId: brainRecords.personId,
    })
    .from(brainRecords)
    .where(and(eq(brainRecords.companyId, actor.company.id), inArray(brainRecords.id, ids)));
  return new Map(rows.map((r) => [r.id, r]));
}

/** Relations grouped by how they read from this record ("attendee", "action item", "works in"), each a list of links. */
function relationGroups(rel: Relation[]): [string, Relation["record"][]][] {
  const m = new Map<string, Relation["record"][]>();
  for (const r of rel) {
    const k = words(r.type);
    if (!m.has(k)) m.set(k, []);
    m.get(k)!.push(r.record);
  }
  return [...m];
}

const Fact = ({ label, children }: { label: string; children: unknown }) => (
  <>
    <dt>{label}</dt>
    <dd>{children as never}</dd>
  </>
);

async function recordPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const id = idOf(c, "Record");
  const r = (await getRecord(actor, { id })) as unknown as RecordFull;
  const reviews = await listReviews(actor, { status: "pending", recordId: r.id, limit: 5, offset: 0 });
  const s = (k: string) => (typeof r[k] === "string" && r[k] ? (r[k] as string) : null);
  const person = (k: "assignee" | "owner") => r[k] as { id: number; title: string } | null | undefined;
  const decisions = Array.isArray(r.decisions) ? (r.decisions as string[]) : [];
  const actions = Array.isArray(r.actionItems) ? (r.actionItems as { text: string; taskId?: number }[]) : [];
  const tasks = await actionTasks(
    actor,
    actions.map((a) => a.taskId).filter((x): x is number => typeof x === "number"),
  );
  const names = new Map(r.relations.map((x) => [x.record.id, x.record.title]));
  const assigned =
    r.kind === "person"
      ? await listRecords(actor, { person: r.id, sort: "due", limit: 50, offset: 0 })
      : { items: [], total: 0 };
  const steps = Array.isArray(r.steps) ? (r.steps as { title: string; detail?: string }[]) : [];
  const synonyms = Array.isArray(r.synonyms) ? (r.synonyms as string[]) : [];
  const crm = r.crmContact as { id?: number; name?: string | null; email?: string | null } | null | undefined;
  const relations = relationGroups(
    r.kind === "meeting" ? r.relations.filter((x) => x.type !== "action_item") : r.relations,
  );
  return render(
    c,
    <Layout title={r.title} viewer={viewer} path={BRAIN_PATH}>
      <p class="crumbs small">
        <a href={BRAIN_PATH}>Knowledge base</a> / {KIND_PLURAL[r.kind]}
      </p>
      <h1>{r.title}</h1>
      {reviews.total > 0 && (
        <Notice kind="warn">
          {reviews.total === 1 ? "A change to this record awaits" : `${reviews.total} changes to this record await`}{" "}
          review: <a href={REVIEWS_PATH}>open the review queue</a>.
        </Notice>
      )}
      <div class="card-layout">
        <div class="card-main">
          {(r.body || r.kind === "document" || r.kind === "note") && (
            <section class="card" aria-labelledby="h-body" id="body">
              <h2 id="h-body">{r.kind === "meeting" ? "Minutes" : r.kind === "glossary" ? "Definition" : "Text"}</h2>
              {r.body ? <p class="prose">{r.body}</p> : <p class="muted">No text.</p>}
            </section>
          )}
          {s("agenda") && (
            <section class="card" aria-labelledby="h-agenda">
              <h2 id="h-agenda">Agenda</h2>
              <p class="prose">{s("agenda")}</p>
            </section>
          )}
          {r.kind === "meeting" && (
            <section class="card" aria-labelledby="h-decisions" id="decisions">
              <h2 id="h-decisions">Decisions</h2>
              {decisions.length ? (
                <ol>
                  {decisions.map((d) => (
                    <li class="prose">{d}</li>
                  ))}
                </ol>
              ) : (
                <p class="muted">No decisions recorded.</p>
              )}
            </section>
          )}
          {r.kind === "meeting" && (
            <section class="card" aria-labelledby="h-tasks" id="tasks">
              <h2 id="h-tasks">Action items</h2>
              {actions.length ? (
                <ul class="plain">
                  {actions.map((a) => {
                    const t = a.taskId !== undefined ? tasks.get(a.taskId) : undefined;
                    return (
                      <li class="note" data-task={a.taskId ?? ""}>
                        <p class="note-title">
                          {a.taskId !== undefined && t ? (
                            <a href={recordHref(a.taskId)}>{a.text}</a>
                          ) : (
                            <span>{a.text}</span>
                          )}{" "}
                          {t?.status && (
                            <StatusBadge tone={STATUS_TONE[t.status] ?? "neutral"}>{words(t.status)}</StatusBadge>
                          )}
                        </p>
                        {t && (t.personId !== null || t.due) && (
                          <p class="muted small">
                            {t.personId !== null && (
                              <>
                                Assigned to{" "}
                                <a href={recordHref(t.personId)}>{names.get(t.personId) ?? `#${t.personId}`}</a>
                              </>
                            )}
                            {t.personId !== null && t.due && " · "}
                            {t.due && `due ${t.due}`}
                          </p>
                        )}
                      </li>
                    );
                  })}
                </ul>
              ) : (
                <p class="muted">No action items.</p>
              )}
            </section>
          )}
          {steps.length > 0 && (
            <section class="card" aria-labelledby="h-steps">
              <h2 id="h-steps">Steps</h2>
              <ol>
                {steps.map((st) => (
                  <li>
                    <strong>{st.title}</strong>
                    {st.detail && <p class="prose small">{st.detail}</p>}
                  </li>
                ))}
              </ol>
            </section>
          )}
          {r.kind === "person" && (
            <section class="card" aria-labelledby="h-assigned" id="assigned">
              <h2 id="h-assigned">
                Assigned <span class="muted small">{assigned.total}</span>
              </h2>
              {assigned.items.length ? (
                <ul class="plain">
                  {assigned.items.map((x) => (
                    <li class="note">
                      <p class="note-title">
                        <RecordLink r={x} /> <KindBadge kind={x.kind} />{" "}
                        {"status" in x && x.status && (
                          <StatusBadge tone={STATUS_TONE[x.status] ?? "neutral"}>{words(x.status)}</StatusBadge>
                        )}
                      </p>
                      {"due" in x && x.due && <p class="muted small">due {x.due}</p>}
                    </li>
                  ))}
                </ul>
              ) : (
                <p class="muted">Nothing assigned.</p>
              )}
            </section>
          )}
          <section class="card" aria-labelledby="h-related" id="related">
            <h2 id="h-related">Related</h2>
            {relations.length ? (
              <dl class="facts">
                {relations.map(([type, recs]) => (
                  <Fact label={type}>
                    <ul class="plain">
                      {recs.map((x) => (
                        <li>
                          <RecordLink r={x} /> <span class="muted small">{KIND_LABEL[x.kind as RecordKind]}</span>
                        </li>
                      ))}
                    </ul>
                  </Fact>
                ))}
              </dl>
            ) : (
              <p class="muted">No relations.</p>
            )}
            <h3 class="small">Mentioned in</h3>
            {r.backlinks.length ? (
              <ul class="plain" id="backlinks">
                {r.backlinks.map((b) => (
                  <li>
                    <RecordLink r={b} /> <span class="muted small">{KIND_LABEL[b.kind as RecordKind]}</span>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted small">No other record links here.</p>
            )}
          </section>
        </div>
        <aside class="card card-side" aria-label="Record details">
          <dl class="facts">
            <Fact label="Kind">
              <KindBadge kind={r.kind} />
            </Fact>
            {r.status && (
              <Fact label="Status">
                <StatusBadge tone={STATUS_TONE[r.status] ?? "neutral"}>{words(r.status)}</StatusBadge>
              </Fact>
            )}
            {s("at") && <Fact label="When">{when(new Date(s("at")!))}</Fact>}
            {person("assignee") && (
              <Fact label="Assignee">
                <RecordLink r={person("assignee")!} />
              </Fact>
            )}
            {person("owner") && (
              <Fact label="Owner">
                <RecordLink r={person("owner")!} />
              </Fact>
            )}
            {s("due") && <Fact label="Due">{s("due")}</Fact>}
            {s("targetDate") && <Fact label="Target">{s("targetDate")}</Fact>}
            {typeof r.progress === "number" && <Fact label="Progress">{`${r.progress} %`}</Fact>}
            {s("email") && <Fact label="Email">{s("email")}</Fact>}
            {s("jobTitle") && <Fact label="Title">{s("jobTitle")}</Fact>}
            {s("organization") && <Fact label="Organization">{s("organization")}</Fact>}
            {s("phone") && <Fact label="Phone">{s("phone")}</Fact>}
            {typeof r.internal === "boolean" && (
              <Fact label="Team">{r.internal ? "Inside the company" : "Outside the company"}</Fact>
            )}
            {crm?.id !== undefined && (
              <Fact label="CRM">
                <a href={`/crm/contacts/${crm.id}`}>{crm.name ?? crm.email ?? `Contact ${crm.id}`}</a>
              </Fact>
            )}
            {synonyms.length > 0 && <Fact label="Also called">{synonyms.join(", ")}</Fact>}
            <Fact label="Version">{String(r.version)}</Fact>
            <Fact label="Changed">
              <span class="small">
                {when(new Date(r.updatedAt))}
                {r.updatedBy && ` by ${r.updatedBy.name}`}
              </span>
            </Fact>
            <Fact label="Created">
              <span class="small">
                {when(new Date(r.createdAt))}
                {r.createdBy && ` by ${r.createdBy.name}`}
              </span>
            </Fact>
          </dl>
        </aside>
      </div>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// The review queue

const REVIEW_STATUSES = ["pending", "approved", "rejected", "expired", "superseded", "withdrawn"] as const;
const NOTICES: Record<string, string> = {
  approved: "Approved: the change is applied.",
  rejected: "Rejected: nothing changed.",
};
/** The same words as the Approvals inbox gives the person who asked. */
const OWN_REQUEST =
  "You asked for this change yourself, so another person decides it: another owner or admin of the company.";

function reviewStatusOf(c: Context<PageEnv>): string {
  const raw = (c.req.query("status") ?? "pending").trim();
  if (raw !== "any" && !(REVIEW_STATUSES as readonly string[]).includes(raw))
    throw invalid(`Status must be one of any, ${REVIEW_STATUSES.join(", ")}.`);
  return raw;
}

const reviewsHref = (status: string, pageNo = 1) => {
  const p = new URLSearchParams();
  if (status !== "pending") p.set("status", status);
  if (pageNo > 1) p.set("page", String(pageNo));
  const q = p.toString();
  return q ? `${REVIEWS_PATH}?${q}` : REVIEWS_PATH;
};

/** What a held write would do, as rows "field: now → proposed", the body as a line diff. */
const Changes = ({ rv }: { rv: Review }) => {
  // The body is shown as its diff below; the table holds the other fields, and is left out when there are none.
  const fields = rv.changes.filter((ch) => ch.field !== "body");
  return (
    <>
      {"proposal" in rv && rv.proposal && (
        <p>
          <strong>Proposed:</strong> {rv.proposal}.
        </p>
      )}
      {fields.length > 0 && (
        <div class="scroll">
          <table aria-label="Proposed changes">
            <thead>
              <tr>
                <th>Field</th>
                <th>Now</th>
                <th>Proposed</th>
              </tr>
            </thead>
            <tbody>
              {fields.map((ch) => (
                <tr>
                  <th scope="row">{words(ch.field)}</th>
                  <td class="prose small">{ch.current ?? "—"}</td>
                  <td class="prose small">
                    {ch.proposed ?? "—"}
                    {ch.changedSinceRequest && <div class="muted">changed since it was asked</div>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {"bodyDiff" in rv && rv.bodyDiff && (
        <pre tabindex={0} class="preview prose small">
          {rv.bodyDiff}
        </pre>
      )}
    </>
  );
};

const DecideForms = ({ viewer, rv, errors }: { viewer: Viewer; rv: Review; errors: Record<string, string> }) => (
  <div class="decide grid-form">
    <form method="post" action={`${REVIEWS_PATH}/${rv.id}/approve`} class="approve">
      <Csrf viewer={viewer} />
      {errors.approve && <Notice kind="error">{errors.approve}</Notice>}
      <label for={`comment-${rv.id}`}>Comment (optional)</label>
      <input type="text" id={`comment-${rv.id}`} name="comment" maxlength={MAX_REASON} />
      <div class="actions">
        <button type="submit">Approve</button>
      </div>
    </form>
    <form method="post" action={`${REVIEWS_PATH}/${rv.id}/reject`} class="reject">
      <Csrf viewer={viewer} />
      {errors.reject && <Notice kind="error">{errors.reject}</Notice>}
      <label for={`reason-${rv.id}`}>Reason to reject</label>
      <input type="text" id={`reason-${rv.id}`} name="reason" maxlength={MAX_REASON} required />
      <div class="actions">
        <button class="danger" type="submit">
          Reject
        </button>
      </div>
    </form>
  </div>
);

async function reviewsPage(c: Context<PageEnv>, extra: { id?: number; form?: string; error?: string } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const status = extra.id !== undefined ? "pending" : reviewStatusOf(c);
  const pageNo = extra.id !== undefined ? 1 : pageNoOf(c);
  const input = parsed(
    reviewListInput,
    {
      ...(status !== "any" ? { status } : {}),
      limit: REVIEWS_PER_PAGE,
      offset: (pageNo - 1) * REVIEWS_PER_PAGE,
    },
    { status: "Status" },
  );
  const list = await listReviews(actor, input);
  const details: Review[] = [];
  for (const it of list.items) details.push(await getReview(actor, { id: it.id }));
  // A refused decision re-shows its review first, even when the list has moved on.
  if (extra.id !== undefined && !details.some((d) => d.id === extra.id))
    details.unshift(await getReview(actor, { id: extra.id }));
  const pages = Math.max(1, Math.ceil(list.total / REVIEWS_PER_PAGE));
  const manage = canManage(viewer);
  const notice = NOTICES[c.req.query("done") ?? ""];
  return render(
    c,
    <Layout title="Review queue" viewer={viewer} path={BRAIN_PATH}>
      <p class="crumbs small">
        <a href={BRAIN_PATH}>Knowledge base</a> / Reviews
      </p>
      <PageHeader
        title="Review queue"
        lead="Writes to the knowledge base held for a person to decide: deleting a document, changing an owner, merging people, and every write of an agent set to review."
      />
      {notice && <Notice kind="ok">{notice}</Notice>}
      {!manage && <Notice>You can read the queue; owners and admins approve or reject.</Notice>}
      <nav class="tabs" aria-label="Review status">
        {["pending", "approved", "rejected", "expired", "any"].map((s) => (
          <a href={reviewsHref(s)} aria-current={s === status ? "page" : undefined}>
            {s === "any" ? "All" : s[0]!.toUpperCase() + s.slice(1)}
          </a>
        ))}
      </nav>
      {details.length === 0 && (
        <div class="card">
          <EmptyState>{status === "pending" ? "Nothing awaits review." : "No reviews here."}</EmptyState>
        </div>
      )}
      {details.map((rv) => {
        const own = rv.requestedBy.userId === viewer.user.id;
        const errs =
          extra.id === rv.id && extra.error ? { [extra.form === "reject" ? "reject" : "approve"]: extra.error } : {};
        const rec = rv.record;
        return (
          <article class="card" id={`review-${rv.id}`} data-review={rv.id} aria-labelledby={`h-review-${rv.id}`}>
            <h2 id={`h-review-${rv.id}`}>
              {rv.title ?? `Review ${rv.id}`}{" "}
              <StatusBadge tone={REVIEW_TONE[rv.status] ?? "neutral"}>{rv.status}</StatusBadge>
            </h2>
            <p class="muted small">
              Asked by {rv.requestedBy.name ?? "someone no longer here"}
              {rv.credential.name && ` through ${rv.credential.name}`} · {when(new Date(rv.createdAt))}
              {rv.status === "pending" && ` · expires ${when(new Date(rv.expiresAt))}`}
            </p>
            {rec && (
              <p class="small">
                Record:{" "}
                {"deleted" in rec ? (
                  <span class="muted">#{rec.id}, deleted</span>
                ) : (
                  <>
                    <a href={recordHref(rec.id)}>{rec.title}</a> <KindBadge kind={rec.kind} />
                  </>
                )}
              </p>
            )}
            {rv.movedOn && <Notice kind="warn">The record changed since this was asked.</Notice>}
            {rv.lastError && <Notice kind="error">The last attempt to apply it failed: {rv.lastError}</Notice>}
            <Changes rv={rv} />
            {rv.status !== "pending" && (rv.decidedBy || rv.comment) && (
              <p class="small">
                Decided{rv.decidedBy && ` by ${rv.decidedBy}`}
                {rv.decidedAt && ` · ${when(new Date(rv.decidedAt))}`}
                {rv.comment && (
                  <>
                    {" "}
                    · <q>{rv.comment}</q>
                  </>
                )}
              </p>
            )}
            {rv.status === "pending" && manage && own && <Notice>{OWN_REQUEST}</Notice>}
            {rv.status === "pending" && manage && !own && <DecideForms viewer={viewer} rv={rv} errors={errs} />}
          </article>
        );
      })}
      <Pager pageNo={pageNo} pages={pages} href={(n) => reviewsHref(status, n)} />
    </Layout>,
    extra.error ? { status: extra.form === "conflict" ? 409 : 400 } : {},
  );
}

/**
 * Decides a review as the signed-in person: the verb's role check first (a
 * viewer is refused whatever the form holds), the lookup in the company
 * (404 otherwise), then the rule that the person who asked never decides.
 * A refusal the person can act on (no reason, the record moved on) re-shows
 * the queue with it beside the review.
 */
async function decide(c: Context<PageEnv>, decision: "approve" | "reject") {
  const actor = actorOf(c);
  authorize(actor, "brain:approve", { write: true });
  const id = idOf(c, "Review");
  const rv = await getReview(actor, { id });
  if (rv.requestedBy.userId === actor.principal.userId) throw forbidden(OWN_REQUEST);
  const f = c.get("form");
  try {
    const comment = decision === "approve" ? f.text("comment", { label: "Comment", max: MAX_REASON }) : "";
    const input =
      decision === "approve"
        ? parsed(reviewApproveInput, { id, ...(comment ? { comment } : {}) }, { comment: "Comment" })
        : parsed(
            reviewRejectInput,
            { id, reason: f.text("reason", { label: "Reason", max: MAX_REASON, required: true }) },
            { reason: "Reason" },
          );
    const out = await decideReview(actor, input, decision);
    if (!out.ok) return await reviewsPage(c, { id, form: "conflict", error: out.message });
    return c.redirect(`${REVIEWS_PATH}?done=${decision === "approve" ? "approved" : "rejected"}`, 303);
  } catch (e) {
    if (!isAppError(e) || e.code !== "validation") throw e;
    return await reviewsPage(c, { id, form: decision, error: e.message });
  }
}

// ---------------------------------------------------------------------------
// Routes

export function brainPages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(BRAIN_PATH, searchPage);
  app.get(REVIEWS_PATH, (c) => reviewsPage(c));
  app.get(`${BRAIN_PATH}/records/:id`, recordPage);
  app.post(`${REVIEWS_PATH}/:id/approve`, (c) => decide(c, "approve"));
  app.post(`${REVIEWS_PATH}/:id/reject`, (c) => decide(c, "reject"));
}
