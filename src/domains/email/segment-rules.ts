/**
 * Segment rules: which subscribers a segment holds.
 *
 *   { match: "all" | "any", conditions: [
 *       { field: "email", op: "ends_with", value: "@acme.test" },
 *       { field: "attributes.plan", op: "eq", value: "pro" },
 *       { field: "list", op: "in", value: 3 },             // subscribed to list 3
 *       { field: "createdAt", op: "after", value: "2026-01-01T00:00:00Z" } ] }
 *
 * A field is a namespace and a name. Today: `email`, `name`, `createdAt`,
 * `attributes.<key>` and `list` (membership with status subscribed, or any
 * status given as `status`). CRM fields will be `crm.<field>`: the parser
 * refuses unknown namespaces now, and supporting one means adding a
 * resolver that loads those values for a batch of subscribers (by email)
 * before `matches` runs — the rule shape does not change.
 *
 * Rules are evaluated in the process over keyset-paged batches of
 * subscribers (segments are small documents; the attribute JSON has no
 * index on either engine), which keeps one code path for both engines.
 */
import * as v from "valibot";
import { invalid } from "../../core/errors";
import type { Attributes } from "./tables";

export const OPS = ["eq", "neq", "contains", "not_contains", "starts_with", "ends_with", "gt", "gte", "lt", "lte", "exists", "not_exists", "before", "after", "in", "not_in"] as const;
export type Op = (typeof OPS)[number];

export const conditionSchema = v.strictObject({
  field: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  op: v.picklist(OPS),
  value: v.optional(v.union([v.string(), v.number(), v.boolean(), v.null()])),
  status: v.optional(v.picklist(["unconfirmed", "subscribed", "unsubscribed", "bounced", "complained"])),
});
export const rulesSchema = v.strictObject({
  match: v.optional(v.picklist(["all", "any"]), "all"),
  conditions: v.pipe(v.array(conditionSchema), v.minLength(1), v.maxLength(50)),
});
export type Condition = v.InferOutput<typeof conditionSchema>;

/** Rules as tools publish them (loosely, to keep the listing short; the shape is in the description), checked here. */
export function parseRules(value: unknown, path = "rules"): Rules {
  const r = v.safeParse(rulesSchema, value);
  if (r.success) return r.output;
  const issue = r.issues[0];
  const sub = (issue.path ?? []).map((p) => (typeof p.key === "number" ? `[${p.key}]` : `.${String(p.key)}`)).join("");
  throw invalid(`${path}${sub} is invalid: ${issue.message.replace(/^Invalid \w+: /, "")}.`, { path: `${path}${sub}` });
}
export type Rules = v.InferOutput<typeof rulesSchema>;

export interface Candidate {
  id: number;
  email: string;
  name: string | null;
  attributes: Attributes;
  createdAt: Date;
  /** listId → status */
  lists: Map<number, string>;
}

const TEXT_OPS = new Set<Op>(["eq", "neq", "contains", "not_contains", "starts_with", "ends_with", "exists", "not_exists", "in", "not_in"]);
const NUM_OPS = new Set<Op>(["eq", "neq", "gt", "gte", "lt", "lte", "exists", "not_exists"]);

/** Checks rules against what can be evaluated; returns them normalised (list ids to check against the company). */
export function checkRules(rules: Rules): { rules: Rules; listIds: number[] } {
  const listIds: number[] = [];
  rules.conditions.forEach((c, i) => {
    const where = `conditions[${i}]`;
    const [ns, key, ...more] = c.field.split(".");
    if (c.field === "list") {
      if (c.op !== "in" && c.op !== "not_in") throw invalid(`${where}: a list condition takes op in or not_in.`, { path: where });
      if (typeof c.value !== "number" || !Number.isSafeInteger(c.value) || c.value < 1) throw invalid(`${where}: value must be a list id.`, { path: where });
      listIds.push(c.value);
      return;
    }
    if (c.status !== undefined) throw invalid(`${where}: status applies to list conditions only.`, { path: where });
    if (c.field === "email" || c.field === "name") {
      if (!TEXT_OPS.has(c.op) || c.op === "in" || c.op === "not_in") throw invalid(`${where}: ${c.field} takes eq, neq, contains, not_contains, starts_with, ends_with, exists or not_exists.`, { path: where });
    } else if (c.field === "createdAt") {
      if (c.op !== "before" && c.op !== "after") throw invalid(`${where}: createdAt takes before or after.`, { path: where });
      if (typeof c.value !== "string" || Number.isNaN(Date.parse(c.value))) throw invalid(`${where}: value must be an ISO date-time.`, { path: where });
    } else if (ns === "attributes" && key && more.length === 0) {
      if ((c.op === "in" || c.op === "not_in" || c.op === "before" || c.op === "after")) throw invalid(`${where}: ${c.op} does not apply to attributes.`, { path: where });
    } else if (ns === "crm") {
      throw invalid(`${where}: CRM fields are not available to segments yet; use email, name, createdAt, attributes.<key> or list.`, { path: where });
    } else {
      throw invalid(`${where}: unknown field "${c.field.slice(0, 60)}"; use email, name, createdAt, attributes.<key> or list.`, { path: where });
    }
    if (c.op !== "exists" && c.op !== "not_exists" && (c.value === undefined || c.value === null))
      throw invalid(`${where}: ${c.op} needs a value.`, { path: where });
    if (NUM_OPS.has(c.op) && ["gt", "gte", "lt", "lte"].includes(c.op) && typeof c.value !== "number" && Number.isNaN(Number(c.value)))
      throw invalid(`${where}: ${c.op} compares numbers.`, { path: where });
  });
  return { rules, listIds: [...new Set(listIds)] };
}

const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

function test(c: Condition, s: Candidate): boolean {
  if (c.field === "list") {
    const st = s.lists.get(c.value as number);
    const member = st !== undefined && st === (c.status ?? "subscribed");
    return c.op === "in" ? member : !member;
  }
  if (c.field === "createdAt") {
    const t = Date.parse(c.value as string);
    return c.op === "before" ? s.createdAt.getTime() < t : s.createdAt.getTime() > t;
  }
  const raw = c.field === "email" ? s.email : c.field === "name" ? s.name : s.attributes[c.field.slice("attributes.".length)];
  const present = raw !== null && raw !== undefined && raw !== "";
  if (c.op === "exists") return present;
  if (c.op === "not_exists") return !present;
  if (!present) return c.op === "neq" || c.op === "not_contains";
  if (c.op === "gt" || c.op === "gte" || c.op === "lt" || c.op === "lte") {
    const a = Number(raw);
    const b = Number(c.value);
    if (Number.isNaN(a) || Number.isNaN(b)) return false;
    return c.op === "gt" ? a > b : c.op === "gte" ? a >= b : c.op === "lt" ? a < b : a <= b;
  }
  // Text comparisons ignore case and accents: "Zoë" eq "zoe".
  const a = fold(String(raw));
  const b = fold(String(c.value));
  switch (c.op) {
    case "eq":
      return a === b;
    case "neq":
      return a !== b;
    case "contains":
      return a.includes(b);
    case "not_contains":
      return !a.includes(b);
    case "starts_with":
      return a.startsWith(b);
    case "ends_with":
      return a.endsWith(b);
    default:
      return false;
  }
}

export function matches(rules: Rules, s: Candidate): boolean {
  return rules.match === "any" ? rules.conditions.some((c) => test(c, s)) : rules.conditions.every((c) => test(c, s));
}
