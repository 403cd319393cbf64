/**
 * The event types some domain lists (the same lists docs/events.md is made
 * from), read from the domain list at call time: webhooks and automations
 * refuse a type nobody emits, so a typo does not subscribe to silence.
 */
import { domains } from "../index";
import type { EventDef } from "../../core/events";

let cache: { byType: Map<string, EventDef<any>> } | null = null;

function load() {
  if (!cache) cache = { byType: new Map(domains.flatMap((d) => d.events ?? []).map((e) => [e.type, e])) };
  return cache;
}

export function knownEventTypes(): Set<string> {
  return new Set(load().byType.keys());
}

export function eventDef(type: string): EventDef<any> | undefined {
  return load().byType.get(type);
}
