/**
 * Approval kinds and staged targets are declared by the domain that owns
 * them (its Domain value: approvalKinds, stagedTargets, approvalSupport)
 * and collected from the domain list; the approvals domain names none of
 * them. The registry refuses, at load, a gated tool whose type no domain
 * declares, a type declared twice, and a staged target naming a tool that
 * is not its own domain's. A new approvable type (a survey) plugs in with
 * its own Domain value alone.
 */
import { buildCatalog } from "../../src/mcp/catalog";
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { catalog } from "../../src/catalog";
import type { ApprovalKind } from "../../src/domains/approvals/kinds";
import { supervision } from "../../src/domains/approvals/staging";
import { defineTool, type Domain } from "../../src/mcp/define";
import { buildRegistry, RegistryError } from "../../src/mcp/registry";
import { openTestStore } from "../db";

const { domains } = catalog;
const tools = domains.flatMap((d) => d.tools);
const SPEC_TYPES = ["post", "pitch_deck", "email_campaign", "block_template", "survey", "booking_page"];

describe("approval kinds come from the domains", () => {
  test("every approval-gated tool has a kind, declared by a domain, with preview, approve and reject", () => {
    const gated = tools.filter((t) => t.approval);
    expect(gated.map((t) => t.name).sort()).toEqual(
      expect.arrayContaining(["block_templates_create", "block_templates_update", "posts_create", "posts_update"]),
    );
    const declared = domains.flatMap((d) => d.approvalKinds ?? []);
    for (const t of gated) {
      expect(SPEC_TYPES).toContain(t.approval!);
      const k = catalog.approvalKinds.get(t.approval!);
      expect(k, `${t.name} gates on ${t.approval} which has no kind`).toBeDefined();
      expect(declared).toContain(k!);
      expect(typeof k!.preview).toBe("function");
      expect(typeof k!.approve).toBe("function");
      expect(typeof k!.reject).toBe("function");
    }
    expect([...catalog.approvalKinds.keys()].sort()).toEqual(declared.map((k) => k.entityType).sort());
    expect(domains.find((d) => d.name === "cms")!.approvalKinds!.map((k) => k.entityType)).toEqual([
      "post",
      "block_template",
    ]);
  });

  test("staged targets name write tools of their own domain, each once; every staged update/delete has one", () => {
    const seen = new Set<string>();
    for (const d of domains)
      for (const target of d.stagedTargets ?? [])
        for (const name of target.tools) {
          const t = d.tools.find((x) => x.name === name);
          expect(t, `${name} is not a tool of ${d.name}`).toBeDefined();
          expect(t!.readOnly).toBe(false);
          expect(seen.has(name)).toBe(false);
          seen.add(name);
          expect(catalog.stagedTargets.get(name)).toBe(target);
          expect(catalog.tools.get(name)).toBe(t);
        }
    // Every update/delete/move of an existing record has a target, so approval can detect it moved on.
    const needing = tools.filter(
      (t) => supervision(t) === "staged" && /_(update|delete|remove|move|reorder|unpublish)$/.test(t.name),
    );
    expect(needing.map((t) => t.name).filter((n) => !seen.has(n))).toEqual([]);
    // Taking live content down is held for approval: those tools have targets too.
    for (const n of ["posts_unpublish", "posts_delete", "products_delete", "products_set_status"])
      expect(seen.has(n)).toBe(true);
  });

  test("support answers each have one owner; the preview's styles add up", async () => {
    const owners = (key: "site" | "credentialRevoked" | "previewCss") =>
      domains.filter((d) => d.approvalSupport?.[key]).map((d) => d.name);
    expect(owners("site")).toEqual(["cms"]);
    expect(owners("credentialRevoked")).toEqual(["accounts"]);
    // Several domains add to the preview's styles (decks: its slides); the core ones are there.
    expect(owners("previewCss")).toEqual(expect.arrayContaining(["branding", "cms"]));
    const store = await openTestStore();
    try {
      const css = await catalog.approvalSupport.previewCss(store.db, null);
      expect(css).toContain(".pb-"); // the cms: styles of rendered blocks
      expect(css).toContain(".ap-content .pb-button-primary{background:#2563eb"); // branding: defaults without a profile
      expect(css).toContain(".bk .bk-slot{"); // bookings: the public booking page's own stylesheet
    } finally {
      await store.close();
    }
  });
});

describe("the registry checks the declarations at load", () => {
  const kind = (entityType: string): ApprovalKind => ({
    entityType,
    label: entityType,
    preview: async () => null,
    approve: async () => ({}),
    reject: async () => {},
  });
  // A type declared by a domain value alone (the real email domain is left out below).
  const campaignTool = defineTool({
    name: "email_campaigns_create",
    toolset: "email",
    scope: "email:write",
    readOnly: false,
    approval: "email_campaign",
    description: "Draft a campaign; a person approves it before it is sent out.",
    input: v.object({ title: v.string() }),
    run: () => ({}),
  });
  // The real email domain declares email_campaign now; these cases stand in a minimal one for it.
  const others = domains.filter((d) => d.name !== "email");
  const email = (extra: Partial<Domain> = {}): Domain => ({
    name: "email",
    title: "Email",
    description: "Campaigns, drafted by agents and approved by people.",
    tools: [campaignTool],
    approvalKinds: [kind("email_campaign")],
    ...extra,
  });

  test("a new approvable type plugs in with its own Domain value alone", () => {
    const r = buildRegistry(buildCatalog([...others, email()]));
    expect(r.byName.get("email_campaigns_create")?.def.approval).toBe("email_campaign");
  });

  test("a gated tool without a kind, a kind declared twice, a target naming another domain's tool: refused, named", () => {
    expect(() => buildRegistry(buildCatalog([...others, email({ approvalKinds: [] })]))).toThrow(RegistryError);
    expect(() => buildRegistry(buildCatalog([...others, email({ approvalKinds: [] })]))).toThrow(
      /email_campaigns_create: gates on email_campaign, but no domain declares an approval kind/,
    );
    expect(() =>
      buildRegistry(buildCatalog([...others, email({ approvalKinds: [kind("email_campaign"), kind("post")] })])),
    ).toThrow(/approval kind post: declared twice/);
    const stray = email({
      stagedTargets: [{ entityType: "email_campaign", tools: ["posts_delete"], current: async () => null }],
    });
    expect(() => buildRegistry(buildCatalog([...others, stray]))).toThrow(
      /names posts_delete, which is not a tool of domain email/,
    );
    // Supervision is for writes: a read that says it is staged is a mistake, named.
    const reading = email({
      tools: [
        campaignTool,
        defineTool({
          name: "email_campaigns_peek",
          toolset: "email",
          scope: "email:read",
          readOnly: true,
          supervised: "staged",
          description: "Reads a campaign; declared staged by mistake.",
          input: v.object({}),
          run: () => ({}),
        }),
      ],
    });
    expect(() => buildCatalog([...others, reading])).toThrow(
      /tool email_campaigns_peek: only write tools are supervised/,
    );
  });
});
