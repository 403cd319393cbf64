/**
 * When a recurrence is due: a small subset of RFC 5545 rules, evaluated on
 * local calendar dates with Temporal (built into Bun), then turned into an
 * instant in the recurrence's IANA time zone. Written here rather than with
 * an RRULE library because the rules are few and the part libraries get
 * wrong is exactly the one that matters: local wall-clock times across
 * daylight-saving changes.
 *
 *  - daily:   every `interval` days from the start date; with weekdays, only on those days.
 *  - weekly:  every `interval` weeks (weeks start on Monday) on `weekdays`
 *             (default: the start date's weekday).
 *  - monthly: every `interval` months on `monthDay` (1–31; a month without that
 *             day uses its last day; -1 is always the last day), or on the
 *             `weekOfMonth`-th (1–4, -1 last) of one weekday ("2nd Tuesday").
 *
 * Times that do not exist (the hour skipped when clocks go forward) move
 * forward by the gap (02:30 → 03:30); times that happen twice (clocks go
 * back) take the first, so a card is never made twice for one day.
 */
export const WEEKDAY_CODES = ["mo", "tu", "we", "th", "fr", "sa", "su"] as const;

export interface Rule {
  frequency: "daily" | "weekly" | "monthly";
  interval: number;
  weekdays: string[];
  monthDay: number | null;
  weekOfMonth: number | null;
  timeOfDay: string;
  timeZone: string;
  startDate: string;
  endDate: string | null;
}

const day = (s: string) => Temporal.PlainDate.from(s);
const weekday = (d: Temporal.PlainDate) => WEEKDAY_CODES[d.dayOfWeek - 1]!;
const monday = (d: Temporal.PlainDate) => d.subtract({ days: d.dayOfWeek - 1 });

/** Whether `date` is an occurrence of `rule`. */
export function occursOn(rule: Rule, date: Temporal.PlainDate): boolean {
  const start = day(rule.startDate);
  if (Temporal.PlainDate.compare(date, start) < 0) return false;
  if (rule.endDate && Temporal.PlainDate.compare(date, day(rule.endDate)) > 0) return false;
  const n = Math.max(1, rule.interval);
  if (rule.frequency === "daily") {
    const d = start.until(date, { largestUnit: "days" }).days;
    return d % n === 0 && (!rule.weekdays.length || rule.weekdays.includes(weekday(date)));
  }
  if (rule.frequency === "weekly") {
    const weeks = Math.round(monday(start).until(monday(date), { largestUnit: "days" }).days / 7);
    const days = rule.weekdays.length ? rule.weekdays : [weekday(start)];
    return weeks % n === 0 && days.includes(weekday(date));
  }
  const months = (date.year - start.year) * 12 + (date.month - start.month);
  if (months % n !== 0) return false;
  if (rule.weekOfMonth !== null) {
    if (weekday(date) !== (rule.weekdays[0] ?? weekday(start))) return false;
    return rule.weekOfMonth === -1 ? date.day + 7 > date.daysInMonth : Math.ceil(date.day / 7) === rule.weekOfMonth;
  }
  const want = rule.monthDay ?? start.day;
  return date.day === (want === -1 ? date.daysInMonth : Math.min(want, date.daysInMonth));
}

/** The first occurrence on or after `from` (a local date), or null when the series has ended. */
export function nextOccurrence(rule: Rule, from: string): string | null {
  let d = day(from);
  const start = day(rule.startDate);
  if (Temporal.PlainDate.compare(d, start) < 0) d = start;
  // Long enough for any rule: every 52 weeks, or every 52 months on the 31st.
  const limit = 400 * Math.max(1, rule.interval) + 62;
  for (let i = 0; i < limit; i++) {
    if (rule.endDate && Temporal.PlainDate.compare(d, day(rule.endDate)) > 0) return null;
    if (occursOn(rule, d)) return d.toString();
    d = d.add({ days: 1 });
  }
  return null;
}

/** The instant of the occurrence on `date`: its local time in the rule's zone (gaps move forward, repeats take the first). */
export function instantOf(rule: Pick<Rule, "timeOfDay" | "timeZone">, date: string): Date {
  const [h, m] = rule.timeOfDay.split(":").map(Number) as [number, number];
  const zdt = day(date)
    .toPlainDateTime({ hour: h, minute: m })
    .toZonedDateTime(rule.timeZone, { disambiguation: "compatible" });
  return new Date(zdt.epochMilliseconds);
}

/** The first occurrence whose instant is at or after `notBefore`, searching from the local date `from`. */
export function firstDueFrom(rule: Rule, from: string, notBefore: Date): { date: string; at: Date } | null {
  let date = nextOccurrence(rule, from);
  for (let i = 0; date && i < 1000; i++) {
    const at = instantOf(rule, date);
    if (at.getTime() >= notBefore.getTime()) return { date, at };
    date = nextOccurrence(rule, day(date).add({ days: 1 }).toString());
  }
  return date ? { date, at: instantOf(rule, date) } : null;
}

export type RulePart = Pick<Rule, "frequency" | "interval" | "weekdays" | "monthDay" | "weekOfMonth">;

/**
 * The RRULE subset a recurrence takes (RFC 5545, which models and calendar
 * users already know): FREQ=DAILY|WEEKLY|MONTHLY, INTERVAL, BYDAY (MO..SU;
 * for MONTHLY one day with an ordinal, 2TU or -1FR) and BYMONTHDAY (one
 * day, -1 the last). Time, zone, start and end are their own fields.
 * Returns the rule, or a message saying what is wrong.
 */
export function parseRRule(text: string): RulePart | string {
  const body = text.trim().replace(/^RRULE:/i, "");
  const parts = new Map<string, string>();
  for (const p of body.split(";").filter(Boolean)) {
    const [k, val, extra] = p.split("=");
    if (!k || val === undefined || extra !== undefined) return `"${p.slice(0, 40)}" is not KEY=VALUE`;
    parts.set(k.trim().toUpperCase(), val.trim().toUpperCase());
  }
  const freq = parts.get("FREQ");
  if (!freq) return "FREQ is required (DAILY, WEEKLY or MONTHLY)";
  if (!["DAILY", "WEEKLY", "MONTHLY"].includes(freq))
    return `FREQ=${freq.slice(0, 20)} is not supported; use DAILY, WEEKLY or MONTHLY`;
  for (const k of parts.keys())
    if (!["FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY"].includes(k))
      return `${k.slice(0, 20)} is not supported (only FREQ, INTERVAL, BYDAY, BYMONTHDAY; set time, timeZone, startDate and endDate as arguments)`;
  const rule: RulePart = {
    frequency: freq.toLowerCase() as Rule["frequency"],
    interval: 1,
    weekdays: [],
    monthDay: null,
    weekOfMonth: null,
  };
  const interval = parts.get("INTERVAL");
  if (interval !== undefined) {
    if (!/^[1-9][0-9]?$/.test(interval) || Number(interval) > 52) return "INTERVAL must be 1 to 52";
    rule.interval = Number(interval);
  }
  const byday = parts.get("BYDAY");
  if (byday !== undefined) {
    for (const d of byday.split(",")) {
      const m = /^([+-]?[0-9])?(MO|TU|WE|TH|FR|SA|SU)$/.exec(d);
      if (!m) return `BYDAY "${d.slice(0, 10)}" is not a day like MO, or 2TU / -1FR for a monthly rule`;
      if (m[1] !== undefined) {
        const n = Number(m[1]);
        if (freq !== "MONTHLY" || byday.includes(","))
          return "An ordinal BYDAY (2TU, -1FR) needs FREQ=MONTHLY and a single day";
        if (!(n === -1 || (n >= 1 && n <= 4))) return "The BYDAY ordinal is 1 to 4, or -1 for the last";
        rule.weekOfMonth = n;
      } else if (freq === "MONTHLY")
        return "A monthly BYDAY needs an ordinal: 2TU is the 2nd Tuesday, -1FR the last Friday";
      const code = m[2]!.toLowerCase();
      if (!rule.weekdays.includes(code)) rule.weekdays.push(code);
    }
  }
  const bymd = parts.get("BYMONTHDAY");
  if (bymd !== undefined) {
    if (freq !== "MONTHLY") return "BYMONTHDAY needs FREQ=MONTHLY";
    if (byday !== undefined) return "Give BYMONTHDAY or BYDAY, not both";
    const n = Number(bymd);
    if (!/^-?[0-9]{1,2}$/.test(bymd) || !(n === -1 || (n >= 1 && n <= 31)))
      return "BYMONTHDAY is one day 1 to 31, or -1 for the last day";
    rule.monthDay = n;
  }
  return rule;
}

/** The rule back as RRULE text. */
export function toRRule(r: RulePart): string {
  const out = [`FREQ=${r.frequency.toUpperCase()}`];
  if (r.interval > 1) out.push(`INTERVAL=${r.interval}`);
  if (r.weekdays.length)
    out.push(`BYDAY=${r.weekdays.map((d) => `${r.weekOfMonth ?? ""}${d.toUpperCase()}`).join(",")}`);
  if (r.monthDay !== null) out.push(`BYMONTHDAY=${r.monthDay}`);
  return out.join(";");
}

/** "every 2 weeks on mo, we at 09:00 (Europe/London)": how a recurrence reads in results. */
export function describeRule(rule: Rule): string {
  const every =
    rule.interval > 1
      ? `every ${rule.interval} ${rule.frequency === "daily" ? "days" : rule.frequency === "weekly" ? "weeks" : "months"}`
      : rule.frequency;
  let on = "";
  if (rule.frequency === "monthly")
    on =
      rule.weekOfMonth !== null
        ? ` on the ${rule.weekOfMonth === -1 ? "last" : ["1st", "2nd", "3rd", "4th"][rule.weekOfMonth - 1]} ${rule.weekdays[0] ?? ""}`
        : ` on day ${rule.monthDay === -1 ? "last" : (rule.monthDay ?? day(rule.startDate).day)}`;
  else if (rule.weekdays.length) on = ` on ${rule.weekdays.join(", ")}`;
  return `${every}${on} at ${rule.timeOfDay} (${rule.timeZone})${rule.endDate ? ` until ${rule.endDate}` : ""}`;
}
