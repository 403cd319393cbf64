/**
 * Per-question summaries over a set of responses (already filtered):
 * counts and percentages for choices, averages and distributions for
 * numbers, the NPS score, the latest text answers.
 *
 * Definitions (also in docs/surveys.md):
 *  - `seen`: responses whose path reached the question's page; `answered`:
 *    those with an answer; `skipped` = seen − answered;
 *  - percentages are of `answered` (for multiple choice they add up to more
 *    than 100), rounded to two decimals;
 *  - averages and medians to two decimals; NPS = % promoters (9–10) −
 *    % detractors (0–6), of those who answered, to two decimals;
 *  - ranking: the mean position of each choice (1 = first), lowest first.
 */
import type { AnswerValue, Definition, Question } from "./definition";
import { allQuestions } from "./definition";
import { choiceIds } from "./answers";

export interface SummaryRow {
  id: number;
  answers: Record<string, AnswerValue>;
  otherTexts: Record<string, string>;
  path: string[];
  finished: boolean;
  createdAt: Date;
}

const r2 = (x: number) => Math.round(x * 100) / 100;
const pct = (n: number, of: number) => (of === 0 ? 0 : r2((n / of) * 100));

function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return r2(s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2);
}

function numbers(values: AnswerValue[]) {
  const xs = values.filter((x): x is number => typeof x === "number");
  const sum = xs.reduce((a, b) => a + b, 0);
  return {
    average: xs.length ? r2(sum / xs.length) : null,
    median: median(xs),
    min: xs.length ? Math.min(...xs) : null,
    max: xs.length ? Math.max(...xs) : null,
    xs,
  };
}

const TEXT_SAMPLE = 20;

function summarizeQuestion(q: Question, pageId: string, rows: SummaryRow[]) {
  const seenRows = rows.filter((r) => r.path.includes(pageId));
  const answeredRows = seenRows.filter((r) => r.answers[q.id] !== undefined);
  const answered = answeredRows.length;
  const base = {
    id: q.id,
    type: q.type,
    title: q.title,
    seen: seenRows.length,
    answered,
    skipped: seenRows.length - answered,
  };
  const values = answeredRows.map((r) => r.answers[q.id]!);
  const label = (id: string) => (id === "other" ? "Other" : (q.choices?.find((c) => c.id === id)?.label ?? id));
  const latest = [...answeredRows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id);
  const otherTexts = () =>
    latest
      .filter((r) => r.otherTexts[q.id] !== undefined)
      .slice(0, TEXT_SAMPLE)
      .map((r) => ({ responseId: r.id, text: r.otherTexts[q.id]! }));
  switch (q.type) {
    case "single_choice":
    case "multiple_choice": {
      const counts = new Map(choiceIds(q).map((id) => [id, 0]));
      for (const v of values)
        for (const id of Array.isArray(v) ? v : [String(v)]) if (counts.has(id)) counts.set(id, counts.get(id)! + 1);
      return {
        ...base,
        choices: [...counts].map(([id, n]) => ({ id, label: label(id), count: n, percent: pct(n, answered) })),
        ...(q.allowOther ? { otherTexts: otherTexts() } : {}),
      };
    }
    case "rating":
    case "scale":
    case "nps": {
      const [lo, hi] =
        q.type === "rating" ? [1, q.scale!] : q.type === "nps" ? [0, 10] : [q.min as number, q.max as number];
      const n = numbers(values);
      const distribution: { value: number; count: number; percent: number }[] = [];
      for (let v = lo; v <= hi; v++) {
        const c = n.xs.filter((x) => x === v).length;
        distribution.push({ value: v, count: c, percent: pct(c, answered) });
      }
      const out = { ...base, average: n.average, median: n.median, min: n.min, max: n.max, distribution };
      if (q.type !== "nps") return out;
      const promoters = n.xs.filter((x) => x >= 9).length;
      const detractors = n.xs.filter((x) => x <= 6).length;
      const passives = answered - promoters - detractors;
      return {
        ...out,
        nps: {
          score: answered ? r2(((promoters - detractors) / answered) * 100) : null,
          promoters,
          passives,
          detractors,
        },
      };
    }
    case "number": {
      const n = numbers(values);
      const counts = new Map<number, number>();
      for (const x of n.xs) counts.set(x, (counts.get(x) ?? 0) + 1);
      const top = [...counts]
        .sort((a, b) => b[1] - a[1] || a[0] - b[0])
        .slice(0, 20)
        .map(([value, count]) => ({ value, count, percent: pct(count, answered) }));
      return {
        ...base,
        average: n.average,
        median: n.median,
        min: n.min,
        max: n.max,
        sum: r2(n.xs.reduce((a, b) => a + b, 0)),
        mostCommon: top,
      };
    }
    case "date": {
      const ds = values.filter((x): x is string => typeof x === "string").sort();
      const counts = new Map<string, number>();
      for (const d of ds) counts.set(d, (counts.get(d) ?? 0) + 1);
      const top = [...counts]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 20)
        .map(([value, count]) => ({ value, count }));
      return { ...base, earliest: ds[0] ?? null, latest: ds[ds.length - 1] ?? null, mostCommon: top };
    }
    case "matrix":
      return {
        ...base,
        rows: q.rows!.map((row) => {
          const picks = values
            .map((v) => (v as Record<string, string>)[row.id])
            .filter((x): x is string => typeof x === "string");
          return {
            id: row.id,
            label: row.label,
            answered: picks.length,
            columns: q.columns!.map((col) => {
              const c = picks.filter((x) => x === col.id).length;
              return { id: col.id, label: col.label, count: c, percent: pct(c, picks.length) };
            }),
          };
        }),
      };
    case "ranking": {
      const items = q.choices!.map((c) => {
        const positions = values
          .map((v) => (v as string[]).indexOf(c.id))
          .filter((i) => i >= 0)
          .map((i) => i + 1);
        return {
          id: c.id,
          label: c.label,
          averagePosition: positions.length ? r2(positions.reduce((a, b) => a + b, 0) / positions.length) : null,
          firstPlace: positions.filter((p) => p === 1).length,
        };
      });
      items.sort(
        (a, b) => (a.averagePosition ?? Infinity) - (b.averagePosition ?? Infinity) || a.id.localeCompare(b.id),
      );
      return { ...base, ranking: items };
    }
    default:
      // short_text, long_text, email: the latest answers.
      return {
        ...base,
        latest: latest.slice(0, TEXT_SAMPLE).map((r) => ({ responseId: r.id, text: String(r.answers[q.id]) })),
      };
  }
}

export function summarize(def: Definition, rows: SummaryRow[]) {
  const finished = rows.filter((r) => r.finished).length;
  const pageOf = new Map<string, string>();
  for (const p of def.pages) for (const q of p.questions) pageOf.set(q.id, p.id);
  return {
    responses: rows.length,
    finished,
    completionRate: pct(finished, rows.length),
    questions: allQuestions(def).map((q) => summarizeQuestion(q, pageOf.get(q.id)!, rows)),
  };
}
