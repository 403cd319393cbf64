/**
 * docs/events.md, the event catalog, generated from the domains' `events`
 * lists (`make docs`); a test compares the file with this output.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { EventDef } from "./events";

type Schema = Record<string, unknown>;

function typeOf(s: Schema): string {
  if (Array.isArray(s.enum)) return (s.enum as unknown[]).map((e) => JSON.stringify(e)).join(" \\| ");
  if (Array.isArray(s.anyOf)) return (s.anyOf as Schema[]).map(typeOf).join(" \\| ");
  if (s.type === "array") return `${s.items ? typeOf(s.items as Schema) : "any"}[]`;
  if (Array.isArray(s.type)) return (s.type as string[]).join(" \\| ");
  return typeof s.type === "string" ? s.type : "any";
}

function fields(def: EventDef<any>): string[] {
  const schema = toJsonSchema(def.payload, { errorMode: "ignore" }) as Schema;
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[]) ?? []);
  const names = Object.keys(props);
  if (!names.length) return ["No payload fields.", ""];
  return [
    "| Field | Type | Always | Notes |",
    "|---|---|---|---|",
    ...names.map(
      (n) =>
        `| \`${n}\` | ${typeOf(props[n]!)} | ${required.has(n) ? "yes" : "no"} | ${String(props[n]!.description ?? "").replace(/\|/g, "\\|")} |`,
    ),
    "",
  ];
}

export function renderEventsDoc(domains: readonly { name: string; title: string; events?: EventDef<any>[] }[]): string {
  const out = [
    "# Event catalog",
    "",
    "Generated from the code by `make docs`; do not edit. How events are written,",
    "delivered and retried: [docs/events-delivery.md](events-delivery.md).",
    "",
    "Every event carries `id`, `type`, `companyId`, `siteId` (or null), `entity`",
    "(`{type, id}`), `actor` (`{userId, credentialKind, credentialId}`, or null for",
    "visitors and the system), `createdAt`, and the `data` below.",
    "",
  ];
  const listed = domains.filter((d) => d.events?.length);
  if (!listed.length) out.push("No domain emits events yet.", "");
  for (const d of listed) {
    out.push(`## ${d.title} (\`${d.name}\`)`, "");
    for (const e of [...d.events!].sort((a, b) => (a.type < b.type ? -1 : 1)))
      out.push(`### \`${e.type}\``, "", `${e.description} Entity: \`${e.entity}\`.`, "", ...fields(e));
  }
  return out.join("\n");
}
