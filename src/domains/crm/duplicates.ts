/**
 * Likely duplicates that exact checks miss (creates already refuse the
 * same email or domain): pairs of live records ranked by how sure we are,
 * each with its reasons, to feed contacts_merge / crm_companies_merge.
 *
 * Contacts:
 *   same_phone        the same last 9 phone digits (numbers of 8+ digits;
 *                     national zeros and +country codes written differently match) 0.9
 *   same_name         the same full name, case and accents folded           0.75 (+0.15 at the same company)
 *   similar_name      names one or two edits apart at the same company
 *                     ("Jon Smith" / "John Smith", "Zoe Unal" / "Zoë Ünal") 0.6
 *   same_email_user   the same address before @ at another domain, with a
 *                     name that does not contradict it (jane.doe@gmail / jane.doe@acme) 0.5
 * Companies:
 *   same_name         the same name once case, accents, punctuation and
 *                     legal suffixes (Inc, Ltd, GmbH, SA…) are dropped      0.85
 *   similar_name      one or two edits apart                                0.55
 * Several reasons add up (capped at 1). Records are grouped by key before
 * any comparison (no all-pairs scan), so a 50,000-contact CRM is one
 * read and a few hash maps; edit distances run only inside one company's
 * contacts or between names of near length sharing their first letter.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import { invalid } from "../../core/errors";
import { page } from "../../core/pagination";
import { crmRead, fold, fullName, phoneDigits } from "./access";
import { contacts, crmCompanies, type Phone } from "./tables";

/**
 * Levenshtein distance, giving up past `max` (returns max + 1). Hand-written
 * (a dozen lines) rather than a dependency: only small bounded distances
 * between short names are ever needed.
 */
export function editDistance(a: string, b: string, max = 2): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, cur[j]!);
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

const LEGAL =
  /\b(inc|incorporated|llc|ltd|limited|plc|gmbh|ag|sa|sas|sarl|srl|spa|bv|nv|oy|ab|as|kk|co|corp|corporation|company|group|the)\b/g;
export const companyKey = (name: string) =>
  fold(name)
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .replace(LEGAL, " ")
    .replace(/\s+/g, " ")
    .trim();
const nameKey = (first: string | null, last: string | null) =>
  fold([first, last].filter(Boolean).join(" "))
    .replace(/[^\p{L}\p{N} ]+/gu, "")
    .trim();
/** The last 9 digits: "+44 20 7946 0018" and "020 7946 0018" both end in "079460018". */
const phoneKey = (p: Phone) => {
  const d = phoneDigits(p.number);
  return d.length >= 8 ? d.slice(-9) : null;
};

interface Pair {
  a: number;
  b: number;
  score: number;
  reasons: string[];
}

class Pairs {
  private m = new Map<string, Pair>();
  add(x: number, y: number, reason: string, points: number) {
    if (x === y) return;
    const [a, b] = x < y ? [x, y] : [y, x];
    const k = `${a}:${b}`;
    const p = this.m.get(k) ?? { a, b, score: 0, reasons: [] };
    if (p.reasons.includes(reason)) return;
    p.reasons.push(reason);
    p.score = Math.min(1, Math.round((p.score + points) * 100) / 100);
    this.m.set(k, p);
  }
  ranked(): Pair[] {
    return [...this.m.values()].sort((p, q) => q.score - p.score || p.a - q.a || p.b - q.b);
  }
}

function groups<T>(rows: T[], keys: (r: T) => (string | null)[]): Map<string, T[]> {
  const g = new Map<string, T[]>();
  for (const r of rows)
    for (const k of new Set(keys(r))) {
      if (!k) continue;
      const list = g.get(k);
      if (list) list.push(r);
      else g.set(k, [r]);
    }
  return g;
}

/** Largest group compared pair by pair (a key shared by hundreds is noise: "info@", a switchboard number). */
const GROUP_MAX = 50;

export async function findDuplicates(
  ctx: ActorContext,
  input: { object?: "contact" | "company"; id?: number; minScore?: number; limit: number; offset: number },
) {
  crmRead(ctx);
  const db = ctx.deps.db;
  const min = input.minScore ?? 0.5;
  const pairs = new Pairs();
  if ((input.object ?? "contact") === "contact") {
    const rows = await db
      .select({
        id: contacts.id,
        firstName: contacts.firstName,
        lastName: contacts.lastName,
        emails: contacts.emails,
        phones: contacts.phones,
        companyId: contacts.crmCompanyId,
      })
      .from(contacts)
      .where(and(eq(contacts.companyId, ctx.company.id), isNull(contacts.mergedIntoId)));
    if (input.id !== undefined && !rows.some((r) => r.id === input.id))
      throw invalid(`Contact ${input.id} not found in ${ctx.company.name}.`, { path: "id" });
    const each = (
      g: Map<string, typeof rows>,
      reason: string,
      points: number,
      also?: (x: (typeof rows)[0], y: (typeof rows)[0]) => number | null,
    ) => {
      for (const list of g.values()) {
        if (list.length < 2 || list.length > GROUP_MAX) continue;
        for (let i = 0; i < list.length; i++)
          for (let j = i + 1; j < list.length; j++) {
            const pts = also ? also(list[i]!, list[j]!) : points;
            if (pts !== null) pairs.add(list[i]!.id, list[j]!.id, reason, pts);
          }
      }
    };
    each(
      groups(rows, (r) => r.phones.map(phoneKey)),
      "same_phone",
      0.9,
    );
    each(
      groups(rows, (r) => [nameKey(r.firstName, r.lastName) || null]),
      "same_name",
      0.75,
      (x, y) => (x.companyId !== null && x.companyId === y.companyId ? 0.9 : 0.75),
    );
    // Same mailbox name elsewhere ("jane.doe@"), unless the names say they are two people.
    const local = (e: string) => {
      const l = e.slice(0, e.lastIndexOf("@"));
      return l.length >= 5 && /[._-]/.test(l) ? l : null;
    };
    each(
      groups(rows, (r) => r.emails.map(local)),
      "same_email_user",
      0.5,
      (x, y) => {
        const nx = nameKey(x.firstName, x.lastName);
        const ny = nameKey(y.firstName, y.lastName);
        return nx && ny && nx !== ny && editDistance(nx, ny) > 2 ? null : 0.5;
      },
    );
    // Similar names: compared within one CRM company only.
    for (const list of groups(rows, (r) => [r.companyId === null ? null : String(r.companyId)]).values()) {
      if (list.length < 2 || list.length > 2000) continue;
      const named = list.map((r) => ({ id: r.id, k: nameKey(r.firstName, r.lastName) })).filter((r) => r.k.length >= 4);
      for (let i = 0; i < named.length; i++)
        for (let j = i + 1; j < named.length; j++) {
          const x = named[i]!;
          const y = named[j]!;
          if (x.k === y.k) continue;
          if (editDistance(x.k, y.k) <= (Math.min(x.k.length, y.k.length) >= 8 ? 2 : 1))
            pairs.add(x.id, y.id, "similar_name", 0.6);
        }
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    const companyIds = [...new Set(rows.map((r) => r.companyId).filter((x): x is number => x !== null))];
    const names = new Map<number, string>();
    if (companyIds.length)
      for (const c of await db
        .select({ id: crmCompanies.id, name: crmCompanies.name })
        .from(crmCompanies)
        .where(eq(crmCompanies.companyId, ctx.company.id)))
        names.set(c.id, c.name);
    const side = (id: number) => {
      const r = byId.get(id)!;
      return {
        id,
        name: fullName(r),
        emails: r.emails,
        phones: r.phones.map((p) => p.number),
        company: r.companyId === null ? null : (names.get(r.companyId) ?? null),
      };
    };
    const found = pairs
      .ranked()
      .filter((p) => p.score >= min && (input.id === undefined || p.a === input.id || p.b === input.id));
    return {
      object: "contact",
      ...page(
        found
          .slice(input.offset, input.offset + input.limit)
          .map((p) => ({ score: p.score, reasons: p.reasons, a: side(p.a), b: side(p.b) })),
        found.length,
        input.limit,
        input.offset,
      ),
      merge: "contacts_merge {id: a.id, mergeId: b.id}",
    };
  }
  const rows = await db
    .select({ id: crmCompanies.id, name: crmCompanies.name, domain: crmCompanies.domain })
    .from(crmCompanies)
    .where(and(eq(crmCompanies.companyId, ctx.company.id), isNull(crmCompanies.mergedIntoId)));
  if (input.id !== undefined && !rows.some((r) => r.id === input.id))
    throw invalid(`Company ${input.id} not found in ${ctx.company.name}.`, { path: "id" });
  const keyed = rows
    .map((r) => ({ ...r, k: companyKey(r.name) }))
    .filter((r) => r.k.length >= 2)
    .map((r) => ({ ...r, d: r.k.replace(/\D+/g, " ").trim() }));
  for (const list of groups(keyed, (r) => [r.k]).values()) {
    if (list.length < 2 || list.length > GROUP_MAX) continue;
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) pairs.add(list[i]!.id, list[j]!.id, "same_name", 0.85);
  }
  // Similar names: only between names sharing their first letter and of near length.
  for (const list of groups(keyed, (r) => [r.k[0]!]).values()) {
    if (list.length > 5000) continue;
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++) {
        const x = list[i]!;
        const y = list[j]!;
        // "Studio 54" and "Studio 55" are two companies: numbers must agree.
        if (x.k === y.k || Math.min(x.k.length, y.k.length) < 5 || x.d !== y.d) continue;
        if (editDistance(x.k, y.k) <= (Math.min(x.k.length, y.k.length) >= 10 ? 2 : 1))
          pairs.add(x.id, y.id, "similar_name", 0.55);
      }
  }
  const byId = new Map(rows.map((r) => [r.id, r]));
  const side = (id: number) => ({ id, name: byId.get(id)!.name, domain: byId.get(id)!.domain });
  const found = pairs
    .ranked()
    .filter((p) => p.score >= min && (input.id === undefined || p.a === input.id || p.b === input.id));
  return {
    object: "company",
    ...page(
      found
        .slice(input.offset, input.offset + input.limit)
        .map((p) => ({ score: p.score, reasons: p.reasons, a: side(p.a), b: side(p.b) })),
      found.length,
      input.limit,
      input.offset,
    ),
    merge: "crm_companies_merge {id: a.id, mergeId: b.id}",
  };
}
