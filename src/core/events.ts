/**
 * Domain events: what changed, as typed facts (`post.published`,
 * `card.moved`, `booking.created`), written by the verb that made the change
 * into the outbox table in the same transaction, so an event exists exactly
 * when its change committed. Subscribers (automations, webhooks,
 * notifications) read them in order through src/core/dispatcher.ts.
 *
 * A domain defines its events with defineEvent beside its verbs and lists
 * them on its Domain value (`events: [...]`); emit refuses a type no domain
 * lists, and docs/events.md (the catalog) is generated from the lists. The payload schema is checked on every emit: an event that does
 * not match its definition is a bug in the verb and fails the write, rather
 * than reaching subscribers malformed.
 */
import { sql } from "drizzle-orm";
import * as v from "valibot";
import type { Deps, Principal } from "./context";
import type { Db } from "./db";
import { engine } from "./engine";
import { events } from "./tables";

export interface EventDef<T = Record<string, unknown>> {
  /** `<entity>.<what happened>`, past tense: `post.published`. */
  readonly type: string;
  /** The kind of record `entityId` names: `post`. */
  readonly entity: string;
  /** One line for the catalog, said for someone writing an automation or a webhook receiver. */
  readonly description: string;
  readonly payload: v.GenericSchema<T>;
}

const DEFINED = new Map<string, EventDef<any>>();
const TYPE_RE = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

export function defineEvent<S extends v.GenericSchema<Record<string, unknown>>>(o: {
  type: string;
  entity: string;
  description: string;
  payload: S;
}): EventDef<v.InferOutput<S>> {
  if (!TYPE_RE.test(o.type)) throw new Error(`event type "${o.type}" must read <entity>.<what_happened> in lower case`);
  if (DEFINED.has(o.type)) throw new Error(`event type "${o.type}" is defined twice`);
  const def: EventDef<v.InferOutput<S>> = Object.freeze({ ...o });
  DEFINED.set(o.type, def);
  return def;
}

/** Event types some domain lists (filled by the registry); emit refuses others once any are known. */
const LISTED = new Set<string>();

export function listEvents(types: Iterable<string>): void {
  for (const t of types) LISTED.add(t);
}

/**
 * Who caused an event: a verb's ActorContext fits as is; a visitor on a
 * public page (a survey response, a booking) is only the company.
 */
export interface EventActor {
  deps: Deps;
  company: { id: number };
  principal?: Principal | null;
}

/** An event as subscribers receive it. */
export interface EventRecord<T = Record<string, unknown>> {
  id: number;
  type: string;
  companyId: number;
  siteId: number | null;
  entity: { type: string; id: number };
  /** The person and credential that caused it; null for visitors and the system. */
  actor: { userId: number | null; credentialKind: string | null; credentialId: number | null } | null;
  data: T;
  createdAt: Date;
}

/**
 * Writes `def` into the outbox inside the caller's transaction (`tx`, as
 * audit() takes it). The payload must match the definition.
 */
export async function emit<T>(
  tx: Pick<Db, "insert">,
  actor: EventActor,
  def: EventDef<T>,
  entity: { id: number; siteId?: number | null },
  data: T,
): Promise<void> {
  if (LISTED.size > 0 && !LISTED.has(def.type))
    throw new Error(`event ${def.type} is listed on no domain (events: [...] on its Domain)`);
  const parsed = v.safeParse(def.payload, data);
  if (!parsed.success)
    throw new Error(`event ${def.type} does not match its definition: ${v.summarize(parsed.issues)}`);
  const p = actor.principal ?? null;
  await tx.insert(events).values({
    type: def.type,
    companyId: actor.company.id,
    siteId: entity.siteId ?? null,
    entityType: def.entity,
    entityId: entity.id,
    userId: p?.userId ?? null,
    credentialKind: p?.credential.kind ?? null,
    credentialId: p?.credential.id ?? null,
    data: parsed.output as Record<string, unknown>,
    // PostgreSQL: the writer's transaction id orders the outbox (see tables.ts).
    tx: engine() === "pg" ? (sql`(pg_current_xact_id()::text)::bigint` as unknown as number) : 0,
    createdAt: actor.deps.clock.now(),
  });
}

export function toRecord(row: typeof events.$inferSelect): EventRecord {
  return {
    id: row.id,
    type: row.type,
    companyId: row.companyId,
    siteId: row.siteId,
    entity: { type: row.entityType, id: row.entityId },
    actor:
      row.userId === null && row.credentialId === null
        ? null
        : { userId: row.userId, credentialKind: row.credentialKind, credentialId: row.credentialId },
    data: row.data,
    createdAt: row.createdAt,
  };
}

/**
 * Something that reacts to events: notifications, automations, webhook
 * deliveries. `handle` runs inside the dispatcher's transaction, one event
 * at a time in outbox order, and should only write to the database: its
 * writes and the subscriber's cursor commit together, so a database effect
 * happens exactly once. An effect outside (an HTTP call, an email) goes into
 * a table of its own that a job works through, and is at least once.
 */
export interface Subscriber {
  /** Unique and stable: the cursor is stored under it. */
  name: string;
  /** The event types it wants; "*" for all. */
  types: readonly string[] | "*";
  handle(deps: Deps, event: EventRecord): Promise<void>;
}
