/**
 * Every kind of notification a domain sends is declared on its Domain, so
 * people see it on the preferences page with the domain's defaults instead
 * of the fallback (in-app only, labelled with the raw type). The check reads
 * the notify() calls in src/ and compares them with what the domains declare.
 */
import { expect, test } from "bun:test";
import { Glob } from "bun";
import { join } from "node:path";
import { catalog } from "../../src/catalog";
import type { Deps } from "../../src/core/context";
import { typeDefaults, typeLabel } from "../../src/domains/notifications/types";

const deps = { catalog } as Deps;
const notificationTypes = () => [...catalog.notificationTypes.values()];

const SRC = join(import.meta.dir, "../../src");

/** The literal `type:` of each notify({...}) call (a template like `booking.${kind}` yields its prefix). */
async function sentTypes(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for await (const file of new Glob("**/*.ts").scan(SRC)) {
    const text = await Bun.file(join(SRC, file)).text();
    for (const call of text.split(/\bnotify\((?=deps|ctx\.deps|d,|t\.deps)/).slice(1)) {
      // The notice's own type, not its entity's: the entity is { type, id } and comes after it or not at all.
      const m = call
        .slice(0, 1200)
        .replace(/entity: \{[^}]*\}/g, "")
        .match(/\btype: ([`"])([a-z0-9_.]+)(\$\{)?/);
      if (m) found.set(m[2]! + (m[3] ? "*" : ""), file);
    }
  }
  return found;
}

test("every type passed to notify() is declared by some domain, once", async () => {
  const declared = notificationTypes().map((t) => t.type);
  expect(new Set(declared).size).toBe(declared.length);
  const sent = await sentTypes();
  expect(sent.size).toBeGreaterThan(15);
  const missing = [...sent].filter(([type]) =>
    type.endsWith("*") ? !declared.some((d) => d.startsWith(type.slice(0, -1))) : !declared.includes(type),
  );
  expect(missing).toEqual([]);
});

test("a declared type carries its label and defaults; an undeclared one falls back to in-app only", () => {
  expect(typeLabel(deps, "chat.conversation_assigned")).toBe("A chat was assigned to you");
  expect(typeDefaults(deps, "chat.conversation_assigned")).toEqual({ inApp: true, email: true });
  expect(typeDefaults(deps, "invitation.accepted")).toEqual({ inApp: true, email: false });
  expect(typeLabel(deps, "agent.report_ready")).toBe("agent.report_ready");
  expect(typeDefaults(deps, "agent.report_ready")).toEqual({ inApp: true, email: false });
});
