/**
 * What an agent needs to write an automation without guessing: each event
 * type's data shape (what `{{trigger.data.x}}` can read) and each action's
 * `with` fields. Both are made from the schemas the code checks with: the
 * events' payload schemas (checked on every emit) and the action schemas of
 * actions.ts (checked by the runner, the dry run and saves), turned into JSON
 * Schema with an example. Served as the resources automations://events and
 * automations://actions and by the automation_catalog_get tool.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import type { Deps } from "../../core/context";
import { notFound } from "../../core/errors";
import { ACTIONS } from "./actions";

type Schema = Record<string, unknown>;

function jsonSchema(s: v.GenericSchema): Schema {
  const out = toJsonSchema(s, { target: "draft-2020-12", typeMode: "input", errorMode: "ignore" }) as Schema;
  delete out.$schema;
  return out;
}

/** A value shaped like `s`: the first of an enum or union, one item per list, every property. */
export function exampleOf(s: Schema): unknown {
  if (s.examples && Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const alts = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (Array.isArray(alts)) return exampleOf(alts.find((a) => a.type !== "null") ?? alts[0]!);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== "null") : s.type;
  switch (type) {
    case "object": {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(Object.entries(props).map(([k, p]) => [k, exampleOf(p)]));
    }
    case "array":
      return s.items ? [exampleOf(s.items as Schema)] : [];
    case "string":
      return s.format === "date-time" ? "2026-01-15T08:00:00.000Z" : "text";
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return null;
  }
}

/** What every event trigger carries around `data` (runner.ts eventTrigger). */
const TRIGGER_FIELDS = {
  kind: '"event" (or "schedule", "webhook" for those triggers)',
  eventId: "the event's id",
  eventType: "e.g. post.published",
  companyId: "the company's id",
  siteId: "the site's id, or null",
  entity: "{ type, id } of the record the event is about",
  actor: "{ userId, credentialKind, credentialId } of who caused it, or null",
  data: "the event's data, shaped as below",
  at: "when it happened (ISO 8601)",
};

/** Per catalog: the schemas do not change while a process runs, and 177 event types take milliseconds to convert. */
const eventCache = new WeakMap<object, ReturnType<typeof makeEventShapes>>();

export function eventShapes(deps: Deps) {
  let shapes = eventCache.get(deps.catalog);
  if (!shapes) eventCache.set(deps.catalog, (shapes = makeEventShapes(deps)));
  return shapes;
}

function makeEventShapes(deps: Deps) {
  const defs = [...deps.catalog.events.values()];
  return {
    templates: "Templates read {{trigger.<field>}}; an event's data is {{trigger.data.<field>}}.",
    trigger: TRIGGER_FIELDS,
    events: defs
      .sort((a, b) => (a.type < b.type ? -1 : 1))
      .map((e) => {
        const data = jsonSchema(e.payload);
        return { type: e.type, entity: e.entity, description: e.description, data, example: exampleOf(data) };
      }),
  };
}

export function actionShapes(deps: Deps, only?: string) {
  const specs = Object.values(ACTIONS).filter((a) => !only || a.type === only);
  if (only && !specs.length)
    throw notFound(`No action type "${only.slice(0, 100)}"; there are ${Object.keys(ACTIONS).join(", ")}.`);
  return {
    templates:
      "Strings in with may hold {{trigger.data.x}} or {{steps.N.output.x}}: a string that is exactly one template takes the value as it is; " +
      "fields are checked after the templates are filled, by the runner and by automations_test alike.",
    actions: specs.map((a) => {
      const tool = a.tool ? deps.catalog.tools.get(a.tool) : undefined;
      // create_card's `with` is cards_create's arguments: its fields are that tool's.
      const withSchema = a.type === "create_card" && tool ? jsonSchema(tool.input) : jsonSchema(a.with);
      return {
        type: a.type,
        description: a.description,
        with: withSchema,
        ...(tool ? { tool: tool.name, scope: tool.scope } : {}),
        example: a.example,
      };
    }),
  };
}

/** automation_catalog_get: every action, and the events named by eventType (a type or a prefix.*), or only their names. */
export function catalogOf(deps: Deps, i: { eventType?: string; actionType?: string }) {
  const { templates, actions } = actionShapes(deps, i.actionType);
  if (i.eventType === undefined) {
    const events = [...deps.catalog.events.values()]
      .sort((a, b) => (a.type < b.type ? -1 : 1))
      .map((e) => ({ type: e.type, description: e.description }));
    return {
      actions,
      templates,
      events,
      note: "Give eventType (a type or a prefix such as post.*) for data fields and an example.",
    };
  }
  // "*" (every event, as webhooks_create accepts it) or a prefix such as post.*.
  const prefix = i.eventType === "*" ? "" : i.eventType.endsWith(".*") ? i.eventType.slice(0, -1) : null;
  const shapes = eventShapes(deps);
  const events = shapes.events.filter((e) => (prefix !== null ? e.type.startsWith(prefix) : e.type === i.eventType));
  if (!events.length)
    throw notFound(
      `No event type matches "${i.eventType.slice(0, 100)}"; call automation_catalog_get without eventType for the list.`,
    );
  return { actions, templates, trigger: shapes.trigger, events };
}
