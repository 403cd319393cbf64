/**
 * The event types some domain lists (the same lists docs/events.md is made
 * from), read from the domain list at call time: webhooks and automations
 * refuse a type nobody emits, so a typo does not subscribe to silence.
 */
import type { EventDef } from "../../core/events";
import type { Domain } from "../../mcp/define";

let cache: { byType: Map<string, EventDef<any>> } | null = null;

function load() {
  // Required when first asked, not imported: the domain list imports this folder's tools, so a static import would be a cycle.
  const { domains } = require("../index") as { domains: Domain[] };
  if (!cache) cache = { byType: new Map(domains.flatMap((d) => d.events ?? []).map((e) => [e.type, e])) };
  return cache;
}

export function knownEventTypes(): Set<string> {
  return new Set(load().byType.keys());
}

export function eventDef(type: string): EventDef<any> | undefined {
  return load().byType.get(type);
}
