/**
 * Surveys in the portal (issue 31, the surveys page set): the company's
 * surveys with their state and response counts, and one survey with a
 * summary per question — choices, ratings and scales as bar charts with
 * their figures, NPS as its score and the promoters / passives /
 * detractors split, text answers listed — its responses a page at a time,
 * and the CSV export.
 *
 * Every page reads and every form acts through the same verbs as the MCP
 * tools (listSurveys, getSurvey, summarizeResponses, listResponses,
 * exportResponses, closeSurvey, reopenSurvey), called as the signed-in
 * person (actorOf): the role, the surveys scopes and the company's tenancy
 * are checked where they are for an agent. Owners and admins get the close
 * / reopen form; viewers read (the export too: it is a read, as over MCP),
 * and a post of theirs is refused by the verbs' own check (403). A survey
 * id of another company is "not found" inside the lookup (404).
 *
 * The export is the export verb's CSV, read a page of EXPORT_MAX at a time
 * and joined under one header, so cells that a spreadsheet would run as a
 * formula are neutralised exactly as the verb does it. Everything a visitor
 * typed (text answers, "Other" texts) is escaped by the renderer; choice
 * labels in charts are data to Vega, which writes them as text.
 */
import type { Context, Hono } from "hono";
import type { ActorContext, Deps } from "../../core/context";
import { isAppError, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { StatusBadge, type Tone } from "../../ui/badge";
import { Chart, type RenderedChart, renderChart } from "../../ui/chart";
import { when } from "../../ui/format";
import { Csrf } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { Pager, pageNoOf } from "../../ui/pager";
import { actorOf, canManage, type PageEnv, viewerOf } from "../../ui/signed-in";
import { DataTable } from "../../ui/table";
import { answerText } from "./answers";
import { allQuestions, type Question } from "./definition";
import { EXPORT_MAX, exportResponses, listResponses, summarizeResponses } from "./responses";
import { closeSurvey, getSurvey, listSurveys, reopenSurvey } from "./surveys";

export const SURVEYS_PATH = "/surveys";
const PER_PAGE = 20;
const RESPONSES_PAGE = 20;
/** How many answers a response's row shows before "…" (the response's own page is over MCP). */
const ROW_ANSWERS = 4;
/** The largest export the page builds in one file; past it the file says so in its name and the page in words. */
const EXPORT_ROWS = 50_000;
/** A chart's series differ by fill and hue up to this many; a matrix with more columns is a table only. */
const MAX_SERIES = 4;

const surveyHref = (id: number) => `${SURVEYS_PATH}/${id}`;

/** A survey id from the path ("12"); anything else is a plain 404, never a lookup of text we cannot hold. */
function idOf(c: Context<PageEnv>): number {
  const raw = c.req.param("id") ?? "";
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(`Survey ${raw.slice(0, 20)} not found.`);
  return Number(raw);
}
const num = (n: number) => n.toLocaleString("en-US");
const plural = (n: number, one: string, many = `${one}s`) => `${num(n)} ${n === 1 ? one : many}`;

const STATE: Record<string, { text: string; tone: Tone }> = {
  pending: { text: "awaiting approval", tone: "warn" },
  open: { text: "open", tone: "ok" },
  closed: { text: "closed", tone: "neutral" },
};
const SurveyState = ({ status }: { status: string }) => {
  const s = STATE[status] ?? { text: status, tone: "neutral" as Tone };
  return <StatusBadge tone={s.tone}>{s.text}</StatusBadge>;
};

const NOTICES: Record<string, string> = {
  closed: "Survey closed: it takes no more responses.",
  reopened: "Survey reopened: it takes responses again.",
};

// ---------------------------------------------------------------------------
// The list

async function listPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const pageNo = pageNoOf(c);
  const list = await listSurveys(actor, { limit: PER_PAGE, offset: (pageNo - 1) * PER_PAGE });
  // The approval page of each survey waiting for a person (getSurvey reads its latest link, in the company).
  const approvals = new Map<number, number>();
  for (const s of list.items)
    if (s.status === "pending") {
      const a = (await getSurvey(actor, { id: s.id })).approval;
      if (a && a.status === "pending") approvals.set(s.id, a.id);
    }
  return render(
    c,
    <Layout title="Surveys" viewer={viewer} path={SURVEYS_PATH}>
      <PageHeader title={`Surveys of ${viewer.active!.name}`} lead={plural(list.total, "survey")} />
      <DataTable
        id="surveys"
        label="Surveys"
        columns={[
          "Survey",
          "State",
          "Finished responses",
          { label: "Closes", hideSm: true },
          { label: "Created", hideSm: true },
        ]}
        empty={
          list.items.length === 0 &&
          "No surveys yet. An agent drafts one with surveys_create; a person approves it before it opens."
        }
      >
        {list.items.map((s) => (
          <tr data-survey={s.id}>
            <td>
              <a href={surveyHref(s.id)}>{s.title}</a>
              {s.pendingChanges && <div class="muted small">changes awaiting approval</div>}
            </td>
            <td>
              <SurveyState status={s.status} />
              {approvals.has(s.id) && (
                <div class="small">
                  <a class="approval" href={`/approvals/${approvals.get(s.id)}`}>
                    Review the approval
                  </a>
                </div>
              )}
            </td>
            <td class="num">{num(s.responseCount)}</td>
            <td class="hide-sm small">{s.closesAt ? when(new Date(s.closesAt)) : "—"}</td>
            <td class="hide-sm small">{when(new Date(s.createdAt!))}</td>
          </tr>
        ))}
      </DataTable>
      <Pager
        pageNo={pageNo}
        pages={Math.max(1, Math.ceil(list.total / PER_PAGE))}
        href={(n) => (n > 1 ? `${SURVEYS_PATH}?page=${n}` : SURVEYS_PATH)}
      />
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// One survey: the summary per question, responses, export

type Summary = Awaited<ReturnType<typeof summarizeResponses>>;
type QSummary = Summary["questions"][number] & Record<string, any>;

const bars = (title: string, categories: string[], xLabel: string, series: { name: string; values: number[] }[]) =>
  renderChart({ kind: "bar", title, categories, xLabel, yLabel: "Responses", series });

/** The chart a question's summary is drawn as, or null when it reads better as figures or a list. */
async function chartOf(q: QSummary): Promise<RenderedChart | null> {
  if (q.answered === 0) return null;
  switch (q.type) {
    case "single_choice":
    case "multiple_choice":
      return bars(
        "Responses per choice",
        q.choices.map((x: { label: string }) => x.label),
        "Choice",
        [{ name: "Responses", values: q.choices.map((x: { count: number }) => x.count) }],
      );
    case "nps":
      return bars(
        "Detractors, passives and promoters",
        ["Detractors (0–6)", "Passives (7–8)", "Promoters (9–10)"],
        "Group",
        [{ name: "Responses", values: [q.nps.detractors, q.nps.passives, q.nps.promoters] }],
      );
    case "rating":
    case "scale":
      return bars(
        "Responses per value",
        q.distribution.map((d: { value: number }) => String(d.value)),
        "Value",
        [{ name: "Responses", values: q.distribution.map((d: { count: number }) => d.count) }],
      );
    case "matrix":
      if (q.rows[0]?.columns.length > MAX_SERIES) return null;
      return bars(
        "Responses per row and column",
        q.rows.map((r: { label: string }) => r.label),
        "Row",
        (q.rows[0]?.columns ?? []).map((col: { label: string }, i: number) => ({
          name: col.label,
          values: q.rows.map((r: { columns: { count: number }[] }) => r.columns[i]!.count),
        })),
      );
    default:
      return null;
  }
}

const pct = (x: number) => `${x.toLocaleString("en-US")} %`;

/** What a question's card says besides its chart: the figures, a table, or the latest answers. */
const QuestionBody = ({ q, chart }: { q: QSummary; chart: RenderedChart | null }) => {
  if (q.answered === 0) return <p class="muted">No answers yet.</p>;
  const texts = (items: { responseId: number; text: string }[], label: string) =>
    items.length > 0 && (
      <DataTable class="answers" label={label} columns={[label, { label: "Response", hideSm: true }]}>
        {items.map((t) => (
          <tr data-response={t.responseId}>
            <td class="prose">{t.text}</td>
            <td class="hide-sm small muted">#{t.responseId}</td>
          </tr>
        ))}
      </DataTable>
    );
  switch (q.type) {
    case "nps":
      return (
        <>
          <div class="stats nps">
            <p class="stat" data-figure="score">
              <span class="stat-n">{q.nps.score === null ? "—" : q.nps.score.toLocaleString("en-US")}</span>{" "}
              <span class="muted small">NPS (−100 to 100)</span>
            </p>
            {(["promoters", "passives", "detractors"] as const).map((k) => (
              <p class="stat" data-figure={k}>
                <span class="stat-n">{num(q.nps[k])}</span>{" "}
                <span class="muted small">
                  {k} · {pct(Math.round((q.nps[k] / q.answered) * 10000) / 100)}
                </span>
              </p>
            ))}
          </div>
          {chart && <Chart chart={chart} />}
          <p class="muted small">
            NPS is the share of promoters (9–10) minus the share of detractors (0–6) of those who answered; average{" "}
            {q.average ?? "—"}, median {q.median ?? "—"}.
          </p>
        </>
      );
    case "single_choice":
    case "multiple_choice":
      return (
        <>
          {chart && <Chart chart={chart} />}
          {q.type === "multiple_choice" && (
            <p class="muted small">People could pick more than one, so the shares add up to more than 100 %.</p>
          )}
          {texts(q.otherTexts ?? [], "“Other”, in their words")}
        </>
      );
    case "rating":
    case "scale":
      return (
        <>
          {chart && <Chart chart={chart} />}
          <p class="muted small">
            Average {q.average ?? "—"}, median {q.median ?? "—"}.
          </p>
        </>
      );
    case "number":
    case "date":
      return (
        <dl class="facts">
          {q.type === "number" ? (
            <>
              <dt>Average</dt>
              <dd>{q.average ?? "—"}</dd>
              <dt>Median</dt>
              <dd>{q.median ?? "—"}</dd>
              <dt>Lowest – highest</dt>
              <dd>
                {q.min ?? "—"} – {q.max ?? "—"}
              </dd>
            </>
          ) : (
            <>
              <dt>Earliest – latest</dt>
              <dd>
                {q.earliest ?? "—"} – {q.latest ?? "—"}
              </dd>
            </>
          )}
          <dt>Most common</dt>
          <dd>{q.mostCommon.map((m: { value: unknown; count: number }) => `${m.value} (${m.count})`).join(", ")}</dd>
        </dl>
      );
    case "matrix":
      return chart ? (
        <Chart chart={chart} />
      ) : (
        <DataTable columns={["Row", ...(q.rows[0]?.columns ?? []).map((col: { label: string }) => col.label)]}>
          {q.rows.map((r: { label: string; columns: { count: number }[] }) => (
            <tr>
              <td>{r.label}</td>
              {r.columns.map((col) => (
                <td class="num">{num(col.count)}</td>
              ))}
            </tr>
          ))}
        </DataTable>
      );
    case "ranking":
      return (
        <DataTable columns={["Choice", "Average position", "Ranked first"]}>
          {q.ranking.map((r: { label: string; averagePosition: number | null; firstPlace: number }) => (
            <tr>
              <td>{r.label}</td>
              <td class="num">{r.averagePosition ?? "—"}</td>
              <td class="num">{num(r.firstPlace)}</td>
            </tr>
          ))}
        </DataTable>
      );
    default:
      return texts(q.latest ?? [], "Latest answers") || <p class="muted">No answers yet.</p>;
  }
};

async function surveyPage(c: Context<PageEnv>, extra: { error?: string } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const id = idOf(c);
  const s = await getSurvey(actor, { id });
  const pageNo = pageNoOf(c);
  const [summary, responses] = await Promise.all([
    summarizeResponses(actor, { surveyId: id }),
    listResponses(actor, { surveyId: id, limit: RESPONSES_PAGE, offset: (pageNo - 1) * RESPONSES_PAGE }),
  ]);
  const questions = summary.questions as QSummary[];
  const charts = await Promise.all(questions.map(chartOf));
  const defQuestions = allQuestions(s.definition as never) as Question[];
  const manage = canManage(viewer);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const here = surveyHref(s.id);
  const pages = Math.max(1, Math.ceil(responses.total / RESPONSES_PAGE));
  const rowAnswers = (answers: Record<string, unknown>, other?: Record<string, string>) => {
    const parts = defQuestions
      .filter((q) => answers[q.id] !== undefined)
      .map((q) => `${q.title}: ${answerText(q, answers[q.id] as never, other?.[q.id])}`);
    return parts.length > ROW_ANSWERS ? [...parts.slice(0, ROW_ANSWERS), "…"] : parts;
  };
  return render(
    c,
    <Layout title={s.title} viewer={viewer} path={SURVEYS_PATH}>
      <p class="crumbs small">
        <a href={SURVEYS_PATH}>Surveys</a> / #{s.id}
      </p>
      <h1>{s.title}</h1>
      <p class="lead">
        <SurveyState status={s.status} />{" "}
        {s.acceptingResponses ? (
          <>
            taking responses at <a href={s.url}>{s.url}</a>
          </>
        ) : (
          "not taking responses"
        )}
      </p>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && <Notice kind="error">{extra.error}</Notice>}
      {s.status === "pending" && s.approval?.status === "pending" && (
        <Notice kind="warn">
          This survey waits for a person's approval before it opens.{" "}
          <a class="approval" href={`/approvals/${s.approval.id}`}>
            Review the approval
          </a>
        </Notice>
      )}
      <div class="stats" id="totals">
        <p class="stat" data-figure="responses">
          <span class="stat-n">{num(summary.responses)}</span> <span class="muted small">responses</span>
        </p>
        <p class="stat" data-figure="finished">
          <span class="stat-n">{num(summary.finished)}</span> <span class="muted small">finished</span>
        </p>
        <p class="stat" data-figure="completion">
          <span class="stat-n">{pct(summary.completionRate)}</span> <span class="muted small">completion</span>
        </p>
      </div>
      <div class="actions" id="survey-actions">
        {summary.responses > 0 && (
          <a class="button secondary" href={`${here}/export.csv`} download>
            Export responses (CSV)
          </a>
        )}
        {manage && s.status === "open" && (
          <form class="inline" method="post" action={`${here}/close`}>
            <Csrf viewer={viewer} />
            <button class="danger" type="submit">
              Close the survey
            </button>
          </form>
        )}
        {manage && s.status === "closed" && (
          <form class="inline" method="post" action={`${here}/reopen`}>
            <Csrf viewer={viewer} />
            <button type="submit">Reopen the survey</button>
          </form>
        )}
        {!manage && <span class="muted small">You can read this survey; owners and admins close and reopen it.</span>}
      </div>
      {"truncated" in summary && summary.truncated && <Notice kind="warn">{summary.note}</Notice>}
      <h2>Summary per question</h2>
      {questions.map((q, i) => (
        <section class="question" id={`q-${q.id}`} data-type={q.type} aria-labelledby={`h-q-${q.id}`}>
          <h3 id={`h-q-${q.id}`}>{q.title}</h3>
          <p class="muted small">
            {plural(q.answered, "answer")} of {num(q.seen)} who saw it
            {q.skipped > 0 && ` · ${num(q.skipped)} skipped`}
          </p>
          <QuestionBody q={q} chart={charts[i] ?? null} />
        </section>
      ))}
      <h2 id="h-responses">Responses</h2>
      <DataTable
        id="responses"
        label="Responses"
        columns={["Response", "Answers", { label: "Tags", hideSm: true }]}
        empty={responses.items.length === 0 && "No responses yet."}
        footer={<p class="muted small">{plural(responses.total, "response")}, newest first.</p>}
      >
        {responses.items.map((r) => (
          <tr data-response={r.id}>
            <td>
              <strong>#{r.id}</strong>{" "}
              <StatusBadge tone={r.finished ? "ok" : "neutral"}>{r.finished ? "finished" : "unfinished"}</StatusBadge>
              <div class="muted small">{when(new Date(r.createdAt!))}</div>
            </td>
            <td class="small">
              {rowAnswers(r.answers, r.otherTexts).map((line) => (
                <div class="answer">{line}</div>
              ))}
            </td>
            <td class="hide-sm">
              {r.tags.map((t) => (
                <span class="badge label">{t}</span>
              ))}
            </td>
          </tr>
        ))}
      </DataTable>
      <Pager
        pageNo={pageNo}
        pages={pages}
        href={(n) => (n > 1 ? `${here}?page=${n}#h-responses` : `${here}#h-responses`)}
      />
    </Layout>,
  );
}

/**
 * The CSV of every response, newest first: the export verb a page at a
 * time (its own formula neutralising, its own columns), joined under the
 * first page's header. A survey past EXPORT_ROWS gets its newest
 * EXPORT_ROWS and a file name that says "newest".
 */
async function exportCsv(c: Context<PageEnv>) {
  const actor = actorOf(c);
  const id = idOf(c);
  const s = await getSurvey(actor, { id });
  let csv = "";
  let header = "";
  let offset: number | null = 0;
  let rows = 0;
  let total = 0;
  while (offset !== null && rows < EXPORT_ROWS) {
    const part: Awaited<ReturnType<typeof exportResponses>> = await exportResponses(actor, {
      surveyId: id,
      limit: EXPORT_MAX,
      offset,
    });
    total = part.total;
    if (offset === 0) {
      const cut = part.csv.indexOf("\r\n");
      header = cut < 0 ? part.csv : part.csv.slice(0, cut + 2);
      csv = part.csv;
    } else csv += `\r\n${part.csv.startsWith(header) ? part.csv.slice(header.length) : part.csv}`;
    rows += part.rows;
    offset = part.nextOffset;
  }
  const base = s.slug.replace(/[^a-z0-9-]/gi, "-").slice(0, 60) || `survey-${s.id}`;
  const name = `${base}-responses${rows < total ? "-newest" : ""}.csv`;
  return new Response(csv, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

// ---------------------------------------------------------------------------
// Routes

export function surveyPages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(SURVEYS_PATH, listPage);
  app.get(`${SURVEYS_PATH}/:id`, (c) => surveyPage(c));
  app.get(`${SURVEYS_PATH}/:id/export.csv`, exportCsv);

  const act =
    (verb: (ctx: ActorContext, i: { id: number }) => Promise<unknown>, done: string) =>
    async (c: Context<PageEnv>): Promise<Response> => {
      // Who may act comes before which survey: a viewer is refused (403) whatever the path names.
      const actor = actorOf(c);
      authorize(actor, "surveys:write", { write: true });
      const id = idOf(c);
      try {
        await verb(actor, { id });
      } catch (e) {
        // A state the survey has left meanwhile (closed by its limit, reopened elsewhere): the page again, with the reason.
        if (!isAppError(e) || e.code !== "conflict") throw e;
        const page = await surveyPage(c, { error: e.message });
        return new Response(page.body, { status: 409, headers: page.headers });
      }
      return c.redirect(`${surveyHref(id)}?done=${done}`, 303);
    };
  app.post(`${SURVEYS_PATH}/:id/close`, act(closeSurvey, "closed"));
  app.post(`${SURVEYS_PATH}/:id/reopen`, act(reopenSurvey, "reopened"));
}
