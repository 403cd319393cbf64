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
  const zdt = day(date).toPlainDateTime({ hour: h, minute: m }).toZonedDateTime(rule.timeZone, { disambiguation: "compatible" });
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

/** "every 2 weeks on mo, we at 09:00 (Europe/London)": how a recurrence reads in results. */
export function describeRule(rule: Rule): string {
  const every = rule.interval > 1 ? `every ${rule.interval} ${rule.frequency === "daily" ? "days" : rule.frequency === "weekly" ? "weeks" : "months"}` : rule.frequency;
  let on = "";
  if (rule.frequency === "monthly")
    on =
      rule.weekOfMonth !== null
        ? ` on the ${rule.weekOfMonth === -1 ? "last" : ["1st", "2nd", "3rd", "4th"][rule.weekOfMonth - 1]} ${rule.weekdays[0] ?? ""}`
        : ` on day ${rule.monthDay === -1 ? "last" : (rule.monthDay ?? day(rule.startDate).day)}`;
  else if (rule.weekdays.length) on = ` on ${rule.weekdays.join(", ")}`;
  return `${every}${on} at ${rule.timeOfDay} (${rule.timeZone})${rule.endDate ? ` until ${rule.endDate}` : ""}`;
}
