/**
 * The HTML a booking page is made of, shared by the public page
 * (public-pages.ts) and the approval page's preview (approval-kinds.ts), so
 * the reviewer approves exactly what visitors will see. Every value an agent
 * or a visitor wrote goes through escapeHtml; nothing here emits a script
 * or an inline event handler.
 */
import { escapeHtml } from "../../core/public-page";
import type { Slot } from "./availability";
import type { PageConfig, Question } from "./config";
import type { Member } from "./schedules";
import { DAY, offsetMinutes } from "./zoned";

/**
 * The page's own look, scoped to .bk so the approval page can show the same
 * preview inside its frame: the approval pages' type, cards and controls
 * (src/approvals/pages.ts), a visible focus ring on everything a keyboard
 * reaches, and no fixed widths that would scroll sideways on a phone.
 */
export const CSS = `
.bk{max-width:52rem;margin:0 auto;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1c2330}
.bk h1{font-size:1.6rem;line-height:1.25;margin:.2em 0 .4rem}
.bk h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.bk a{color:#1d4ed8}
.bk .bk-meta{color:#5b6576;margin:.25rem 0;padding:0;list-style:none}
.bk .bk-meta li{margin:.15rem 0}
.bk .bk-desc{white-space:pre-line;margin:1rem 0}
.bk .bk-days{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.75rem;align-items:start;margin:1rem 0;padding:0;list-style:none}
@media (min-width:50rem){.bk .bk-days{grid-template-columns:repeat(7,minmax(0,1fr));gap:.5rem}.bk .bk-day{padding:.6rem .35rem}.bk .bk-day h3{font-size:.82rem;white-space:nowrap;text-align:center}}
.bk .bk-day{background:#fff;border:1px solid #dde1e7;border-radius:10px;padding:.7rem .75rem}
.bk .bk-day h3{font-size:.95rem;margin:0 0 .45rem}
.bk .bk-day ul{list-style:none;margin:0;padding:0}
.bk .bk-day li{margin:.3rem 0}
.bk .bk-day .bk-none{margin:0;font-size:.9rem}
.bk .bk-slot{display:block;padding:.4rem .5rem;border:1px solid #2563eb;border-radius:8px;color:#1d4ed8;background:#fff;text-decoration:none;text-align:center;font-variant-numeric:tabular-nums}
.bk a.bk-slot:hover,.bk a.bk-slot:focus{background:#2563eb;color:#fff}
.bk .bk-none{color:#5b6576}
.bk label{font-weight:600}
.bk form.bk-form label{display:block;margin:.8rem 0 .25rem}
.bk select,.bk input[type=text],.bk input[type=email],.bk input[type=tel],.bk input[type=number],.bk textarea{width:100%;min-width:0;padding:.5rem .6rem;border:1px solid #c5ccd6;border-radius:6px;background:#fff;color:inherit;font:inherit;box-sizing:border-box}
.bk select{min-height:2.6rem}
.bk .bk-check label{display:inline;font-weight:400}
.bk button,.bk .bk-button{display:inline-block;margin-top:1rem;padding:.6rem 1.2rem;background:#2563eb;color:#fff;border:1px solid #2563eb;border-radius:8px;font:inherit;font-weight:600;line-height:1.3;text-decoration:none;cursor:pointer;box-sizing:border-box}
.bk .bk-secondary{background:#fff;color:#1d4ed8;border:1px solid #2563eb}
.bk button:hover,.bk .bk-button:hover{background:#1d4ed8;color:#fff}
.bk a:focus-visible,.bk button:focus-visible,.bk select:focus-visible,.bk input:focus-visible,.bk textarea:focus-visible{outline:3px solid #93b4f5;outline-offset:2px}
.bk .bk-error{background:#fef3f2;border:1px solid #f4b8b3;color:#912018;padding:.7rem .9rem;border-radius:8px}
.bk .bk-ok{background:#ecfdf3;border:1px solid #a6e0c2;color:#054f31;padding:.7rem .9rem;border-radius:8px}
.bk .bk-nav{display:flex;justify-content:space-between;gap:1rem;margin:1rem 0}
.bk .bk-nav .bk-button{margin-top:0}
.bk .bk-controls{display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));gap:.75rem 1rem;margin:1.25rem 0 .5rem}
.bk .bk-tz label,.bk .bk-month label{display:block;margin:0 0 .25rem}
.bk .bk-row{display:flex;gap:.5rem;align-items:stretch}
.bk .bk-row select{flex:1}
.bk .bk-row button{margin-top:0;white-space:nowrap}
.bk .bk-req{color:#b42318}
.bk dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}.bk dt{color:#5b6576}.bk dd{margin:0;overflow-wrap:anywhere}
`;

/** The public page around .bk (not the approval preview, which sits in the approval page's own frame). */
export const PAGE_CSS = `:root{color-scheme:light}body{margin:0;background:#f4f5f7}main.bk{padding:1.5rem 1rem 4rem}`;

const LOCATION_LABEL: Record<string, string> = { in_person: "In person", phone: "Phone call", video: "Video call" };

export function durationText(min: number): string {
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  const m = min % 60;
  return m ? `${h} h ${m} min` : `${h} h`;
}

export function locationText(loc: PageConfig["location"], videoLink?: string | null): string {
  if (loc.kind === "video") return loc.value || videoLink ? "Video call (link in your invite)" : "Video call";
  if (loc.kind === "phone") return loc.value ? `Phone call: ${loc.value}` : "Phone call (we call you)";
  return `In person: ${loc.value ?? ""}`;
}

/** Title, hosts, lengths, place, description. */
export function detailsHtml(cfg: PageConfig, hosts: Member[]): string {
  const who = hosts.map((h) => h.name ?? h.email).join(cfg.hostMode === "round_robin" ? " or " : ", ");
  const items = [
    who
      ? `<li>With ${escapeHtml(who)}${cfg.hostMode === "round_robin" && hosts.length > 1 ? " (whoever is free)" : ""}</li>`
      : "",
    `<li>${cfg.durations.map(durationText).join(" · ")}</li>`,
    `<li>${escapeHtml(LOCATION_LABEL[cfg.location.kind] ? locationText(cfg.location, cfg.videoLink) : "")}</li>`,
    cfg.requiresConfirmation ? "<li>The host confirms each booking.</li>" : "",
  ].join("");
  return `<h1>${escapeHtml(cfg.title)}</h1><ul class="bk-meta">${items}</ul>${cfg.description ? `<p class="bk-desc">${escapeHtml(cfg.description)}</p>` : ""}`;
}

const fmtCache = new Map<string, Intl.DateTimeFormat>();
function fmt(tz: string, o: Intl.DateTimeFormatOptions, key: string): Intl.DateTimeFormat {
  const k = `${tz}|${key}`;
  let f = fmtCache.get(k);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", { timeZone: tz, ...o });
    if (fmtCache.size > 2000) fmtCache.clear();
    fmtCache.set(k, f);
  }
  return f;
}
export const dayLabel = (ms: number, tz: string) =>
  fmt(tz, { weekday: "short", day: "numeric", month: "short" }, "day").format(ms);
/** A listed week's first day as people read it: "Mon 30 Nov 2026". */
export const weekLabel = (date: string) =>
  fmt("UTC", { weekday: "short", day: "numeric", month: "short", year: "numeric" }, "week")
    .format(Date.parse(`${date}T12:00:00Z`))
    .replace(",", "");
/** A month of the month picker: "March 2027". */
export const monthLabel = (month: string) =>
  fmt("UTC", { month: "long", year: "numeric" }, "month").format(Date.parse(`${month}-15T12:00:00Z`));

/**
 * The zone's offset at an instant, from a per-(zone, UTC day) memo: a day
 * whose two ends share an offset has it throughout; only a day with a
 * transition asks the zone rules per instant. Listing 1000 times this way
 * costs a few Date getters each instead of two Intl formats.
 */
const dayOffsets = new Map<string, number | null>();
function offsetAt(ms: number, tz: string): number {
  const day = Math.floor(ms / DAY);
  const key = `${tz}|${day}`;
  let o = dayOffsets.get(key);
  if (o === undefined) {
    const a = offsetMinutes(day * DAY, tz);
    o = a === offsetMinutes((day + 1) * DAY - 1, tz) ? a : null;
    if (dayOffsets.size > 10_000) dayOffsets.clear(); // ~3 MB at most (key and entry)
    dayOffsets.set(key, o);
  }
  return o ?? offsetMinutes(ms, tz);
}
const two = (n: number) => (n < 10 ? `0${n}` : String(n));
export const timeLabel = (ms: number, tz: string) => {
  const d = new Date(ms + offsetAt(ms, tz) * 60_000);
  return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
};
export const zoneName = (ms: number, tz: string) =>
  fmt(tz, { timeZoneName: "short" }, "zone")
    .formatToParts(ms)
    .find((p) => p.type === "timeZoneName")?.value ?? tz;
export const localDate = (ms: number, tz: string) =>
  new Date(ms + offsetAt(ms, tz) * 60_000).toISOString().slice(0, 10);
export const whenLabel = (ms: number, tz: string) =>
  `${fmt(tz, { weekday: "long", day: "numeric", month: "long", year: "numeric" }, "long").format(ms)}, ${timeLabel(ms, tz)} (${zoneName(ms, tz)})`;

/**
 * Slots grouped by the visitor's local day. A wall time that appears twice
 * in the visitor's zone (their own fall-back night) carries its zone
 * abbreviation, so the two are told apart.
 */
export function slotsHtml(slots: Slot[], tz: string, href: ((s: Slot) => string) | null, days: string[]): string {
  const byDay = new Map<string, Slot[]>(days.map((d) => [d, []]));
  for (const s of slots) {
    const d = localDate(s.start, tz);
    if (!byDay.has(d)) byDay.set(d, []);
    byDay.get(d)!.push(s);
  }
  const cells = [...byDay.entries()].map(([d, list]) => {
    const labels = list.map((s) => timeLabel(s.start, tz));
    const twice = new Set(labels.filter((l, i) => labels.indexOf(l) !== i));
    const items = list.map((s, i) => {
      const label = escapeHtml(twice.has(labels[i]!) ? `${labels[i]} ${zoneName(s.start, tz)}` : labels[i]!);
      const datetime = new Date(s.start).toISOString();
      return href
        ? `<li><a class="bk-slot" href="${escapeHtml(href(s))}"><time datetime="${datetime}">${label}</time></a></li>`
        : `<li><span class="bk-slot"><time datetime="${datetime}">${label}</time></span></li>`;
    });
    const noon = Date.parse(`${d}T12:00:00Z`);
    return `<li class="bk-day"><h3>${escapeHtml(dayLabel(noon, "UTC"))}</h3>${items.length ? `<ul>${items.join("")}</ul>` : `<p class="bk-none">No times</p>`}</li>`;
  });
  return `<ul class="bk-days">${cells.join("")}</ul>`;
}

function questionInput(q: Question, value: string, disabled: boolean): string {
  const name = `q_${q.id}`;
  const dis = disabled ? " disabled" : "";
  const req = q.required ? " required" : "";
  const v = escapeHtml(value);
  const label = `<label for="${name}">${escapeHtml(q.label)}${q.required ? ' <span class="bk-req">*</span>' : ""}</label>`;
  switch (q.type) {
    case "long_text":
      return `${label}<textarea id="${name}" name="${name}" rows="4" maxlength="5000"${req}${dis}>${v}</textarea>`;
    case "select":
      return `${label}<select id="${name}" name="${name}"${req}${dis}><option value="">Choose…</option>${(
        q.options ?? []
      )
        .map((o) => `<option${o === value ? " selected" : ""}>${escapeHtml(o)}</option>`)
        .join("")}</select>`;
    case "checkbox":
      return `<p class="bk-check"><input type="checkbox" id="${name}" name="${name}" value="on"${value === "on" ? " checked" : ""}${req}${dis}> <label for="${name}">${escapeHtml(q.label)}${q.required ? ' <span class="bk-req">*</span>' : ""}</label></p>`;
    default: {
      const type = q.type === "email" ? "email" : q.type === "phone" ? "tel" : q.type === "number" ? "number" : "text";
      return `${label}<input type="${type}" id="${name}" name="${name}" value="${v}" maxlength="500"${type === "number" ? ' step="any"' : ""}${req}${dis}>`;
    }
  }
}

/** Name, email and the page's questions; `values` refill the form after an error. */
export function formFieldsHtml(cfg: PageConfig, values: Record<string, string>, disabled = false): string {
  const dis = disabled ? " disabled" : "";
  return [
    `<label for="name">Your name <span class="bk-req">*</span></label><input type="text" id="name" name="name" value="${escapeHtml(values.name ?? "")}" maxlength="200" autocomplete="name" required${dis}>`,
    `<label for="email">Email <span class="bk-req">*</span></label><input type="email" id="email" name="email" value="${escapeHtml(values.email ?? "")}" maxlength="254" autocomplete="email" required${dis}>`,
    ...cfg.questions.map((q) => questionInput(q, values[`q_${q.id}`] ?? "", disabled)),
  ].join("");
}
