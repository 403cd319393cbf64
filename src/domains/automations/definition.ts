/**
 * What an automation is made of, and the checks it passes before it may be
 * enabled: a trigger (an event type with filters, a cron schedule in a time
 * zone, or an incoming signed webhook), conditions, and 1–20 ordered
 * steps (`actions`): actions, `if` steps whose then/else lists nest up to
 * MAX_DEPTH deep, and `wait` steps, at most MAX_STEPS in all. A step with an
 * `id` is read by later steps as `{{steps.<id>.output.x}}` wherever it is
 * nested; top-level steps also as `{{steps.<index>.output.x}}`. Action arguments are JSON in which strings may hold templates,
 * `{{trigger.data.slug}}` or `{{steps.0.output.key}}`: a string that is
 * exactly one template takes the value as it is (a number stays a number);
 * otherwise values are written into the text. Templates only read paths;
 * nothing is evaluated.
 */
import { Cron } from "croner";
import * as v from "valibot";
import { jsonObject } from "../../core/json-value";
import type { ActorContext } from "../../core/context";
import { invalid } from "../../core/errors";
import { covers } from "../../core/scopes";
import {
  ACTIONS,
  BLOCKED_TOOLSETS,
  chatCall,
  conditionSchema,
  durationMs,
  FLOW_TYPES,
  issuesText,
  MAX_DEPTH,
  MAX_STEPS,
  MAX_WAIT_DAYS,
} from "./actions";

export { conditionSchema };
import type { AutomationAction, AutomationDefinition, AutomationTrigger, Condition } from "./tables";

export const MAX_ACTIONS = 20;
const PATH_RE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;
const TEMPLATE_RE = /\{\{\s*([^{}]*?)\s*\}\}/g;
const ACTION_TOOL: Partial<Record<AutomationAction["type"], string>> = { create_card: "cards_create" };

// ---------------------------------------------------------------------------
// Schemas (tool inputs)

/** One flat object (not a union) keeps the published schema short; checkDefinition enforces what each type needs. */
export const triggerSchema = v.strictObject({
  type: v.picklist(["event", "schedule", "webhook"]),
  eventType: v.optional(v.pipe(v.string(), v.maxLength(100))),
  filters: v.optional(v.pipe(v.array(conditionSchema), v.maxLength(20))),
  cron: v.optional(v.pipe(v.string(), v.maxLength(100))),
  timeZone: v.optional(v.pipe(v.string(), v.maxLength(64))),
});

/** The stored trigger: only the fields its type uses. */
export function triggerOf(t: v.InferOutput<typeof triggerSchema>): AutomationTrigger {
  if (t.type === "event") {
    if (!t.eventType) throw invalid('trigger.eventType is required for type "event" (e.g. post.published).');
    if (t.cron !== undefined || t.timeZone !== undefined) throw invalid('cron and timeZone belong to type "schedule".');
    return {
      type: "event",
      eventType: t.eventType,
      ...(t.filters?.length ? { filters: t.filters as Condition[] } : {}),
    };
  }
  if (t.eventType !== undefined || t.filters !== undefined)
    throw invalid(`eventType and filters belong to type "event", not "${t.type}".`);
  if (t.type === "schedule") {
    if (!t.cron) throw invalid('trigger.cron is required for type "schedule" (e.g. "0 9 * * 1-5").');
    return { type: "schedule", cron: t.cron, timeZone: t.timeZone ?? "UTC" };
  }
  if (t.cron !== undefined || t.timeZone !== undefined) throw invalid('cron and timeZone belong to type "schedule".');
  return { type: "webhook" };
}
const STEP_ID_RE = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;
export const actionSchema = v.strictObject({
  type: v.picklist([
    "create_card",
    "send_email",
    "notify",
    "post_chat_message",
    "call_webhook",
    "call_tool",
    "http",
    "if",
    "wait",
  ]),
  with: jsonObject(),
  id: v.optional(v.pipe(v.string(), v.regex(STEP_ID_RE, "must be a name such as deal (letters, digits, _)"))),
});

// ---------------------------------------------------------------------------
// post_chat_message: a reply to the visitor or an internal note, through the chat tools

/** Whether events of `eventType` (a pattern may end in .*) name a chat conversation, so the action can default to it. */
export function chatTrigger(ctx: ActorContext, eventType: string | null | undefined): boolean {
  if (!eventType) return false;
  if (eventType.endsWith(".*")) return eventType === "chat.*";
  return ctx.deps.catalog.events.get(eventType)?.entity === "chat_conversation";
}

// ---------------------------------------------------------------------------
// Paths, templates, conditions

export function getPath(root: unknown, p: string): unknown {
  let cur: unknown = root;
  for (const k of p.split(".")) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur) && /^\d+$/.test(k)) cur = cur[Number(k)];
    else if (typeof cur === "object") cur = (cur as Record<string, unknown>)[k];
    else return undefined;
  }
  return cur;
}

/** Fills templates in a JSON value from `scope`. */
export function render(value: unknown, scope: Record<string, unknown>): unknown {
  if (typeof value === "string") {
    const whole = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(value);
    if (whole) return getPath(scope, whole[1]!) ?? null;
    return value.replace(TEMPLATE_RE, (_, p: string) => {
      const x = getPath(scope, p);
      return x === undefined || x === null ? "" : typeof x === "object" ? JSON.stringify(x) : String(x);
    });
  }
  if (Array.isArray(value)) return value.map((x) => render(x, scope));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, render(x, scope)]));
  return value;
}

function templatePaths(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") for (const m of value.matchAll(TEMPLATE_RE)) out.push(m[1]!);
  else if (Array.isArray(value)) value.forEach((x) => templatePaths(x, out));
  else if (value && typeof value === "object") Object.values(value).forEach((x) => templatePaths(x, out));
  return out;
}

const hasTemplate = (value: unknown) => templatePaths(value).length > 0;

export function conditionHolds(c: Condition, scope: Record<string, unknown>): boolean {
  const x = getPath(scope, c.path);
  switch (c.op) {
    case "exists":
      return c.value === false ? x === undefined || x === null : x !== undefined && x !== null;
    case "eq":
      return JSON.stringify(x) === JSON.stringify(c.value);
    case "neq":
      return JSON.stringify(x) !== JSON.stringify(c.value);
    case "in":
      return Array.isArray(c.value) && c.value.some((y) => JSON.stringify(y) === JSON.stringify(x));
    case "contains":
      return typeof x === "string"
        ? typeof c.value === "string" && x.toLowerCase().includes(c.value.toLowerCase())
        : Array.isArray(x) && x.some((y) => JSON.stringify(y) === JSON.stringify(c.value));
    case "gt":
      return typeof x === "number" && typeof c.value === "number" && x > c.value;
    case "lt":
      return typeof x === "number" && typeof c.value === "number" && x < c.value;
  }
}

export const allHold = (cs: readonly Condition[], scope: Record<string, unknown>) =>
  cs.every((c) => conditionHolds(c, scope));

// ---------------------------------------------------------------------------
// Schedules

export function nextRun(cron: string, timeZone: string, after: Date): Date | null {
  return new Cron(cron, { timezone: timeZone, paused: true }).nextRun(after);
}

function checkSchedule(cron: string, timeZone: string): string | null {
  try {
    new Intl.DateTimeFormat("en", { timeZone });
  } catch {
    return `timeZone "${timeZone.slice(0, 64)}" is not an IANA time zone (e.g. Europe/Paris).`;
  }
  let job: Cron;
  try {
    job = new Cron(cron, { timezone: timeZone, paused: true });
  } catch (e) {
    return `cron "${cron.slice(0, 100)}" is not valid: ${(e as Error).message}. Use 5 fields, e.g. "0 9 * * 1-5".`;
  }
  const runs = job.nextRuns(3, new Date());
  if (runs.length < 1) return `cron "${cron}" never fires.`;
  if (runs.length >= 2 && runs[1]!.getTime() - runs[0]!.getTime() < 5 * 60_000)
    return "A schedule runs at most every 5 minutes.";
  return null;
}

// ---------------------------------------------------------------------------
// The whole definition

export interface Checked {
  problems: string[];
  warnings: string[];
}

/**
 * Every problem that would make the automation fail or misfire: unknown
 * event types, a bad cron or time zone, templates that read nothing,
 * unknown tools, tools the creator's credential may not call, arguments a
 * tool would refuse. Run on every save and again on enabling.
 */
export function checkDefinition(
  ctx: ActorContext,
  d: Omit<AutomationDefinition, "name" | "description">,
  webhookIds: Set<number>,
): Checked {
  const problems: string[] = [];
  const warnings: string[] = [];
  const t = d.trigger;
  const knownType = (x: string) =>
    x.endsWith(".*")
      ? [...ctx.deps.catalog.events.keys()].some((k) => k.startsWith(x.slice(0, -1)))
      : ctx.deps.catalog.events.has(x);
  if (t.type === "event" && !knownType(t.eventType))
    problems.push(
      `trigger.eventType "${t.eventType.slice(0, 80)}" is not an event any domain emits (the resource automations://events lists them).`,
    );
  if (t.type === "schedule") {
    const p = checkSchedule(t.cron, t.timeZone);
    if (p) problems.push(`trigger: ${p}`);
  }
  if (d.actions.length === 0) problems.push("actions is empty: give 1 to 20 actions.");
  if (d.actions.length > MAX_ACTIONS) problems.push(`At most ${MAX_ACTIONS} actions.`);
  const flat = flatSteps(d.actions, problems);
  const roots = new Set(["trigger", "steps", "automation"]);
  const allPaths = [
    ...(t.type === "event" ? (t.filters ?? []).map((c) => c.path) : []),
    ...d.conditions.map((c) => c.path),
    ...flat.flatMap(({ a }) =>
      a.type === "if" && Array.isArray(a.with.conditions)
        ? (a.with.conditions as { path?: unknown }[]).map((c) => String(c?.path ?? ""))
        : [],
    ),
    // Each step's own templates (an if step's branches are steps of their own in flat); http headers apart.
    ...flat.flatMap(({ a }) =>
      a.type === "if" ? [] : templatePaths(a.type === "http" ? { ...a.with, headers: null } : a.with),
    ),
  ];
  // Only an http step's headers read secrets, and only as {{secrets.NAME}}: nowhere else could a secret be shown.
  const headerPaths = flat.flatMap(({ a }) => (a.type === "http" ? templatePaths(a.with.headers ?? null) : []));
  const secretOk = (p: string) => /^secrets\.[A-Za-z0-9_]+$/.test(p);
  for (const [p, inHeaders] of [
    ...allPaths.map((x) => [x, false] as const),
    ...headerPaths.map((x) => [x, true] as const),
  ]) {
    if (!PATH_RE.test(p))
      problems.push(`"{{${p.slice(0, 80)}}}" is not a path (letters, digits, _ and dots; e.g. trigger.data.slug).`);
    else if (!roots.has(p.split(".")[0]!) && !(inHeaders && secretOk(p)))
      problems.push(`"${p.slice(0, 80)}" must start with trigger., steps. or automation.`);
  }
  flat.forEach(({ a, path }) => {
    const watch = a.type === "wait" ? (a.with.untilChanged as { tool?: unknown } | undefined) : undefined;
    if (watch && typeof watch.tool === "string") {
      // The watched record is read with the creator's rights, by a tool that changes nothing.
      const tool = ctx.deps.catalog.tools.get(watch.tool);
      if (!tool) problems.push(`${path} (wait): there is no tool "${watch.tool.slice(0, 80)}".`);
      else if (!tool.readOnly)
        problems.push(`${path} (wait): untilChanged reads with a read-only tool; ${tool.name} writes.`);
      else if (tool.scope && !covers(ctx.principal.scopes, tool.scope))
        problems.push(
          `${path} (wait): ${tool.name} needs the ${tool.scope} scope, which the credential creating this automation lacks.`,
        );
    }
    if (FLOW_TYPES.has(a.type)) return;
    const at = `${path} (${a.type})`;
    const w = a.with;
    const before = problems.length;
    // The fields of `with` that hold no template are checked now, by the schema the runner checks them with when the step runs.
    if (a.type !== "create_card") {
      const r = v.safeParse(ACTIONS[a.type].with, w);
      const now = (r.issues ?? []).filter((x) => {
        const k = x.path?.[0]?.key;
        return typeof k !== "string" || !hasTemplate(w[k]);
      });
      if (now.length) problems.push(`${at}: ${issuesText(now, "with.")}.`);
    }
    if (a.type === "post_chat_message") {
      if (w.internal === true && w.status !== undefined)
        problems.push(`${at}: with.status applies to replies, not internal notes.`);
      if (w.conversationId === undefined && !(t.type === "event" && chatTrigger(ctx, t.eventType)))
        problems.push(
          `${at}: give with.conversationId (a conversation number, e.g. {{trigger.data.conversationNumber}}); only chat events name one by themselves.`,
        );
      const { tool: chatTool, args } = chatCall(
        w,
        t.type === "event" && w.conversationId === undefined ? { entity: { type: "chat_conversation", id: 1 } } : null,
      );
      const tool = ctx.deps.catalog.tools.get(chatTool);
      if (!tool) return problems.push(`${at}: the chat toolset is not available.`);
      if (tool.scope && !covers(ctx.principal.scopes, tool.scope))
        problems.push(
          `${at}: ${tool.name} needs the ${tool.scope} scope, which the credential creating this automation lacks.`,
        );
      if (args.id !== undefined && !hasTemplate(args)) {
        const r = v.safeParse(tool.input, args);
        if (!r.success) problems.push(`${at}: ${tool.name} would refuse these arguments: ${issuesText(r.issues)}`);
      }
      return;
    }
    if (a.type === "call_webhook" && typeof w.webhookId === "number" && !webhookIds.has(w.webhookId))
      problems.push(`${at}: webhook ${w.webhookId} not found.`);
    const toolName = a.type === "call_tool" ? w.tool : ACTION_TOOL[a.type];
    if (a.type === "call_tool" || ACTION_TOOL[a.type]) {
      if (typeof toolName !== "string") {
        if (problems.length === before) problems.push(`${at}: with.tool must name a Plinth tool (e.g. cards_create).`);
        return;
      }
      const tool = ctx.deps.catalog.tools.get(toolName);
      if (!tool) return problems.push(`${at}: there is no tool "${String(toolName).slice(0, 80)}".`);
      if (BLOCKED_TOOLSETS.has(tool.toolset) && !tool.readOnly)
        return problems.push(`${at}: automations cannot change automations or webhooks (${tool.name}).`);
      if (tool.scope && !covers(ctx.principal.scopes, tool.scope))
        problems.push(
          `${at}: ${tool.name} needs the ${tool.scope} scope, which the credential creating this automation lacks.`,
        );
      const args = a.type === "call_tool" ? (w.arguments ?? {}) : w;
      if (!args || typeof args !== "object" || Array.isArray(args)) {
        if (problems.length === before) problems.push(`${at}: with.arguments must be an object.`);
        return;
      }
      if (!hasTemplate(args)) {
        const r = v.safeParse(tool.input, args);
        if (!r.success) problems.push(`${at}: ${tool.name} would refuse these arguments: ${issuesText(r.issues)}`);
      } else warnings.push(`${at}: arguments with templates are checked against ${tool.name} when the action runs.`);
      if (tool.approval)
        warnings.push(
          `${at}: ${tool.name} drafts for approval; the run records the approval link, and nothing goes live until a person approves.`,
        );
    }
  });
  return { problems, warnings };
}

/**
 * Every step of `list` and of the branches of its `if` steps, depth first,
 * each with the path that names it in messages (`actions[1].with.then[0]`).
 * Checks what the tool schema cannot see in nested JSON: each nested step's
 * shape, `if` and `wait` fields, nesting depth, the number of steps, step
 * ids (unique), and waits' durations adding up to at most MAX_WAIT_DAYS.
 */
function flatSteps(list: AutomationAction[], problems: string[]) {
  const out: { a: AutomationAction; path: string }[] = [];
  const ids = new Set<string>();
  let waited = 0;
  const walk = (items: unknown[], prefix: string, depth: number) => {
    items.forEach((item, i) => {
      const path = `${prefix}[${i}]`;
      if (out.length >= MAX_STEPS) {
        if (out.length === MAX_STEPS) problems.push(`${path}: an automation holds at most ${MAX_STEPS} steps in all.`);
        out.push({ a: { type: "wait", with: {} }, path });
        return;
      }
      const r = v.safeParse(actionSchema, item);
      if (!r.success) return problems.push(`${path}: ${issuesText(r.issues)}.`);
      const a = r.output as AutomationAction;
      out.push({ a, path });
      if (a.id !== undefined) {
        if (ids.has(a.id)) problems.push(`${path}.id "${a.id}" is used by another step; ids must be unique.`);
        ids.add(a.id);
      }
      if (!FLOW_TYPES.has(a.type)) return;
      const checked = v.safeParse(ACTIONS[a.type].with, a.with);
      if (!checked.success) {
        // A wait's until holding a template is checked when the step runs; everything else now.
        const now = checked.issues.filter((x) => !(x.path?.[0]?.key === "until" && hasTemplate(a.with.until)));
        if (now.length) problems.push(`${path} (${a.type}): ${issuesText(now, "with.")}.`);
      }
      if (a.type === "wait")
        waited += durationMs(a.with.for ?? (a.with.untilChanged as { timeout?: unknown } | undefined)?.timeout) ?? 0;
      if (a.type !== "if") return;
      if (depth >= MAX_DEPTH) return problems.push(`${path}: if steps nest at most ${MAX_DEPTH} deep.`);
      for (const branch of ["then", "else"] as const)
        if (Array.isArray(a.with[branch])) walk(a.with[branch] as unknown[], `${path}.with.${branch}`, depth + 1);
    });
  };
  walk(list, "actions", 0);
  if (waited > MAX_WAIT_DAYS * 86_400_000) problems.push(`The waits add up to more than ${MAX_WAIT_DAYS} days.`);
  return out;
}

export function assertValid(c: Checked) {
  if (c.problems.length)
    throw invalid(`The automation is not valid: ${c.problems.join(" ")}`, { problems: c.problems });
}
