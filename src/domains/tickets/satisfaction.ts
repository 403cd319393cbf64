/**
 * Satisfaction ratings (CSAT, issue 33): the first time a ticket is solved,
 * its requester is asked by email "How did we do?" with two links, good
 * and bad. One click records the answer; the page it opens offers an
 * optional comment. The answer is recorded once: the update that records
 * it only matches a survey not answered yet, so of any number of clicks at
 * once (both links, a mail scanner, a double click) exactly one is kept
 * and every other one is told, in words, that nothing changed. The comment
 * is kept once the same way.
 *
 * The links carry a sealed token (core/sealed.ts) naming company and survey:
 * it cannot be made or altered, and an unknown one is a plain 404. They do
 * not expire: a requester may answer weeks later. The survey credits the
 * agent the ticket was assigned to when it was solved; the report
 * (tickets_satisfaction_report) counts answers per agent in a period of
 * answer dates.
 *
 * Why GET records: "one click" is what the issue asks and what requesters
 * expect from a mail. A link scanner that follows links would answer for
 * them; the page says what was recorded, and a requester who meant the
 * other answer can still say so in the comment.
 */
import { and, asc, eq, gte, inArray, isNotNull, isNull, lt } from "drizzle-orm";
import { type Context, Hono } from "hono";
import type * as v from "valibot";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { invalid } from "../../core/errors";
import type { EventDef, EventRecord, Subscriber } from "../../core/events";
import { queueMail } from "../../core/mail";
import { escapeHtml, newNonce, publicPage, securityHeaders } from "../../core/public-page";
import { seal, unseal } from "../../core/sealed";
import { companies, users } from "../../core/tables";
import { ticketByNumber, ticketsRead } from "./access";
import { ticketStatusChanged } from "./events";
import type { satisfactionReportInput } from "./schemas";
import { ticketRatings, tickets } from "./tables";

export const RATING_PREFIX = "/ticket-rating";
const CONTEXT = "ticket-rating";
export const MAX_COMMENT = 2000;

type Data<E> = E extends EventDef<infer T> ? T : never;
type RatingRow = typeof ticketRatings.$inferSelect;

const threadId = (companyId: number, number: number) => `<ticket-${companyId}-${number}@plinth.invalid>`;

/** The two links of a survey: sealed over company and survey, so they can be neither made nor altered. */
export function ratingLinks(deps: Deps, r: Pick<RatingRow, "id" | "companyId">) {
  const token = seal(deps.config, `${r.companyId}.${r.id}`, CONTEXT);
  const base = `${deps.config.publicUrl.replace(/\/+$/, "")}${RATING_PREFIX}/${token}`;
  return { good: `${base}/good`, bad: `${base}/bad` };
}

/** Asks for a rating the first time a ticket is solved (a survey row exists from then on: never asked twice). */
async function askForRating(deps: Deps, e: EventRecord) {
  const d = e.data as Data<typeof ticketStatusChanged>;
  if (d.to !== "solved") return;
  const t = (
    await deps.db
      .select({ id: tickets.id })
      .from(tickets)
      .where(and(eq(tickets.companyId, e.companyId), eq(tickets.number, d.number)))
      .limit(1)
  )[0];
  if (!t) return;
  const row = (
    await deps.db
      .insert(ticketRatings)
      .values({ companyId: e.companyId, ticketId: t.id, agentId: d.assigneeUserId, askedAt: deps.clock.now() })
      .onConflictDoNothing()
      .returning()
  )[0];
  if (!row) return;
  const company =
    (await deps.db.select({ name: companies.name }).from(companies).where(eq(companies.id, e.companyId)))[0]?.name ??
    "Support";
  const links = ratingLinks(deps, row);
  const greeting = d.requesterName ? `Hello ${d.requesterName},\n\n` : "";
  await queueMail(deps.db, deps, {
    companyId: e.companyId,
    to: d.requesterEmail,
    subject: `[${company} #${d.number}] How did we do?`,
    text: `${greeting}Your request "${d.subject}" is solved. How did we do? One click answers:\n\nGood, I'm satisfied: ${links.good}\n\nBad, I'm not satisfied: ${links.bad}\n\n— ${company} support, ticket #${d.number}.`,
    headers: { "In-Reply-To": threadId(e.companyId, d.number), References: threadId(e.companyId, d.number) },
    tag: "ticket.satisfaction",
  });
}

export const satisfactionSurvey: Subscriber = {
  name: "tickets.satisfaction",
  types: [ticketStatusChanged.type],
  handle: askForRating,
};

/** The survey a token names, or null when it is altered or unknown. */
async function surveyOf(deps: Deps, token: string): Promise<RatingRow | null> {
  if (token.length > 300 || !/^[A-Za-z0-9._-]+$/.test(token)) return null;
  let plain: string;
  try {
    plain = unseal(deps.config, token, CONTEXT);
  } catch {
    return null;
  }
  const m = /^(\d+)\.(\d+)$/.exec(plain);
  if (!m) return null;
  return (
    (
      await deps.db
        .select()
        .from(ticketRatings)
        .where(and(eq(ticketRatings.id, Number(m[2])), eq(ticketRatings.companyId, Number(m[1]))))
        .limit(1)
    )[0] ?? null
  );
}

/** Records `rating` unless an answer is there already; returns whether this call recorded it, and the survey as it is now. */
export async function recordRating(deps: Deps, surveyId: number, rating: "good" | "bad") {
  const won = await deps.db
    .update(ticketRatings)
    .set({ rating, ratedAt: deps.clock.now() })
    .where(and(eq(ticketRatings.id, surveyId), isNull(ticketRatings.rating)))
    .returning();
  if (won[0]) return { recorded: true, row: won[0] };
  const row = (await deps.db.select().from(ticketRatings).where(eq(ticketRatings.id, surveyId)).limit(1))[0]!;
  return { recorded: false, row };
}

const CSS = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}
textarea{width:100%;box-sizing:border-box;font:inherit}button{font:inherit;padding:.4rem 1rem;margin-top:.5rem}.muted{color:#555}`;

const word = (r: "good" | "bad") => (r === "good" ? "Good, satisfied" : "Bad, not satisfied");

export function ratingRoutes(deps: Deps) {
  const app = new Hono();
  const page = (c: Context, status: number, title: string, body: string) => {
    const nonce = newNonce();
    securityHeaders(c, nonce);
    return c.html(publicPage({ title, nonce, css: CSS, body }), status as 200);
  };
  const unknown = (c: Context) =>
    page(c, 404, "Not found", "<h1>Link not recognised</h1><p>This rating link is unknown.</p>");
  const commentForm = (token: string) =>
    `<form method="post" action="${RATING_PREFIX}/${escapeHtml(token)}/comment"><label for="comment">Anything you want to add? (optional)</label><textarea id="comment" name="comment" rows="4" maxlength="${MAX_COMMENT}" required></textarea><button type="submit">Send comment</button></form>`;

  app.get("/:token/:rating", async (c) => {
    const rating = c.req.param("rating");
    if (rating !== "good" && rating !== "bad") return unknown(c);
    const s = await surveyOf(deps, c.req.param("token"));
    if (!s) return unknown(c);
    const r = await recordRating(deps, s.id, rating);
    const form = r.row.comment === null ? commentForm(c.req.param("token")) : "";
    if (r.recorded)
      return page(
        c,
        200,
        "Thank you",
        `<h1>Thank you</h1><p>We recorded your answer: <strong>${word(rating)}</strong>.</p>${form}`,
      );
    return page(
      c,
      200,
      "Already answered",
      `<h1>Already answered</h1><p>This ticket was rated <strong>${word(r.row.rating!)}</strong> on ${escapeHtml(iso(r.row.ratedAt)!.slice(0, 10))}; an answer is recorded once, so nothing changed.</p>${form}`,
    );
  });

  app.post("/:token/comment", async (c) => {
    const s = await surveyOf(deps, c.req.param("token"));
    if (!s) return unknown(c);
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const raw = typeof form.comment === "string" ? form.comment.trim() : "";
    if (!raw || raw.length > MAX_COMMENT)
      return page(
        c,
        400,
        "Comment not sent",
        `<h1>Comment not sent</h1><p>A comment is 1 to ${MAX_COMMENT} characters.</p>${commentForm(c.req.param("token"))}`,
      );
    if (s.rating === null)
      return page(c, 409, "Rate first", "<h1>Rate first</h1><p>Choose good or bad in the email first.</p>");
    const kept = await deps.db
      .update(ticketRatings)
      .set({ comment: raw })
      .where(and(eq(ticketRatings.id, s.id), isNull(ticketRatings.comment)))
      .returning({ id: ticketRatings.id });
    return kept[0]
      ? page(c, 200, "Thank you", "<h1>Thank you</h1><p>Your comment was added to your rating.</p>")
      : page(
          c,
          200,
          "Already commented",
          "<h1>Already commented</h1><p>A comment was sent before; nothing changed.</p>",
        );
  });
  return app;
}

/** Ticket `number`'s rating as the ticket page shows it (tenancy checked in the lookup); null before it is asked. */
export async function ticketRating(ctx: ActorContext, number: number) {
  ticketsRead(ctx);
  const t = await ticketByNumber(ctx.deps.db, ctx, number);
  return ratingOfTicket(ctx.deps.db, t.id);
}

async function ratingOfTicket(q: Pick<Db, "select">, ticketId: number) {
  const r = (await q.select().from(ticketRatings).where(eq(ticketRatings.ticketId, ticketId)).limit(1))[0];
  return r ? { rating: r.rating, ratedAt: iso(r.ratedAt), comment: r.comment, askedAt: iso(r.askedAt)! } : null;
}

/**
 * Answers per agent in [from, to) (answer dates, ISO; default the last 30
 * days): good, bad, and the score (good / answered, a percentage), plus
 * the surveys asked in the period that are not answered yet.
 */
export async function satisfactionReport(ctx: ActorContext, input: v.InferOutput<typeof satisfactionReportInput>) {
  ticketsRead(ctx);
  const db = ctx.deps.db;
  const to = input.to ? new Date(input.to) : ctx.deps.clock.now();
  const from = input.from ? new Date(input.from) : new Date(to.getTime() - 30 * 86_400_000);
  if (from.getTime() >= to.getTime()) throw invalid("from must be before to.", { path: "from" });
  const inPeriod = (col: typeof ticketRatings.ratedAt | typeof ticketRatings.askedAt) =>
    and(eq(ticketRatings.companyId, ctx.company.id), gte(col, from), lt(col, to));
  const answered = await db
    .select({ agentId: ticketRatings.agentId, rating: ticketRatings.rating })
    .from(ticketRatings)
    .where(and(inPeriod(ticketRatings.ratedAt), isNotNull(ticketRatings.rating)))
    .orderBy(asc(ticketRatings.id));
  const waiting = await db
    .select({ agentId: ticketRatings.agentId })
    .from(ticketRatings)
    .where(and(inPeriod(ticketRatings.askedAt), isNull(ticketRatings.rating)));
  const per = new Map<number | null, { good: number; bad: number; unanswered: number }>();
  const slot = (id: number | null) => {
    let s = per.get(id);
    if (!s) per.set(id, (s = { good: 0, bad: 0, unanswered: 0 }));
    return s;
  };
  for (const a of answered) slot(a.agentId)[a.rating === "good" ? "good" : "bad"]++;
  for (const w of waiting) slot(w.agentId).unanswered++;
  const ids = [...per.keys()].filter((k): k is number => k !== null);
  const people = ids.length
    ? await db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(inArray(users.id, ids))
    : [];
  const score = (g: number, b: number) => (g + b ? Math.round((1000 * g) / (g + b)) / 10 : null);
  const agents = [...per.entries()]
    .map(([id, s]) => ({
      agent: id === null ? null : (people.find((p) => p.id === id) ?? { id, name: null, email: null }),
      ...s,
      scorePercent: score(s.good, s.bad),
    }))
    .sort((a, b) => b.good + b.bad - (a.good + a.bad) || (a.agent?.id ?? 0) - (b.agent?.id ?? 0));
  const good = agents.reduce((n, a) => n + a.good, 0);
  const bad = agents.reduce((n, a) => n + a.bad, 0);
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    total: { good, bad, unanswered: agents.reduce((n, a) => n + a.unanswered, 0), scorePercent: score(good, bad) },
    agents,
  };
}
