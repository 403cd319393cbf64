/**
 * Outgoing webhooks and automations, per company.
 *
 * Webhooks: an endpoint (a URL subscribed to event types, with its signing
 * secret), one delivery per (endpoint, event) written by the fan-out
 * subscriber in the dispatcher's transaction, and one attempt row per HTTP
 * try (the delivery log). Deliveries of one entity to one endpoint go out
 * in event order: a delivery waits while an older one of the same
 * entity_key is still pending.
 *
 * HTTP steps: per company, the hosts automations may call and the secrets
 * their headers may use (sealed; only names are ever shown).
 *
 * Automations: the current definition on the row (and every saved version
 * in automation_versions, for rollback), and one run per trigger with each
 * step's input, output and error.
 */
import {
  bool,
  createdAt,
  id,
  index,
  integer,
  json,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "../../core/columns";
import { companies, users } from "../../core/tables";

export const webhookEndpoints = table(
  "webhook_endpoints",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description"),
    /** Event types, `post.*` prefixes, or "*". */
    eventTypes: json<string[]>("event_types").notNull(),
    /** `whsec_<base64>`; kept to sign, shown only when created or rotated. */
    secret: text("secret").notNull(),
    status: text("status").$type<"enabled" | "disabled">().notNull(),
    disabledReason: text("disabled_reason"),
    /** Deliveries in a row that failed for good; reaching the limit disables the endpoint. */
    failureStreak: integer("failure_streak").notNull().default(0),
    lastSuccessAt: time("last_success_at"),
    lastFailureAt: time("last_failure_at"),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("webhook_endpoints_company").on(t.companyId, t.status)],
);

export const webhookDeliveries = table(
  "webhook_deliveries",
  {
    id: id(),
    endpointId: integer("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    companyId: integer("company_id").notNull(),
    /** The outbox event (events are pruned after 30 days; the payload is kept here). */
    eventId: integer("event_id").notNull(),
    eventType: text("event_type").notNull(),
    /** `<entity type>:<entity id>`: deliveries with the same key go out in order. */
    entityKey: text("entity_key").notNull(),
    payload: json<Record<string, unknown>>("payload").notNull(),
    status: text("status").$type<"pending" | "succeeded" | "failed">().notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: time("next_attempt_at"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    deliveredAt: time("delivered_at"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event").on(t.endpointId, t.eventId),
    index("webhook_deliveries_due").on(t.status, t.nextAttemptAt),
    index("webhook_deliveries_entity").on(t.endpointId, t.entityKey, t.status),
    index("webhook_deliveries_company").on(t.companyId, t.id),
  ],
);

export const webhookAttempts = table(
  "webhook_attempts",
  {
    id: id(),
    deliveryId: integer("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: time("attempted_at").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    /** The first 2 KB of the receiver's answer. */
    responseBody: text("response_body"),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("webhook_attempts_delivery").on(t.deliveryId)],
);

export type AutomationTrigger =
  | { type: "event"; eventType: string; filters?: Condition[] }
  | { type: "schedule"; cron: string; timeZone: string }
  | { type: "webhook" };

export interface Condition {
  /** A dotted path into the trigger data: `data.postType`, `siteId`. */
  path: string;
  op: "eq" | "neq" | "in" | "contains" | "exists" | "gt" | "lt";
  value?: unknown;
}

export interface AutomationAction {
  /**
   * An action, or a flow step: `if` (with.conditions, with.then, with.else: lists of steps)
   * and `wait` (with.for: a duration, or with.until: a time).
   */
  type:
    | "create_card"
    | "send_email"
    | "notify"
    | "post_chat_message"
    | "call_webhook"
    | "call_tool"
    | "http"
    | "if"
    | "wait";
  /** Arguments; strings may hold {{path}} templates filled from the trigger and earlier steps. */
  with: Record<string, unknown>;
  /** A name later steps read this step's output by (`{{steps.<id>.output.x}}`), nested steps included. */
  id?: string;
}

export interface AutomationDefinition {
  name: string;
  description: string | null;
  trigger: AutomationTrigger;
  conditions: Condition[];
  actions: AutomationAction[];
}

export const automations = table(
  "automations",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    description: text("description"),
    enabled: bool("enabled").notNull().default(false),
    version: integer("version").notNull(),
    trigger: json<AutomationTrigger>("trigger").notNull(),
    conditions: json<Condition[]>("conditions").notNull(),
    actions: json<AutomationAction[]>("actions").notNull(),
    /** Trigger type, copied out of the JSON so the subscriber and the scheduler find theirs by index. */
    triggerType: text("trigger_type").notNull(),
    eventType: text("event_type"),
    nextRunAt: time("next_run_at"),
    /** Incoming webhook trigger: the public path token and the Standard Webhooks secret senders sign with. */
    hookToken: text("hook_token"),
    hookSecret: text("hook_secret"),
    /** Whose rights the actions run with (re-checked at every run). */
    createdByUserId: integer("created_by_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    credentialKind: text("credential_kind").notNull(),
    credentialId: integer("credential_id").notNull(),
    scopes: json<string[]>("scopes").notNull(),
    requireCmsApproval: bool("require_cms_approval").notNull().default(false),
    lastRunAt: time("last_run_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("automations_name").on(t.companyId, t.name),
    index("automations_event").on(t.companyId, t.enabled, t.eventType),
    index("automations_due").on(t.enabled, t.nextRunAt),
    uniqueIndex("automations_hook").on(t.hookToken),
  ],
);

export const automationVersions = table(
  "automation_versions",
  {
    id: id(),
    automationId: integer("automation_id")
      .notNull()
      .references(() => automations.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    definition: json<AutomationDefinition>("definition").notNull(),
    note: text("note"),
    createdByUserId: integer("created_by_user_id"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("automation_versions_n").on(t.automationId, t.version)],
);

export interface StepRecord {
  /** The top-level step this is, or is inside of. */
  index: number;
  /** Nested steps: where the step is (`actions[1].with.then[0]`). */
  path?: string;
  id?: string;
  type: string;
  status: "succeeded" | "failed" | "skipped" | "waiting";
  /** An `if` step: the branch that ran. */
  branch?: "then" | "else";
  /** A `wait` step: when it was to end (it ended at finishedAt). */
  waitUntil?: string;
  input: unknown;
  output: unknown;
  error: string | null;
  startedAt: string;
  /** null while a wait step waits. */
  finishedAt: string | null;
}

export const RUN_STATUSES = ["queued", "running", "waiting", "succeeded", "failed", "skipped"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const automationRuns = table(
  "automation_runs",
  {
    id: id(),
    automationId: integer("automation_id")
      .notNull()
      .references(() => automations.id, { onDelete: "cascade" }),
    companyId: integer("company_id").notNull(),
    version: integer("version").notNull(),
    status: text("status").$type<RunStatus>().notNull(),
    /** What started it: `{ kind: "event" | "schedule" | "webhook" | "manual", eventId?, eventType?, data }`. */
    trigger: json<Record<string, unknown>>("trigger").notNull(),
    /** Automation ids of the runs whose actions led here (loop protection). */
    chain: json<number[]>("chain").notNull(),
    steps: json<StepRecord[]>("steps").notNull(),
    /** The step the next attempt starts at (a retry starts at the failed one). */
    startStep: integer("start_step").notNull().default(0),
    /**
     * Where inside the steps the next attempt starts, when that is deeper than a top-level step:
     * a list of indexes and branch names (`[1, "then", 0]`), set by a wait or a failure inside an `if`.
     */
    cursor: json<(number | string)[]>("cursor"),
    /** A waiting run: when the job runner resumes it (the claim moves it to running once). */
    resumeAt: time("resume_at"),
    /**
     * Incoming webhook runs: `hook:<webhook-id>`, so a sender's retry makes no second run.
     * Replays: `replay:<run id>`, so a run is replayed once however many calls race.
     */
    dedupeKey: text("dedupe_key"),
    /** The run this one replays (automation_runs_replay): its trigger, on the automation's current version. */
    replayOf: integer("replay_of"),
    error: text("error"),
    attempts: integer("attempts").notNull().default(0),
    leaseUntil: time("lease_until"),
    createdAt: createdAt(),
    startedAt: time("started_at"),
    finishedAt: time("finished_at"),
  },
  (t) => [
    index("automation_runs_automation").on(t.automationId, t.id),
    index("automation_runs_status").on(t.status, t.id),
    index("automation_runs_company").on(t.companyId, t.id),
    index("automation_runs_resume").on(t.status, t.resumeAt),
    uniqueIndex("automation_runs_dedupe").on(t.automationId, t.dedupeKey),
  ],
);

export const automationHttp = table(
  "automation_http",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** Host names http steps may call: `api.example.com`, or `*.example.com` for its subdomains. */
    hosts: json<string[]>("hosts").notNull(),
    /** Name → sealed value (src/core/sealed.ts), read as {{secrets.NAME}} in http headers only. */
    secrets: json<Record<string, string>>("secrets").notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("automation_http_company").on(t.companyId)],
);
