/**
 * The action catalogue: for each action type, what it does and the fields
 * of its `with`, as one valibot schema per type. The same schema is what
 * the runner checks a step's filled input against before acting, what the
 * dry run checks (so a dry run refuses exactly what a live run would, with
 * the same message), what a save checks for arguments without templates,
 * and what automations://actions publishes as JSON Schema. Adding a field
 * here changes all four at once; there is no second list.
 *
 * Actions that call a Plinth tool (create_card, call_tool,
 * post_chat_message) end in that tool's own input schema and scope:
 * `toolCall` resolves the tool and checks the arguments the way the MCP
 * endpoint would.
 *
 * Two types are flow, not actions: `if` (conditions in the language of
 * triggers' filters, then a `then` or an `else` list of steps) and `wait`
 * (a duration or a time). They live in the same catalogue so saves, the dry
 * run and automations://actions describe them from the same schemas; the
 * runner walks them itself (runner.ts) and never hands them to
 * prepareAction.
 */
import * as v from "valibot";
import type { ActorContext } from "../../core/context";
import { described } from "../../core/fields";
import { jsonBounds, publishedAs } from "../../core/json-value";
import { AppError } from "../../core/errors";
import { ROLES } from "../../core/roles";
import { authorize } from "../../core/scopes";
import type { ToolDef } from "../../mcp/define";
import type { AutomationAction } from "./tables";

type ActionType = AutomationAction["type"];

/** Steps that direct the run rather than act: the runner and the dry run walk them. */
export const FLOW_TYPES = new Set<ActionType>(["if", "wait"]);

/** How deep `if` steps nest, how many steps an automation holds in all, and how long its waits may add up to. */
export const MAX_DEPTH = 3;
export const MAX_STEPS = 50;
export const MAX_WAIT_DAYS = 90;
/** How often an untilChanged wait reads its field again. */
export const WATCH_MINUTES = 5;
const MAX_WAIT_MS = MAX_WAIT_DAYS * 86_400_000;
const DURATION_RE = /^(\d{1,4})\s*(m|h|d|w)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/** A wait's `for` in milliseconds ("30m", "12h", "2d", "1w"), or null when it is not a duration of at most MAX_WAIT_DAYS. */
export function durationMs(x: unknown): number | null {
  const m = typeof x === "string" ? DURATION_RE.exec(x.trim()) : null;
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
  return ms >= 60_000 && ms <= MAX_WAIT_MS ? ms : null;
}

const PATH_RE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;
/** One test on a dotted path: trigger filters, an automation's conditions and `if` steps share it. */
export const conditionSchema = v.strictObject({
  path: v.pipe(v.string(), v.maxLength(200), v.regex(PATH_RE, "must be a dotted path such as trigger.data.postType")),
  op: v.picklist(["eq", "neq", "in", "contains", "exists", "gt", "lt"]),
  value: v.optional(
    described(
      publishedAs(v.pipe(v.unknown(), jsonBounds()), ["string", "number", "boolean", "array"]),
      "what path's value is compared with: a list for in; false with exists means absent",
    ),
  ),
});

/** Toolsets whose writes no automation may call: no automation edits automations or webhooks. */
export const BLOCKED_TOOLSETS = new Set(["automations", "webhooks"]);

/**
 * The chat tool call a post_chat_message action makes: chat_conversations_reply
 * (the visitor sees it live) or, with internal: true, chat_conversations_add_note.
 * The conversation is with.conversationId (its number), else the trigger's
 * conversation when the trigger is a chat event.
 */
export function chatCall(
  w: Record<string, unknown>,
  trigger: Record<string, unknown> | null,
): { tool: string; args: Record<string, unknown> } {
  const entity = trigger?.entity as { type?: unknown; id?: unknown } | null | undefined;
  const fromEvent = entity && entity.type === "chat_conversation" ? entity.id : undefined;
  const id = w.conversationId ?? fromEvent;
  const internal = w.internal === true;
  const args: Record<string, unknown> = { id, body: w.text };
  if (!internal && w.status !== undefined && w.status !== null && w.status !== "") args.status = w.status;
  return { tool: internal ? "chat_conversations_add_note" : "chat_conversations_reply", args };
}

const EMAIL_RE = /^[^\s@<>,;]+@[^\s@<>,;]+\.[^\s@<>,;]+$/;

/** A comma-separated string or a list, as trimmed addresses. */
export function emailList(x: unknown): string[] {
  return (Array.isArray(x) ? x : String(x ?? "").split(",")).map((s) => String(s).trim()).filter(Boolean);
}

/** A refused value as the message quotes it: whole, or its size when too long to quote (never cut mid-word). */
function shown(x: unknown): string {
  const s = JSON.stringify(x) ?? String(x);
  return s.length <= 200 ? s : `a value of ${s.length} characters`;
}

/** Text from a template may arrive as a number or a boolean (`{{trigger.data.total}}`); it is written as text. */
const textLike = (message: string) => v.union([v.string(), v.number(), v.boolean()], message);
const integer = (message: string) => v.pipe(v.number(message), v.integer(message), v.minValue(1, message));

const sendEmail = v.object({
  to: v.pipe(
    v.union([v.string(), v.array(v.string())], "must be 1 to 20 email addresses (a list or a comma-separated string)"),
    v.description('1 to 20 email addresses: a list, or one string separated by commas ("a@x.com, b@x.com").'),
    v.check(
      (x) => {
        const to = emailList(x);
        return to.length >= 1 && to.length <= 20 && to.every((a) => EMAIL_RE.test(a));
      },
      (i) => `must be 1 to 20 email addresses; got ${shown(i.input)}`,
    ),
  ),
  subject: v.pipe(
    textLike("must be text"),
    v.description("The subject line; line breaks become spaces, at most 300 characters are kept."),
    v.check(
      (x) =>
        String(x)
          .replace(/[\r\n]+/g, " ")
          .trim() !== "",
      "must not be empty",
    ),
  ),
  text: v.pipe(
    textLike("must be text"),
    v.description("The plain-text body, at most 100,000 characters."),
    v.check((x) => String(x).trim() !== "", "must not be empty"),
    v.check((x) => String(x).length <= 100_000, "is longer than 100,000 characters"),
  ),
});

const notify = v.pipe(
  v.object({
    title: v.pipe(
      textLike("must be text"),
      v.description("The notification's title."),
      v.check((x) => String(x).trim() !== "", "must not be empty"),
    ),
    body: v.optional(v.nullable(v.pipe(textLike("must be text or null"), v.description("Longer text, optional.")))),
    link: v.optional(
      v.nullable(v.pipe(v.string("must be a path or URL"), v.description("Where it leads (/cards/12)."))),
    ),
    userIds: v.optional(
      v.pipe(
        v.array(integer("must be member ids (whole numbers)"), "must be a list of member ids"),
        v.description("Members to notify, by user id."),
      ),
    ),
    roles: v.optional(
      v.pipe(
        v.array(v.picklist(ROLES, `must each be one of ${ROLES.join(", ")}`), "must be a list of roles"),
        v.description(`Everyone in the company with one of these roles (${ROLES.join(", ")}).`),
      ),
    ),
  }),
  v.check(
    (x) => x.userIds !== undefined || x.roles !== undefined,
    'give userIds (member ids) or roles (e.g. ["owner","admin"])',
  ),
);

const postChatMessage = v.strictObject({
  // null (a template that found nothing) means "not given": the trigger's conversation, or the "No conversation" refusal.
  conversationId: v.nullish(
    v.pipe(
      integer("must be a conversation number"),
      v.description(
        "The conversation's number ({{trigger.data.conversationNumber}}); default: the trigger's conversation on chat events.",
      ),
    ),
  ),
  text: v.pipe(textLike("must be text"), v.description("The message.")),
  internal: v.optional(
    v.pipe(
      v.boolean("must be true or false"),
      v.description("true: an internal note the visitor does not see; default false: a reply."),
    ),
  ),
  status: v.optional(
    v.pipe(
      v.string("must be text"),
      v.description("Replies only: the conversation's status after the reply (chat_conversations_reply's status)."),
    ),
  ),
});

const callWebhook = v.object({
  webhookId: v.pipe(
    integer("must be the id of one of the company's outgoing webhooks"),
    v.description("An outgoing webhook's id (webhooks_list)."),
  ),
  body: v.optional(v.pipe(v.unknown(), v.description("Any JSON, sent as the payload's data."))),
});

const callTool = v.object({
  tool: v.pipe(
    v.string("must name a Plinth tool (e.g. cards_create)"),
    v.description("A Plinth tool's name; not one that changes automations or webhooks."),
  ),
  arguments: v.optional(
    v.pipe(
      v.record(v.string(), v.unknown(), "must be an object"),
      v.description("The tool's arguments, as its input schema (tools/list) says."),
    ),
  ),
});

const steps = (what: string) =>
  v.pipe(
    v.array(v.unknown(), `must be a list of steps ({ type, with })`),
    v.maxLength(MAX_STEPS, `holds at most ${MAX_STEPS} steps`),
    v.description(what),
  );

const ifStep = v.strictObject({
  conditions: v.pipe(
    v.array(conditionSchema, "must be a list of conditions ({ path, op, value })"),
    v.minLength(1, "must hold at least one condition"),
    v.maxLength(20, "holds at most 20 conditions"),
    v.description("All must hold for then to run (paths read trigger., steps. and automation.)."),
  ),
  // biome-ignore lint/suspicious/noThenProperty: the field's name in definitions; a list, never a callable then.
  then: steps("Steps run when every condition holds."),
  else: v.optional(steps("Steps run otherwise; default none.")),
});

const waitStep = v.pipe(
  v.strictObject({
    for: v.optional(
      v.pipe(
        v.string("must be a duration such as 2d"),
        v.description(
          `A duration: minutes, hours, days or weeks ("30m", "12h", "2d", "1w"); at most ${MAX_WAIT_DAYS} days.`,
        ),
        v.check(
          (x) => durationMs(x) !== null,
          (i) => `must be a duration from 1m to ${MAX_WAIT_DAYS}d such as "2d"; got ${shown(i.input)}`,
        ),
      ),
    ),
    until: v.optional(
      v.pipe(
        v.string("must be an ISO 8601 time or a template"),
        v.maxLength(200, "is longer than 200 characters"),
        v.description(
          "A time (ISO 8601) or a template that gives one ({{trigger.data.startsAt}}); past times do not wait.",
        ),
        v.check(
          (x) => /\{\{/.test(x) || !Number.isNaN(Date.parse(x)),
          "must be an ISO 8601 time (2026-03-01T09:00:00Z)",
        ),
      ),
    ),
    untilChanged: v.optional(
      v.pipe(
        v.strictObject({
          tool: v.pipe(
            v.string("must name a read-only Plinth tool (e.g. deals_get)"),
            v.description("A read-only tool that reads the record (deals_get)."),
          ),
          arguments: v.optional(
            v.pipe(
              v.record(v.string(), v.unknown(), "must be an object"),
              v.description("Its arguments ({ id: {{trigger.entity.id}} })."),
            ),
          ),
          path: v.pipe(
            v.string("must be a dotted path into the tool's answer"),
            v.regex(PATH_RE, "must be a dotted path into the tool's answer (stage)"),
            v.description("The field watched, a dotted path into the tool's answer."),
          ),
          timeout: v.pipe(
            v.string("must be a duration such as 7d"),
            v.description(`How long to watch at most ("7d"); then the run goes on with changed: false.`),
            v.check(
              (x) => durationMs(x) !== null,
              (i) => `must be a duration from 1m to ${MAX_WAIT_DAYS}d such as "7d"; got ${shown(i.input)}`,
            ),
          ),
        }),
        v.description(`Until the field changes (checked every ${WATCH_MINUTES} minutes) or the timeout ends.`),
      ),
    ),
  }),
  v.check(
    (x) => [x.for, x.until, x.untilChanged].filter((y) => y !== undefined).length === 1,
    "give one of for (a duration), until (a time) or untilChanged (a field to watch)",
  ),
);

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const SECRET_RE = /^[A-Za-z_][A-Za-z0-9_]{0,39}$/;
export const secretName = SECRET_RE;

const httpStep = v.strictObject({
  method: v.optional(
    v.pipe(v.picklist(HTTP_METHODS, `must be one of ${HTTP_METHODS.join(", ")}`), v.description("Default GET.")),
  ),
  url: v.pipe(
    v.string("must be an http(s) URL"),
    v.maxLength(2000, "is longer than 2,000 characters"),
    v.description("An http(s) URL on a host the company allows (automation_http_get); redirects are not followed."),
  ),
  headers: v.optional(
    v.pipe(
      v.record(v.string(), textLike("must be text"), "must be an object of header names and values"),
      v.check((x) => Object.keys(x).length <= 20, "holds at most 20 headers"),
      v.description("Values may hold {{secrets.NAME}} (automation_http_set); run history shows •••• instead."),
    ),
  ),
  body: v.optional(v.pipe(v.unknown(), v.description("Any JSON, sent as the body (not with GET)."))),
  timeout: v.optional(
    v.pipe(
      v.number("must be seconds from 1 to 30"),
      v.integer("must be seconds from 1 to 30"),
      v.minValue(1, "must be seconds from 1 to 30"),
      v.maxValue(30, "must be seconds from 1 to 30"),
      v.description("Seconds, 1–30; default 10."),
    ),
  ),
});

export interface ActionSpec {
  type: ActionType;
  description: string;
  /** The fields of `with`, checked after templates are filled. */
  with: v.GenericSchema;
  /** The tool whose arguments `with` is (create_card), or that the action calls (post_chat_message). */
  tool?: string;
  example: Record<string, unknown>;
}

export const ACTIONS: Record<ActionType, ActionSpec> = {
  create_card: {
    type: "create_card",
    description: "Creates a card: `with` is cards_create's arguments, checked against that tool's input schema.",
    with: v.record(v.string(), v.unknown(), "must be an object"),
    tool: "cards_create",
    example: { projectId: "WEB", title: "Share “{{trigger.data.title}}”", priority: 2 },
  },
  send_email: {
    type: "send_email",
    description: "Queues a plain-text email through the mail outbox (metered per recipient when the company is).",
    with: sendEmail,
    example: {
      to: "team@example.com",
      subject: "Published: {{trigger.data.title}}",
      text: "Live at /{{trigger.data.slug}}",
    },
  },
  notify: {
    type: "notify",
    description: "An in-app notification (type automation.message) to members by id or by role.",
    with: notify,
    example: { roles: ["owner", "admin"], title: "New order {{trigger.data.orderId}}" },
  },
  post_chat_message: {
    type: "post_chat_message",
    description:
      "A reply to the visitor (chat_conversations_reply) or, with internal: true, a note (chat_conversations_add_note).",
    with: postChatMessage,
    tool: "chat_conversations_reply",
    example: { text: "Thanks, we will answer within the hour." },
  },
  call_webhook: {
    type: "call_webhook",
    description: "POSTs a signed automation.call payload to one of the company's enabled outgoing webhooks.",
    with: callWebhook,
    example: { webhookId: 1, body: { title: "{{trigger.data.title}}" } },
  },
  call_tool: {
    type: "call_tool",
    description: "Calls any Plinth tool (not one that changes automations or webhooks) with the creator's rights.",
    with: callTool,
    example: { tool: "cards_create", arguments: { projectId: "WEB", title: "{{trigger.data.title}}" } },
  },
  http: {
    type: "http",
    description: "Calls an allowed host through the SSRF guard; output { status, headers, body } (64 KB, JSON parsed).",
    with: httpStep,
    example: {
      method: "GET",
      url: "https://api.example.com/orders/{{trigger.data.orderId}}",
      headers: { authorization: "Bearer {{secrets.shop}}" },
    },
  },
  if: {
    type: "if",
    description: "Runs then when every condition holds, else otherwise; its output is { branch }. Nests up to 3 deep.",
    with: ifStep,
    example: {
      conditions: [{ path: "steps.deal.output.total", op: "gt", value: 0 }],
      // biome-ignore lint/suspicious/noThenProperty: an example definition; a list, never a callable then.
      then: [],
      else: [{ type: "send_email", with: { to: "{{trigger.data.email}}", subject: "Following up", text: "Hello" } }],
    },
  },
  wait: {
    type: "wait",
    description: `Pauses the run for a duration, until a time or until a field changes (at most ${MAX_WAIT_DAYS} days in all); survives restarts.`,
    with: waitStep,
    example: { for: "2d" },
  },
};

// ---------------------------------------------------------------------------
// Messages

const MAX_ISSUES = 10;

/**
 * Issues as whole sentences (`with.to must be …`), at most MAX_ISSUES of
 * them and a count of the rest: never cut mid-word.
 */
export function issuesText(issues: readonly v.BaseIssue<unknown>[], prefix = ""): string {
  const seen = new Set<string>();
  for (const i of issues) {
    const path = v.getDotPath(i);
    const message = /^Invalid key: Expected never/.test(i.message)
      ? "is not known"
      : i.input === undefined && /^Invalid (key|type)/.test(i.message)
        ? "is required"
        : i.message;
    // Our messages continue the field's name ("with.to must be …"); valibot's own are sentences ("title: Invalid type: …").
    seen.add(!path ? message : /^[A-Z]/.test(message) ? `${prefix}${path}: ${message}` : `${prefix}${path} ${message}`);
  }
  const all = [...seen];
  const more = all.length - MAX_ISSUES;
  return all.slice(0, MAX_ISSUES).join("; ") + (more > 0 ? `; and ${more} more` : "");
}

// ---------------------------------------------------------------------------
// Checking a step's filled input (the runner and the dry run)

/** A tool call as the MCP endpoint would make it: the tool, its parsed arguments; throws what the endpoint would refuse with. */
export function toolCall(ctx: ActorContext, name: string, args: unknown): { tool: ToolDef; input: unknown } {
  const tool = ctx.deps.catalog.tools.get(name);
  if (!tool) throw new AppError("validation", `There is no tool "${name.slice(0, 80)}".`);
  if (BLOCKED_TOOLSETS.has(tool.toolset) && !tool.readOnly)
    throw new AppError("forbidden", `Automations cannot change automations or webhooks (${tool.name}).`);
  const parsed = v.safeParse(tool.input, args ?? {});
  if (!parsed.success) throw new AppError("validation", `Invalid arguments for ${name}: ${issuesText(parsed.issues)}`);
  authorize(ctx, tool.scope, { write: !tool.readOnly, minRole: tool.minRole });
  return { tool, input: parsed.output };
}

export type Prepared =
  | { kind: "tool"; tool: ToolDef; input: unknown }
  | { kind: "send_email"; to: string[]; subject: string; text: string }
  | { kind: "notify"; title: string; body: string | null; link: string | null; userIds: number[]; roles: string[] }
  | { kind: "call_webhook"; webhookId: number; body: unknown }
  | {
      kind: "http";
      method: (typeof HTTP_METHODS)[number];
      url: string;
      headers: Record<string, string>;
      body: unknown;
      timeoutMs: number;
    };

/**
 * Checks one action's filled input as `ctx` (the creator at run time) and
 * returns what to do. Reads nothing from the database and writes nothing:
 * the runner calls it before acting and the dry run calls it instead of
 * acting, so both refuse the same input with the same message.
 */
export function prepareAction(
  ctx: ActorContext,
  type: ActionType,
  input: Record<string, unknown>,
  trigger: Record<string, unknown> | null,
): Prepared {
  const spec = ACTIONS[type];
  if (FLOW_TYPES.has(type)) throw new AppError("validation", `${type} is a flow step, not an action.`);
  if (type !== "create_card") {
    const r = v.safeParse(spec.with, input);
    if (!r.success) throw new AppError("validation", `${type}: ${issuesText(r.issues, "with.")}.`);
  }
  switch (type) {
    case "create_card":
      return { kind: "tool", ...toolCall(ctx, "cards_create", input) };
    case "call_tool":
      return { kind: "tool", ...toolCall(ctx, String(input.tool), input.arguments ?? {}) };
    case "post_chat_message": {
      // Through the chat tools, as the creator: chat:write checked now, the visitor's stream woken like any agent reply.
      const c = chatCall(input, trigger);
      if (c.args.id === undefined || c.args.id === null)
        throw new AppError(
          "validation",
          "No conversation: give with.conversationId (a conversation number) or trigger on a chat event.",
        );
      return { kind: "tool", ...toolCall(ctx, c.tool, c.args) };
    }
    case "send_email":
      authorize(ctx, "automations:write", { write: true });
      return {
        kind: "send_email",
        to: emailList(input.to),
        subject: String(input.subject)
          .replace(/[\r\n]+/g, " ")
          .trim()
          .slice(0, 300),
        text: String(input.text),
      };
    case "notify":
      authorize(ctx, "automations:write", { write: true });
      return {
        kind: "notify",
        title: String(input.title),
        body: input.body === undefined || input.body === null ? null : String(input.body),
        link: typeof input.link === "string" && input.link ? input.link : null,
        userIds: Array.isArray(input.userIds) ? input.userIds.map(Number) : [],
        roles: Array.isArray(input.roles) ? input.roles.map(String) : [],
      };
    case "call_webhook":
      authorize(ctx, "automations:write", { write: true });
      return { kind: "call_webhook", webhookId: Number(input.webhookId), body: input.body ?? null };
    case "http": {
      authorize(ctx, "automations:write", { write: true });
      const method = (input.method as (typeof HTTP_METHODS)[number] | undefined) ?? "GET";
      if (method === "GET" && input.body !== undefined && input.body !== null)
        throw new AppError("validation", "http: with.body is not sent with GET; use POST, PUT or PATCH.");
      let u: URL;
      try {
        u = new URL(String(input.url));
      } catch {
        throw new AppError("validation", `http: with.url is not a URL; got ${shown(input.url)}.`);
      }
      if (u.protocol !== "https:" && u.protocol !== "http:")
        throw new AppError("validation", "http: with.url must be an http(s) URL.");
      if (u.username || u.password)
        throw new AppError(
          "validation",
          "http: with.url must not carry credentials; use headers with {{secrets.NAME}}.",
        );
      const headers = Object.fromEntries(
        Object.entries((input.headers ?? {}) as Record<string, unknown>).map(([k, x]) => [k, String(x)]),
      );
      return {
        kind: "http",
        method,
        url: u.toString(),
        headers,
        body: input.body ?? null,
        timeoutMs: (typeof input.timeout === "number" ? input.timeout : 10) * 1000,
      };
    }
    default:
      throw new AppError("validation", `${type} is a flow step, not an action.`);
  }
}
