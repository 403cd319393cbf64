/** What domains contribute besides tools is checked when the registry is built. */
import { buildCatalog } from "../../src/mcp/catalog";
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Hono } from "hono";
import { renderEventsDoc } from "../../src/core/events-doc";
import { domains } from "../../src/domains";
import * as v from "valibot";
import { defineEvent } from "../../src/core/events";
import type { Domain } from "../../src/mcp/define";
import { buildRegistry } from "../../src/mcp/registry";

const base = (over: Partial<Domain>): Domain => ({
  name: "fixture",
  title: "Fixture",
  description: "Fixture.",
  tools: [],
  ...over,
});
const made = defineEvent({ type: "widget.made", entity: "widget", description: "Made.", payload: v.object({}) });
const job = { name: "widget.sweep", description: "Sweeps.", everyMs: 60_000, run: async () => {} };
const pages = (prefix: string) => ({ prefix, routes: () => new Hono() });

test("an event listed on two domains is refused", () => {
  expect(() =>
    buildRegistry(buildCatalog([base({ events: [made] }), base({ name: "other", events: [made] })])),
  ).toThrow("event widget.made: listed twice");
});

test("two jobs or two subscribers of one name are refused", () => {
  expect(() => buildRegistry(buildCatalog([base({ jobs: [job] }), base({ name: "other", jobs: [job] })]))).toThrow(
    "job widget.sweep: declared twice",
  );
  const sub = { name: "widget.watch", types: "*" as const, handle: async () => {} };
  expect(() => buildRegistry(buildCatalog([base({ subscribers: [sub, sub] })]))).toThrow(
    "subscriber widget.watch: declared twice",
  );
});

test("public pages need a single free path segment", () => {
  expect(() => buildRegistry(buildCatalog([base({ publicPages: [pages("/approve")] })]))).toThrow(
    "prefix that is already taken",
  );
  expect(() =>
    buildRegistry(
      buildCatalog([base({ publicPages: [pages("/w")] }), base({ name: "other", publicPages: [pages("/w")] })]),
    ),
  ).toThrow("already taken");
  expect(() => buildRegistry(buildCatalog([base({ publicPages: [pages("/w/x")] })]))).toThrow(
    "one lower-case path segment",
  );
  expect(() => buildRegistry(buildCatalog([base({ publicPages: [pages("/w")] })]))).not.toThrow();
});

test("docs/events.md is up to date (regenerate with `make docs`)", () => {
  expect(readFileSync(join(import.meta.dir, "../../docs/events.md"), "utf8")).toBe(renderEventsDoc(domains));
});

test("the catalog shows each event's payload fields", () => {
  const doc = renderEventsDoc([
    {
      name: "fixture",
      title: "Fixture",
      events: [
        made,
        defineEvent({
          type: "widget.moved",
          entity: "widget",
          description: "Moved to another shelf.",
          payload: v.object({ from: v.number(), to: v.nullable(v.number()), note: v.optional(v.string()) }),
        }),
      ],
    },
  ]);
  expect(doc).toContain("### `widget.moved`\n\nMoved to another shelf. Entity: `widget`.");
  expect(doc).toContain("| `from` | number | yes |");
  expect(doc).toContain("| `note` | string | no |");
});
