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

export const CSS = `
.bk{max-width:46rem;margin:0 auto;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#111827}
.bk h1{font-size:1.6rem;margin:.2em 0}
.bk .bk-meta{color:#4b5563;margin:.25rem 0;padding:0;list-style:none}
.bk .bk-meta li{margin:.15rem 0}
.bk .bk-desc{white-space:pre-line;margin:1rem 0}
.bk .bk-days{display:grid;grid-template-columns:repeat(auto-fill,minmax(9.5rem,1fr));gap:.75rem;margin:1rem 0;padding:0;list-style:none}
.bk .bk-day h3{font-size:.95rem;margin:0 0 .35rem}
.bk .bk-day ul{list-style:none;margin:0;padding:0}
.bk .bk-day li{margin:.2rem 0}
.bk .bk-slot{display:block;padding:.35rem .5rem;border:1px solid #2563eb;border-radius:.375rem;color:#1d4ed8;text-decoration:none;text-align:center}
.bk a.bk-slot:hover,.bk a.bk-slot:focus{background:#2563eb;color:#fff}
.bk .bk-none{color:#6b7280}
.bk form.bk-form label{display:block;margin:.6rem 0 .15rem;font-weight:600}
.bk form.bk-form input[type=text],.bk form.bk-form input[type=email],.bk form.bk-form input[type=tel],.bk form.bk-form input[type=number],.bk form.bk-form textarea,.bk form.bk-form select{width:100%;padding:.45rem;border:1px solid #d1d5db;border-radius:.375rem;font:inherit;box-sizing:border-box}
.bk .bk-check label{display:inline;font-weight:400}
.bk button,.bk .bk-button{display:inline-block;margin-top:1rem;padding:.55rem 1.1rem;background:#2563eb;color:#fff;border:0;border-radius:.375rem;font:inherit;text-decoration:none;cursor:pointer}
.bk .bk-secondary{background:#fff;color:#1d4ed8;border:1px solid #2563eb}
.bk .bk-error{background:#fef2f2;border:1px solid #fca5a5;color:#991b1b;padding:.6rem .8rem;border-radius:.375rem}
.bk .bk-ok{background:#f0fdf4;border:1px solid #86efac;color:#14532d;padding:.6rem .8rem;border-radius:.375rem}
.bk .bk-nav{display:flex;justify-content:space-between;gap:1rem;margin:1rem 0}
.bk .bk-tz{display:flex;gap:.5rem;align-items:end;flex-wrap:wrap}
.bk .bk-tz select{max-width:20rem}
.bk .bk-req{color:#b91c1c}
`;

const LOCATION_LABEL: Record<string, string> = { in_person: "In person", phone: "Phone call", video: "Video call" };

export function durationText(min: number): string {
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  const m = min % 60;
  return m ? `${h} h ${m} min` : `${h} h`;
}

export function locationText(loc: PageConfig["location"]): string {
  if (loc.kind === "video") return loc.value ? "Video call (link in your invite)" : "Video call";
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
    `<li>${escapeHtml(LOCATION_LABEL[cfg.location.kind] ? locationText(cfg.location) : "")}</li>`,
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
    if (dayOffsets.size > 50_000) dayOffsets.clear();
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
