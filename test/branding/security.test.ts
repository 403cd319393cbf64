/**
 * Every branding tool refuses a viewer (writes), a credential without the
 * branding scope, a read-only credential (writes) and another company's
 * site, and leaves that site untouched.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brandingDomain } from "../../src/domains/branding/tools";
import { call, errorOf, makeWorld, type World } from "../store/world";

let w: World;

function sample(name: string, siteId: number): Record<string, unknown> {
  const table: Record<string, Record<string, unknown>> = {
    branding_get_profile: { siteId },
    branding_update_profile: { siteId, branding: { primaryColor: "#000000" } },
    branding_clear_fields: { siteId, fields: ["primaryColor"] },
    branding_delete_profile: { siteId },
    branding_check_contrast: { foreground: "#000000", background: "#ffffff" },
    branding_audit: { siteId },
    brand_messaging_get: { siteId },
    brand_messaging_update: { siteId, tagline: "Hi" },
  };
  const args = table[name];
  if (!args) throw new Error(`branding security.test.ts has no sample arguments for ${name}; add them`);
  return args;
}

beforeAll(async () => {
  w = await makeWorld();
  for (const [ctx, siteId] of [
    [w.ctx(), w.siteId],
    [w.ctx({ company: "other" }), w.otherSiteId],
  ] as const) {
    await call(brandingDomain, ctx, "branding_update_profile", { siteId, branding: { primaryColor: "#123456" } });
    await call(brandingDomain, ctx, "brand_messaging_update", { siteId, tagline: "Theirs" });
  }
});
afterAll(() => w.close());

describe("every branding tool", () => {
  test("is declared with a branding scope matching its read-only flag", () => {
    for (const t of brandingDomain.tools)
      expect([t.name, t.scope]).toEqual([t.name, t.readOnly ? "branding:read" : "branding:write"]);
  });

  test("a viewer and a read-only credential may read but not write; other scopes get nothing", async () => {
    for (const ctx of [w.ctx({ role: "viewer" }), w.ctx({ scopes: ["branding:read"] })]) {
      for (const t of brandingDomain.tools) {
        const args = sample(t.name, w.siteId);
        if (t.readOnly) await call(brandingDomain, ctx, t.name, args);
        else
          expect([t.name, (await errorOf(() => call(brandingDomain, ctx, t.name, args))).code]).toEqual([
            t.name,
            "forbidden",
          ]);
      }
    }
    for (const t of brandingDomain.tools) {
      const e = await errorOf(() =>
        call(brandingDomain, w.ctx({ scopes: ["store:*", "sites:write"] }), t.name, sample(t.name, w.siteId)),
      );
      expect([t.name, e.code]).toEqual([t.name, "forbidden"]);
    }
  });

  test("another company's site is not found and stays as it was", async () => {
    const before = await w.contentVersion(w.otherSiteId);
    for (const t of brandingDomain.tools) {
      if (t.name === "branding_check_contrast") continue; // not site-scoped
      const e = await errorOf(() => call(brandingDomain, w.ctx(), t.name, sample(t.name, w.otherSiteId)));
      expect([t.name, e.code]).toEqual([t.name, "not_found"]);
    }
    expect(await w.contentVersion(w.otherSiteId)).toBe(before);
    const theirs = await call(brandingDomain, w.ctx({ company: "other" }), "branding_get_profile", {
      siteId: w.otherSiteId,
    });
    expect(theirs.branding).toEqual({ primaryColor: "#123456" });
  });

  test("malformed arguments are validation errors", async () => {
    for (const t of brandingDomain.tools) {
      // branding_get_profile without siteId reads the primary site (like brand://default).
      if (t.name !== "branding_get_profile")
        expect([t.name, (await errorOf(() => call(brandingDomain, w.ctx(), t.name, {}))).code]).toEqual([
          t.name,
          "validation",
        ]);
      if (t.name === "branding_check_contrast") continue;
      // siteId null names the company default profile where a tool reads or sets it (default.test.ts).
      const nullable = t.name === "branding_get_profile" || t.name === "branding_update_profile";
      for (const siteId of [0, -5, 2.5, "1", ...(nullable ? [] : [null]), 2 ** 60])
        expect([
          t.name,
          (await errorOf(() => call(brandingDomain, w.ctx(), t.name, { ...sample(t.name, w.siteId), siteId }))).code,
        ]).toEqual([t.name, "validation"]);
    }
  });
});
