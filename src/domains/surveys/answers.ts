/**
 * Reading a visitor's answers from a submitted page, on the server: every
 * value a form field can carry is a string, and every one is checked
 * against its question (type, range, length, choices) before anything is
 * stored. Only the fields of the page's own questions are read, so a forged
 * field name (another question, a made-up id) is never looked at.
 *
 * Field names: `q.<id>` (repeated for multiple choice), `q.<id>.other` (the
 * text beside "Other"), `q.<id>.<rowId>` (a matrix row's column),
 * `q.<id>.<choiceId>` (a ranking position).
 */
import type { AnswerValue, Page, Question } from "./definition";
import { isDate } from "./definition";
import type { UiKey } from "./ui-text";

export interface FieldError {
  key: UiKey;
  params?: Record<string, string | number>;
}

export interface PageAnswers {
  answers: Record<string, AnswerValue>;
  other: Record<string, string>;
  errors: Record<string, FieldError>;
}

/** Text as stored: line ends unified, control characters removed (PostgreSQL cannot hold NUL; none belong in an answer). */
export function cleanText(s: string, multiline: boolean): string {
  let t = s.replace(/\r\n?/g, "\n");
  t = multiline ? t.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "") : t.replace(/[\u0000-\u001f\u007f]/g, " ");
  return t.trim();
}

const EMAIL_RE = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:".]{2,}$/;
export const isEmail = (s: string) => s.length <= 254 && EMAIL_RE.test(s);

/** "3,5" is read as 3.5 (how many visitors write decimals); anything else Number() does not read is no number. */
function readNumber(s: string): number | null {
  const t = s.trim();
  if (t === "") return null;
  const dotted = /^-?\d+,\d+$/.test(t) ? t.replace(",", ".") : t;
  if (!/^-?(?:\d+\.?\d*|\.\d+)(?:e-?\d+)?$/i.test(dotted)) return NaN;
  const n = Number(dotted);
  return Number.isFinite(n) ? n : NaN;
}

function readInt(s: string, lo: number, hi: number): number | null | "bad" {
  const t = s.trim();
  if (t === "") return null;
  if (!/^\d{1,3}$/.test(t)) return "bad";
  const n = Number(t);
  return n >= lo && n <= hi ? n : "bad";
}

/** The choice ids a question accepts. */
export function choiceIds(q: Question): string[] {
  return [...(q.choices ?? []).map((c) => c.id), ...(q.allowOther ? ["other"] : [])];
}

function readQuestion(q: Question, form: URLSearchParams, out: PageAnswers): void {
  const name = `q.${q.id}`;
  const one = (form.get(name) ?? "").slice(0, 100_000);
  const err = (key: UiKey, params?: FieldError["params"]) => {
    out.errors[q.id] = params ? { key, params } : { key };
  };
  const set = (v: AnswerValue | null) => {
    if (v === null) {
      if (q.required)
        err(
          q.type === "single_choice" || q.type === "rating" || q.type === "nps" || q.type === "scale"
            ? "errChoose"
            : "errRequired",
        );
      return;
    }
    out.answers[q.id] = v;
  };
  switch (q.type) {
    case "short_text":
    case "long_text": {
      const t = cleanText(one, q.type === "long_text");
      if (t === "") return set(null);
      const max = typeof q.max === "number" ? q.max : 500;
      if (t.length > max) return err("errTooLong", { max });
      if (typeof q.min === "number" && t.length < q.min) return err("errTooShort", { min: q.min });
      return set(t);
    }
    case "email": {
      const t = cleanText(one, false);
      if (t === "") return set(null);
      if (!isEmail(t)) return err("errEmail");
      return set(t);
    }
    case "number": {
      const n = readNumber(one);
      if (n === null) return set(null);
      if (Number.isNaN(n)) return err("errNumber");
      if (q.integer && !Number.isInteger(n)) return err("errWhole");
      if (typeof q.min === "number" && n < q.min) return err("errMin", { min: q.min });
      if (typeof q.max === "number" && n > q.max) return err("errMax", { max: q.max });
      return set(n);
    }
    case "date": {
      const t = one.trim();
      if (t === "") return set(null);
      if (!isDate(t)) return err("errDate");
      if (typeof q.min === "string" && t < q.min) return err("errDateMin", { min: q.min });
      if (typeof q.max === "string" && t > q.max) return err("errDateMax", { max: q.max });
      return set(t);
    }
    case "rating":
    case "nps":
    case "scale": {
      const [lo, hi] =
        q.type === "rating" ? [1, q.scale!] : q.type === "nps" ? [0, 10] : [q.min as number, q.max as number];
      const n = readInt(one, lo, hi);
      if (n === "bad") return err("errChoose");
      return set(n);
    }
    case "single_choice": {
      if (one === "") return set(null);
      if (!choiceIds(q).includes(one)) return err("errChoose");
      if (one === "other") {
        const t = cleanText(form.get(`${name}.other`) ?? "", false);
        if (t === "") return err("errOtherText");
        if (t.length > 500) return err("errTooLong", { max: 500 });
        out.other[q.id] = t;
      }
      return set(one);
    }
    case "multiple_choice": {
      const picked = form.getAll(name).filter((x) => x !== "");
      const ids = choiceIds(q);
      if (picked.some((x) => !ids.includes(x)) || new Set(picked).size !== picked.length) return err("errChooseSome");
      if (picked.length === 0) return set(null);
      if (typeof q.min === "number" && picked.length < q.min) return err("errPickMin", { min: q.min });
      if (typeof q.max === "number" && picked.length > q.max) return err("errPickMax", { max: q.max });
      if (picked.includes("other")) {
        const t = cleanText(form.get(`${name}.other`) ?? "", false);
        if (t === "") return err("errOtherText");
        if (t.length > 500) return err("errTooLong", { max: 500 });
        out.other[q.id] = t;
      }
      // Stored in the order the choices are listed, whatever order the browser sent them in.
      return set(ids.filter((id) => picked.includes(id)));
    }
    case "matrix": {
      const cols = q.columns!.map((c) => c.id);
      const got: Record<string, string> = {};
      for (const r of q.rows!) {
        const v = form.get(`${name}.${r.id}`) ?? "";
        if (v === "") continue;
        if (!cols.includes(v)) return err("errMatrix");
        got[r.id] = v;
      }
      const n = Object.keys(got).length;
      if (n === 0) return set(null);
      // A matrix is answered row by row: a required one needs every row.
      if (q.required && n < q.rows!.length) return err("errMatrix");
      return set(got);
    }
    case "ranking": {
      const ids = q.choices!.map((c) => c.id);
      const n = ids.length;
      const pos = new Map<string, number>();
      for (const id of ids) {
        const v = readInt(form.get(`${name}.${id}`) ?? "", 1, n);
        if (v === "bad") return err("errRanking", { n });
        if (v !== null) pos.set(id, v);
      }
      if (pos.size === 0) return set(null);
      const used = new Set(pos.values());
      // A ranking is all or nothing: every item placed once.
      if (pos.size !== n || used.size !== n) return err("errRanking", { n });
      return set([...ids].sort((a, b) => pos.get(a)! - pos.get(b)!));
    }
  }
}

/** The page's answers from its form fields, with an error per question that needs one. */
export function readPage(page: Page, form: URLSearchParams): PageAnswers {
  const out: PageAnswers = { answers: {}, other: {}, errors: {} };
  for (const q of page.questions) readQuestion(q, form, out);
  return out;
}

/** The form field values that show an answer again (a page re-shown with errors, or revisited). */
export function fieldsFor(
  q: Question,
  value: AnswerValue | undefined,
  other: string | undefined,
): Map<string, string[]> {
  const m = new Map<string, string[]>();
  const name = `q.${q.id}`;
  if (value === undefined) return m;
  if (q.type === "matrix" && typeof value === "object" && !Array.isArray(value)) {
    for (const [row, col] of Object.entries(value)) m.set(`${name}.${row}`, [col]);
  } else if (q.type === "ranking" && Array.isArray(value)) {
    value.forEach((id, i) => m.set(`${name}.${id}`, [String(i + 1)]));
  } else if (Array.isArray(value)) m.set(name, value);
  else m.set(name, [String(value)]);
  if (other !== undefined) m.set(`${name}.other`, [other]);
  return m;
}

/** An answer as people read it: labels rather than ids. */
export function answerText(q: Question, value: AnswerValue | undefined, other?: string): string {
  if (value === undefined) return "";
  const label = (id: string) =>
    id === "other" && q.allowOther
      ? other !== undefined
        ? `Other: ${other}`
        : "Other"
      : ((q.choices ?? []).find((c) => c.id === id)?.label ?? id);
  switch (q.type) {
    case "single_choice":
      return label(String(value));
    case "multiple_choice":
      return (value as string[]).map(label).join("; ");
    case "ranking":
      return (value as string[]).map((id, i) => `${i + 1}. ${label(id)}`).join("; ");
    case "matrix":
      return Object.entries(value as Record<string, string>)
        .map(
          ([r, c]) =>
            `${q.rows!.find((x) => x.id === r)?.label ?? r}: ${q.columns!.find((x) => x.id === c)?.label ?? c}`,
        )
        .join("; ");
    default:
      return String(value);
  }
}
