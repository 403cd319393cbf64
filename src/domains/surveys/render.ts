/**
 * A survey as HTML: the public form (one page of it) and the reviewer's
 * preview of every page, drawn by the same question renderer so the
 * approval page shows exactly what visitors will get.
 *
 * Accessibility without JavaScript (after the GOV.UK Design System's
 * patterns): every input has a label; groups of radios or checkboxes are a
 * fieldset with a legend; hints and errors are linked with
 * aria-describedby and errors also mark the field aria-invalid; an error
 * summary at the top links to each field; the form is `novalidate` so the
 * server's messages, not the browser's bubbles, are what people read.
 *
 * Every text an agent or a visitor wrote goes through escapeHtml; ids in
 * markup are question/choice ids, which the definition limits to letters,
 * digits, `_` and `-`, and are escaped all the same.
 */
import { escapeHtml as esc } from "../../core/public-page";
import type { FieldError } from "./answers";
import { choiceIds } from "./answers";
import type { Condition, Definition, Ending, Page, Question } from "./definition";
import { optionLabel, questionById, textKeys } from "./definition";
import { LANGUAGE_NAMES, ui } from "./ui-text";

export type T = (key: string, fallback: string) => string;

export interface QuestionState {
  /** Form field → values to show (an answer revisited, or what was typed before an error). */
  values: Map<string, string[]>;
  error?: FieldError;
  /** Preview: inputs shown but inert, no names. */
  preview?: boolean;
}

const fid = (qid: string, part?: string) => esc(part ? `q:${qid}:${part}` : `q:${qid}`);

function attrs(o: Record<string, string | boolean | number | undefined>): string {
  let s = "";
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined || v === false) continue;
    s += v === true ? ` ${k}` : ` ${k}="${esc(String(v))}"`;
  }
  return s;
}

function describedBy(q: Question, hasHint: boolean, st: QuestionState): string | undefined {
  const ids = [hasHint ? `q:${q.id}:hint` : "", st.error ? `q:${q.id}:error` : ""].filter(Boolean);
  return ids.length ? ids.join(" ") : undefined;
}

/** Hint text under a question: its description, then what the rules ask for. */
function hintText(q: Question, t: T, lang: string): string[] {
  const out: string[] = [];
  if (q.description) out.push(t(`${q.id}.description`, q.description));
  if (q.type === "multiple_choice") {
    if (q.min !== undefined && q.max !== undefined) out.push(ui(lang, "hintPickRange", { min: q.min, max: q.max }));
    else if (q.max !== undefined) out.push(ui(lang, "hintPick", { max: q.max }));
  }
  if (q.type === "ranking") out.push(ui(lang, "hintRank"));
  if (q.type === "date") out.push(ui(lang, "hintDate"));
  if (q.type === "number" && q.min !== undefined && q.max !== undefined)
    out.push(ui(lang, "hintRange", { min: q.min, max: q.max }));
  return out;
}

function labelInner(q: Question, t: T, lang: string): string {
  return `${esc(t(`${q.id}.title`, q.title))} <span class="sv-req">${esc(ui(lang, q.required ? "required" : "optional"))}</span>`;
}

function hintAndError(q: Question, hints: string[], st: QuestionState, lang: string): string {
  const hint = hints.length
    ? `<div class="sv-hint" id="${fid(q.id, "hint")}">${hints.map((h) => `<p>${esc(h).replace(/\n/g, "<br>")}</p>`).join("")}</div>`
    : "";
  const error = st.error
    ? `<p class="sv-error" id="${fid(q.id, "error")}"><span class="sv-vh">${esc(ui(lang, "errorTitle"))}: </span>${esc(ui(lang, st.error.key, st.error.params))}</p>`
    : "";
  return hint + error;
}

const has = (st: QuestionState, name: string, value: string) => (st.values.get(name) ?? []).includes(value);
const first = (st: QuestionState, name: string) => st.values.get(name)?.[0] ?? "";

/** One question, as a visitor (or, with `preview`, a reviewer) sees it. */
export function renderQuestion(q: Question, t: T, lang: string, st: QuestionState): string {
  const hints = hintText(q, t, lang);
  const described = describedBy(q, hints.length > 0, st);
  const name = (n: string) => (st.preview ? undefined : n);
  const common = { "aria-describedby": described, "aria-invalid": st.error ? "true" : undefined, disabled: st.preview };
  const cls = `sv-q sv-q-${q.type}${st.error ? " sv-q-error" : ""}`;
  const n = `q.${q.id}`;

  // Single inputs: a label for the input.
  if (
    q.type === "short_text" ||
    q.type === "long_text" ||
    q.type === "email" ||
    q.type === "number" ||
    q.type === "date"
  ) {
    const placeholder = q.placeholder ? t(`${q.id}.placeholder`, q.placeholder) : undefined;
    const value = first(st, n);
    let input: string;
    if (q.type === "long_text") {
      input = `<textarea class="sv-input"${attrs({ id: `q:${q.id}`, name: name(n), rows: 5, maxlength: q.max, placeholder, required: q.required, ...common })}>${esc(value)}</textarea>`;
    } else {
      const type = q.type === "email" ? "email" : q.type === "date" ? "date" : "text";
      input = `<input class="sv-input"${attrs({
        type,
        id: `q:${q.id}`,
        name: name(n),
        value,
        placeholder,
        required: q.required,
        maxlength: q.type === "short_text" ? q.max : undefined,
        inputmode: q.type === "number" ? (q.integer ? "numeric" : "decimal") : undefined,
        autocomplete: q.type === "email" ? "email" : undefined,
        spellcheck: q.type === "email" ? "false" : undefined,
        min: q.type === "date" ? (q.min as string | undefined) : undefined,
        max: q.type === "date" ? (q.max as string | undefined) : undefined,
        ...common,
      })}>`;
    }
    return `<div class="${cls}" id="${fid(q.id, "wrap")}"><label class="sv-label" for="${fid(q.id)}">${labelInner(q, t, lang)}</label>${hintAndError(q, hints, st, lang)}${input}</div>`;
  }

  // Groups: a fieldset with a legend.
  let body = "";
  let radioGroup = false;
  if (q.type === "single_choice" || q.type === "multiple_choice") {
    radioGroup = q.type === "single_choice";
    const type = radioGroup ? "radio" : "checkbox";
    body = `<div class="sv-choices">${choiceIds(q)
      .map((id) => {
        const inputId = `q:${q.id}:c:${id}`;
        const label = id === "other" ? ui(lang, "other") : t(`${q.id}.${id}`, optionLabel(q, id));
        const input = `<input${attrs({ type, id: inputId, name: name(n), value: id, checked: has(st, n, id), disabled: st.preview, "aria-invalid": st.error ? "true" : undefined })}>`;
        const other =
          id === "other"
            ? ` <label class="sv-vh" for="${fid(q.id, "other")}">${esc(ui(lang, "otherSpecify"))}</label><input class="sv-input sv-other"${attrs({ type: "text", id: `q:${q.id}:other`, name: name(`${n}.other`), value: first(st, `${n}.other`), maxlength: 500, placeholder: ui(lang, "otherSpecify"), disabled: st.preview })}>`
            : "";
        return `<div class="sv-choice">${input}<label for="${esc(inputId)}">${esc(label)}</label>${other}</div>`;
      })
      .join("")}</div>`;
  } else if (q.type === "rating" || q.type === "nps" || q.type === "scale") {
    radioGroup = true;
    const [lo, hi] =
      q.type === "rating" ? [1, q.scale!] : q.type === "nps" ? [0, 10] : [q.min as number, q.max as number];
    const minLabel = q.minLabel ? t(`${q.id}.minLabel`, q.minLabel) : q.type === "nps" ? ui(lang, "notLikely") : "";
    const maxLabel = q.maxLabel ? t(`${q.id}.maxLabel`, q.maxLabel) : q.type === "nps" ? ui(lang, "veryLikely") : "";
    const cells: string[] = [];
    for (let i = lo; i <= hi; i++) {
      const inputId = `q:${q.id}:v:${i}`;
      const shown =
        q.type === "rating" && hi <= 5
          ? `<span aria-hidden="true">${"★".repeat(i)}</span><span class="sv-vh">${esc(ui(lang, "stars", { n: i, max: hi }))}</span>`
          : String(i);
      cells.push(
        `<span class="sv-point"><input${attrs({ type: "radio", id: inputId, name: name(n), value: String(i), checked: has(st, n, String(i)), disabled: st.preview, "aria-invalid": st.error ? "true" : undefined })}><label for="${esc(inputId)}">${shown}</label></span>`,
      );
    }
    const ends =
      minLabel || maxLabel
        ? `<div class="sv-ends"><span>${esc(minLabel)}</span><span>${esc(maxLabel)}</span></div>`
        : "";
    // Numbered scales are a grid of equal cells on one row (0–10 fits a 40rem column), two even rows on a phone.
    const points = hi - lo + 1;
    const grid = q.type === "rating" ? "" : ` sv-grid${points > 6 ? " sv-wide" : ""}`;
    const cols = q.type === "rating" ? "" : ` style="--sv-n:${points}"`;
    body = `<div class="sv-points sv-${q.type}${grid}"${cols}>${cells.join("")}</div>${ends}`;
  } else if (q.type === "matrix") {
    const head = q
      .columns!.map(
        (c) => `<th scope="col" id="${fid(q.id, `col:${c.id}`)}">${esc(t(`${q.id}.${c.id}`, c.label))}</th>`,
      )
      .join("");
    const rows = q
      .rows!.map((r) => {
        const rn = `${n}.${r.id}`;
        const cells = q
          .columns!.map(
            (c) =>
              `<td><input${attrs({ type: "radio", name: name(rn), value: c.id, checked: has(st, rn, c.id), disabled: st.preview, "aria-labelledby": `q:${q.id}:row:${r.id} q:${q.id}:col:${c.id}`, "aria-invalid": st.error ? "true" : undefined })}></td>`,
          )
          .join("");
        return `<tr><th scope="row" id="${fid(q.id, `row:${r.id}`)}">${esc(t(`${q.id}.${r.id}`, r.label))}</th>${cells}</tr>`;
      })
      .join("");
    body = `<div class="sv-matrix-wrap"><table class="sv-matrix"><thead><tr><td></td>${head}</tr></thead><tbody>${rows}</tbody></table></div>`;
  } else if (q.type === "ranking") {
    const count = q.choices!.length;
    body = `<div class="sv-ranking">${q
      .choices!.map((c) => {
        const rn = `${n}.${c.id}`;
        const cur = first(st, rn);
        const opts = [`<option value="">–</option>`];
        for (let i = 1; i <= count; i++)
          opts.push(`<option value="${i}"${cur === String(i) ? " selected" : ""}>${i}</option>`);
        const sid = `q:${q.id}:r:${c.id}`;
        return `<div class="sv-rank"><select${attrs({ id: sid, name: name(rn), disabled: st.preview, "aria-invalid": st.error ? "true" : undefined })}>${opts.join("")}</select><label for="${esc(sid)}">${esc(t(`${q.id}.${c.id}`, c.label))}</label></div>`;
      })
      .join("")}</div>`;
  }
  const fsAttrs = attrs({
    class: "sv-fieldset",
    id: `q:${q.id}`,
    tabindex: "-1",
    "aria-describedby": described,
    role: radioGroup ? "radiogroup" : undefined,
    "aria-required": radioGroup && q.required ? "true" : undefined,
  });
  return `<div class="${cls}" id="${fid(q.id, "wrap")}"><fieldset${fsAttrs}><legend class="sv-label">${labelInner(q, t, lang)}</legend>${hintAndError(q, hints, st, lang)}${body}</fieldset></div>`;
}

// ---------------------------------------------------------------- the public page

export interface FormPageInput {
  def: Definition;
  lang: string;
  t: T;
  pageIndex: number;
  values: Map<string, string[]>;
  errors: Record<string, FieldError>;
  /** The markup of the hidden inputs (token, csrf, hidden fields): filled in per response. */
  hiddenInputs: string;
  action: string;
  canGoBack: boolean;
  /** Language links (first page only). */
  languageLinks?: string;
  honeypot: string;
}

/** The page's <form>: error summary, questions, honeypot and buttons. */
export function renderFormPage(o: FormPageInput): string {
  const { def, lang, t } = o;
  const page = def.pages[o.pageIndex]!;
  const errs = page.questions.filter((q) => o.errors[q.id]);
  const summary = errs.length
    ? `<div class="sv-summary" role="alert" tabindex="-1" id="sv-errors" aria-labelledby="sv-errors-title"><h2 id="sv-errors-title">${esc(ui(lang, "errorTitle"))}</h2><ul>${errs
        .map(
          (q) =>
            `<li><a href="#${fid(q.id)}">${esc(t(`${q.id}.title`, q.title))}: ${esc(ui(lang, o.errors[q.id]!.key, o.errors[q.id]!.params))}</a></li>`,
        )
        .join("")}</ul></div>`
    : "";
  const intro =
    o.pageIndex === 0 && def.description
      ? `<div class="sv-intro">${paragraphs(t("description", def.description))}</div>`
      : "";
  const last = isLastPageEverywhere(def, o.pageIndex);
  const pageTitle = page.title ? `<h2 class="sv-page-title">${esc(t(`${page.id}.title`, page.title))}</h2>` : "";
  const progress =
    def.pages.length > 1 ? `<p class="sv-progress">${esc(ui(lang, "page", { n: o.pageIndex + 1 }))}</p>` : "";
  const questions = page.questions
    .map((q) => renderQuestion(q, t, lang, { values: o.values, error: o.errors[q.id] }))
    .join("");
  const submit = last ? t("submitLabel", def.submitLabel ?? ui(lang, "submit")) : ui(lang, "next");
  const back = o.canGoBack
    ? `<button type="submit" name="nav" value="back" class="sv-btn sv-btn-secondary">${esc(ui(lang, "back"))}</button>`
    : "";
  return `<main class="sv" id="main">${o.languageLinks ?? ""}<h1 class="sv-title">${esc(t("title", def.title))}</h1>${intro}${summary}<form class="sv-form" method="post" action="${esc(o.action)}" novalidate accept-charset="utf-8">${o.hiddenInputs}<input type="hidden" name="page" value="${esc(page.id)}">${progress}${pageTitle}${questions}${o.honeypot}<div class="sv-buttons">${back}<button type="submit" name="nav" value="next" class="sv-btn sv-btn-primary">${esc(submit)}</button></div></form></main>`;
}

/** The last page always ends the survey (jumps only go forward); earlier ones may, depending on answers, so they say Next. */
function isLastPageEverywhere(def: Definition, index: number): boolean {
  return index === def.pages.length - 1;
}

export function paragraphs(s: string): string {
  return s
    .split(/\n{2,}/)
    .map((p) => `<p>${esc(p).replace(/\n/g, "<br>")}</p>`)
    .join("");
}

export function renderEnding(def: Definition, ending: Ending, t: T, lang: string): string {
  const body = ending.body ? paragraphs(t(`${ending.id}.body`, ending.body)) : "";
  return `<main class="sv sv-done" id="main"><h1 class="sv-title">${esc(t(`${ending.id}.title`, ending.title))}</h1>${body}</main>`;
}

export function renderMessage(title: string, body: string): string {
  return `<main class="sv sv-message" id="main"><h1 class="sv-title">${esc(title)}</h1><p>${esc(body)}</p></main>`;
}

export function languageLinks(def: Definition, current: string, href: (lang: string) => string): string {
  if (def.languages.length < 2) return "";
  const items = def.languages
    .map((l) => {
      const name = LANGUAGE_NAMES[l] ?? l;
      return l === current
        ? `<li><span aria-current="true" lang="${esc(l)}">${esc(name)}</span></li>`
        : `<li><a href="${esc(href(l))}" lang="${esc(l)}" hreflang="${esc(l)}">${esc(name)}</a></li>`;
    })
    .join("");
  return `<nav class="sv-langs" aria-label="${esc(ui(current, "language"))}"><ul>${items}</ul></nav>`;
}

// ---------------------------------------------------------------- the reviewer's preview

const OP_WORDS: Record<Condition["op"], string> = {
  equals: "is",
  notEquals: "is not",
  lessThan: "is less than",
  lessOrEqual: "is at most",
  greaterThan: "is more than",
  greaterOrEqual: "is at least",
  contains: "includes",
  notContains: "does not include",
  answered: "is answered",
  skipped: "is skipped",
};

function valueWords(def: Definition, c: Condition): string {
  if (c.value === undefined) return "";
  const q = questionById(def, c.field);
  const one = (x: string | number) => {
    if (q && typeof x === "string" && q.type === "matrix") {
      const [r, col] = x.split("=");
      return `“${optionLabel(q, r!)}: ${optionLabel(q, col!)}”`;
    }
    return q && typeof x === "string" && (q.choices || q.rows)
      ? `“${optionLabel(q, x)}”`
      : typeof x === "string"
        ? `“${x}”`
        : String(x);
  };
  return ` ${Array.isArray(c.value) ? c.value.map(one).join(" or ") : one(c.value)}`;
}

/** A rule in words: "If “How likely…” is less than 7, go to page “Tell us more”." */
export function ruleWords(def: Definition, page: Page, ruleIndex: number): string {
  const r = page.logic[ruleIndex]!;
  const conds = r.if.map((c) => {
    const q = questionById(def, c.field);
    const subject = q ? `“${q.title}”` : `hidden field “${c.field}”`;
    return `${subject} ${OP_WORDS[c.op]}${valueWords(def, c)}`;
  });
  const target = def.pages.find((p) => p.id === r.goTo);
  const ending = def.endings.find((e) => e.id === r.goTo);
  const dest = target ? `go to page “${target.title ?? target.id}”` : `end with “${ending?.title ?? r.goTo}”`;
  return `If ${conds.join(r.match === "any" ? " or " : " and ")}, ${dest}.`;
}

function questionFacts(q: Question): string {
  const facts = [`id ${q.id}`, q.type.replace("_", " "), q.required ? "required" : "optional"];
  if ((q.type === "short_text" || q.type === "long_text") && q.max !== undefined)
    facts.push(`${q.min ? `${q.min}–` : "up to "}${q.max} characters`);
  if (q.type === "number") {
    if (q.min !== undefined) facts.push(`min ${q.min}`);
    if (q.max !== undefined) facts.push(`max ${q.max}`);
    if (q.integer) facts.push("whole numbers");
  }
  if (q.type === "date" && (q.min || q.max)) facts.push(`${q.min ?? "any"} to ${q.max ?? "any"}`);
  if (q.type === "multiple_choice" && (q.min !== undefined || q.max !== undefined))
    facts.push(`choose ${q.min ?? 1}–${q.max ?? choiceIds(q).length}`);
  if (q.type === "rating") facts.push(`${q.scale} points`);
  if (q.type === "scale") facts.push(`${q.min} to ${q.max}`);
  if (q.allowOther) facts.push("with “Other”");
  return facts.join(" · ");
}

/**
 * Every page, question, rule and ending of a definition (the approval page
 * heads it with the title), as the reviewer
 * must see it before it goes live: questions drawn by the public renderer
 * (inert), each with its id, type, required flag and rules; the skip logic
 * in words; endings; hidden fields; languages with every translated text.
 */
export function renderPreview(def: Definition, publicUrl: string): string {
  const lang = def.languages[0]!;
  const t: T = (_k, s) => s;
  const none = new Map<string, string[]>();
  const intro = def.description ? `<div class="sv-intro">${paragraphs(def.description)}</div>` : "";
  const pages = def.pages
    .map((p, i) => {
      const qs = p.questions
        .map(
          (q) =>
            `<div class="sv-preview-q">${renderQuestion(q, t, lang, { values: none, preview: true })}<p class="sv-meta">${esc(questionFacts(q))}</p></div>`,
        )
        .join("");
      const rules = p.logic.length
        ? `<div class="sv-logic"><h4>Skip logic</h4><ol>${p.logic.map((_, k) => `<li>${esc(ruleWords(def, p, k))}</li>`).join("")}</ol><p class="sv-meta">Otherwise: ${esc(i + 1 < def.pages.length ? `page ${i + 2}` : `end with “${def.endings[0]!.title}”`)}.</p></div>`
        : "";
      return `<section class="sv-page-preview" aria-label="Page ${i + 1}"><h3 class="sv-page-head">Page ${i + 1}${p.title ? `: ${esc(p.title)}` : ""} <span class="sv-meta">(id ${esc(p.id)})</span></h3>${qs}${rules}</section>`;
    })
    .join("");
  const endings = `<section class="sv-endings"><h3 class="sv-page-head">Endings</h3>${def.endings
    .map(
      (e, i) =>
        `<div class="sv-ending"><h4>${esc(e.title)} <span class="sv-meta">(id ${esc(e.id)}${i === 0 ? ", the default" : ""})</span></h4>${e.body ? paragraphs(e.body) : ""}${e.redirectUrl ? `<p class="sv-meta">Then sends the visitor to ${esc(e.redirectUrl)}</p>` : ""}</div>`,
    )
    .join("")}</section>`;
  const settings: string[] = [
    `Public address: ${publicUrl}`,
    `Languages: ${def.languages.map((l) => `${LANGUAGE_NAMES[l] ?? l} (${l})`).join(", ")}`,
  ];
  if (def.hiddenFields.length) settings.push(`Hidden fields read from the address: ${def.hiddenFields.join(", ")}`);
  settings.push(def.closesAt ? `Closes at ${def.closesAt}` : "No close date");
  settings.push(def.maxResponses ? `Stops after ${def.maxResponses} responses` : "No response limit");
  const submit = def.submitLabel ? [`Submit button: ${def.submitLabel}`] : [];
  return `<div class="sv sv-preview"><p class="sv-meta">${[...settings, ...submit].map(esc).join(" · ")}</p>${intro}${pages}${endings}${translationTables(def)}</div>`;
}

function translationTables(def: Definition): string {
  const keys = textKeys(def);
  return def.languages
    .slice(1)
    .map((l) => {
      const tr = def.translations[l] ?? {};
      const done = [...keys.keys()].filter((k) => tr[k] !== undefined).length;
      const rows = [...keys.entries()]
        .map(
          ([k, s]) =>
            `<tr><th scope="row">${esc(k)}</th><td>${esc(s)}</td><td lang="${esc(l)}">${tr[k] !== undefined ? esc(tr[k]) : '<em class="sv-missing">not translated: shown in the default language</em>'}</td></tr>`,
        )
        .join("");
      return `<details class="sv-translations" open><summary>${esc(LANGUAGE_NAMES[l] ?? l)} (${esc(l)}): ${done} of ${keys.size} texts translated</summary><table><thead><tr><th>Text</th><th>${esc(def.languages[0]!)}</th><th>${esc(l)}</th></tr></thead><tbody>${rows}</tbody></table></details>`;
    })
    .join("");
}

// ---------------------------------------------------------------- styles

const HEX_RE = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const FONT_RE = /^[A-Za-z0-9 ,'"-]{1,100}$/;

/** Colours and font from a brand profile, each checked against a strict pattern before it reaches CSS. */
export function brandVars(b: Record<string, unknown> | null | undefined): string {
  const d = b ?? {};
  const color = (k: string, def: string) =>
    typeof d[k] === "string" && HEX_RE.test(d[k] as string) ? (d[k] as string) : def;
  const font = typeof d.bodyFont === "string" && FONT_RE.test(d.bodyFont) ? `${d.bodyFont},` : "";
  return `.sv{--sv-primary:${color("primaryColor", "#2563eb")};--sv-text:${color("textColor", "#111827")};--sv-bg:${color("backgroundColor", "#ffffff")};--sv-font:${font}system-ui,-apple-system,"Segoe UI",sans-serif}`;
}

/** The public page's own frame around the form (not used inside approval pages). */
export const PAGE_CSS = `body{margin:0;background:#f3f4f6}main.sv{background:var(--sv-bg);min-height:100vh;box-sizing:border-box}`;

export const SURVEY_CSS = `
.sv{--sv-primary:#2563eb;--sv-text:#111827;--sv-bg:#fff;--sv-error:#b91c1c;--sv-muted:#4b5563;--sv-font:system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--sv-text);font-family:var(--sv-font);line-height:1.5}
main.sv{max-width:42rem;margin:0 auto;padding:1.5rem 1rem 3rem}
.sv-title{font-size:1.75rem;line-height:1.2;margin:.5rem 0 1rem}
.sv-vh{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.sv-q{margin:0 0 1.75rem}
.sv-fieldset{border:0;margin:0;padding:0;min-width:0}
.sv-label{display:block;font-weight:600;font-size:1.1rem;margin-bottom:.25rem;padding:0}
.sv-req{font-weight:400;color:var(--sv-muted);font-size:.9rem}
.sv-hint{color:var(--sv-muted);margin:.1rem 0 .5rem}.sv-hint p{margin:0 0 .25rem}
.sv-error{color:var(--sv-error);font-weight:600;margin:.25rem 0 .5rem}
.sv-q-error{border-left:4px solid var(--sv-error);padding-left:.75rem}
.sv-input{box-sizing:border-box;width:100%;max-width:32rem;font:inherit;padding:.5rem;border:2px solid #6b7280;border-radius:.25rem;background:#fff;color:inherit}
.sv-input[aria-invalid=true]{border-color:var(--sv-error)}
.sv-input:focus,.sv input:focus,.sv select:focus,.sv-btn:focus,.sv a:focus{outline:3px solid #fd0;outline-offset:0;box-shadow:0 0 0 2px #0b0c0c}
.sv-choice{display:flex;align-items:center;gap:.5rem;flex-wrap:wrap;margin:.35rem 0}
.sv-choice input[type=radio],.sv-choice input[type=checkbox]{width:1.4rem;height:1.4rem;margin:0}
.sv-other{width:auto;flex:1 1 12rem}
.sv-points{display:flex;flex-wrap:wrap;gap:.35rem}
.sv-point{position:relative}
.sv-point input{position:absolute;left:.2rem;top:.2rem;opacity:0;width:1px;height:1px;margin:0}
.sv-point label{cursor:pointer}
.sv-point label{display:inline-block;min-width:2.4rem;text-align:center;padding:.45rem .5rem;border:2px solid #6b7280;border-radius:.25rem;background:#fff}
.sv-point input:checked+label{background:var(--sv-primary);border-color:var(--sv-primary);color:#fff}
.sv-point input:focus+label{outline:3px solid #fd0;box-shadow:0 0 0 2px #0b0c0c}
.sv-points.sv-grid{display:grid;grid-template-columns:repeat(var(--sv-n),minmax(0,1fr));max-width:40rem}
.sv-grid .sv-point label{display:block;min-width:0;padding:.55rem 0;box-sizing:border-box;font-variant-numeric:tabular-nums}
.sv-grid+.sv-ends{max-width:40rem}
@media (max-width:30rem){.sv-points.sv-grid.sv-wide{grid-template-columns:repeat(6,minmax(0,1fr))}}
.sv-ends{display:flex;justify-content:space-between;gap:1rem;color:var(--sv-muted);font-size:.9rem;max-width:32rem;margin-top:.35rem}
.sv-matrix-wrap{overflow-x:auto}.sv-matrix{border-collapse:collapse}.sv-matrix th,.sv-matrix td{padding:.4rem .6rem;text-align:center;border-bottom:1px solid #e5e7eb}.sv-matrix th[scope=row]{text-align:left;font-weight:400}
.sv-matrix input{width:1.3rem;height:1.3rem}
.sv-rank{display:flex;align-items:center;gap:.6rem;margin:.35rem 0}.sv-rank select{font:inherit;padding:.3rem}
.sv-buttons{display:flex;gap:.75rem;margin-top:2rem}
.sv-btn{font:inherit;font-weight:600;padding:.6rem 1.4rem;border-radius:.25rem;border:2px solid transparent;cursor:pointer}
.sv-btn-primary{background:var(--sv-primary);color:#fff}
.sv-btn-secondary{background:#fff;color:var(--sv-text);border-color:#6b7280}
.sv-btn[disabled]{opacity:.6;cursor:progress}
.sv-summary{border:4px solid var(--sv-error);padding:1rem 1.25rem;margin:0 0 1.5rem}.sv-summary h2{margin:0 0 .5rem;font-size:1.25rem}.sv-summary a{color:var(--sv-error);font-weight:600}
.sv-progress{color:var(--sv-muted);margin:0 0 .5rem}
.sv-page-title{font-size:1.35rem;margin:0 0 1rem}
.sv-langs ul{list-style:none;display:flex;gap:1rem;padding:0;margin:0 0 .5rem;justify-content:flex-end}
.sv-preview .sv-page-preview{border:1px solid #e5e7eb;border-radius:.5rem;padding:1rem;margin:1rem 0}
.sv-page-head{font-size:1.1rem;margin:0 0 1rem}
.sv-meta{color:var(--sv-muted);font-size:.85rem;margin:.25rem 0}
.sv-preview-q{margin-bottom:1.25rem}.sv-preview-q .sv-q{margin-bottom:.25rem}
.sv-logic{background:#f3f4f6;border-radius:.375rem;padding:.5rem 1rem}.sv-logic h4{margin:.25rem 0}
.sv-ending{border-left:3px solid var(--sv-primary);padding-left:.75rem;margin:.75rem 0}.sv-ending h4{margin:0}
.sv-translations{margin:1rem 0}.sv-translations table{border-collapse:collapse;width:100%;font-size:.9rem}.sv-translations th,.sv-translations td{border:1px solid #e5e7eb;padding:.3rem .5rem;text-align:left;vertical-align:top}
.sv-missing{color:var(--sv-error)}
`;
