/** Brand profiles, messaging, contrast and audit tools on a real migrated store. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditBranding } from "../../src/domains/branding/brand-audit";
import { contrastRatio } from "../../src/domains/branding/contrast";
import { getPublicBranding } from "../../src/domains/branding/public-reads";
import { brandingDomain, readDefaultBrand } from "../../src/domains/branding/tools";
import { sites } from "../../src/domains/sites/tables";
import { call as callAs, errorOf, makeWorld, type World } from "../store/world";

let w: World;
const call = (name: string, args: Record<string, unknown>) => callAs(brandingDomain, w.ctx(), name, args);
/** Updates, checks the compact echo (contrast warnings aside: tested below), and returns the whole profile as read back. */
const update = async (branding: Record<string, unknown>, siteId = w.siteId) => {
  const { warnings: _warnings, ...echo } = await call("branding_update_profile", { siteId, branding });
  const profile = await call("branding_get_profile", { siteId });
  expect(echo).toEqual({
    siteId,
    status: "saved",
    fields: Object.keys(profile.branding),
    buttonPresets: (profile.branding.buttonPresets ?? []).map((p: any) => ({ id: p.id, name: p.name })),
    updatedAt: profile.updatedAt,
  });
  return profile;
};
const clear = async (fields: string[], siteId = w.siteId) => {
  await call("branding_clear_fields", { siteId, fields });
  return call("branding_get_profile", { siteId });
};

beforeAll(async () => {
  w = await makeWorld();
});
afterAll(() => w.close());

describe("branding profiles", () => {
  test("a site without a profile reads as defaults", async () => {
    const p = await call("branding_get_profile", { siteId: w.site2Id });
    expect(p).toMatchObject({ siteId: w.site2Id, branding: {}, cssVars: {}, updatedAt: null });
    expect(p.effective).toEqual({
      primaryColor: "#2563eb",
      secondaryColor: "#1e40af",
      accentColor: "#f59e0b",
      backgroundColor: "#ffffff",
      textColor: "#111827",
    });
  });

  test("updates merge, normalise colours, and show at once in REST's branding and cssVars", async () => {
    const v0 = await w.contentVersion(w.siteId);
    await update({
      primaryColor: "#0F766E",
      headingFont: "'Playfair Display', serif",
      buttonStyle: { primaryBg: "#0f766e", primaryText: "#FFF" },
      typography: { h1: { size: "3rem", weight: "700" } },
    });
    const p = await update({
      textColor: "#222",
      buttonStyle: { primaryHoverBg: "#115e59" },
      typography: { h1: { lineHeight: "1.1" }, body: { size: "1rem" } },
    });
    expect(await w.contentVersion(w.siteId)).toBe(v0 + 2);
    expect(p.branding).toEqual({
      primaryColor: "#0f766e",
      textColor: "#222222",
      headingFont: "'Playfair Display', serif",
      buttonStyle: { primaryBg: "#0f766e", primaryText: "#ffffff", primaryHoverBg: "#115e59" },
      typography: { h1: { size: "3rem", weight: "700", lineHeight: "1.1" }, body: { size: "1rem" } },
    });
    expect(p.effective).toMatchObject({ primaryColor: "#0f766e", backgroundColor: "#ffffff", textColor: "#222222" });
    expect(p.cssVars).toMatchObject({
      "--color-primary": "#0f766e",
      "--font-heading": "'Playfair Display', serif",
      "--typography-h1-line-height": "1.1",
      "--button-primary-hover-bg": "#115e59",
    });
    // What REST reads is the same data.
    expect(await getPublicBranding(w.deps, w.siteId)).toEqual(p.branding);
  });

  test("null clears back to the default, nested and top level", async () => {
    const p = await update({
      textColor: null,
      buttonStyle: { primaryText: null },
      typography: { body: null, h1: { weight: null } },
    });
    expect(p.branding.textColor).toBeUndefined();
    expect(p.effective.textColor).toBe("#111827");
    expect(p.branding.buttonStyle).toEqual({ primaryBg: "#0f766e", primaryHoverBg: "#115e59" });
    expect(p.branding.typography).toEqual({ h1: { size: "3rem", lineHeight: "1.1" } });
    expect(p.cssVars["--color-text"]).toBeUndefined();
  });

  test("button presets get stable uuids and are patched by id", async () => {
    const a = await update({
      buttonPresets: [
        { name: "Primary", backgroundColor: "#0f766e", color: "#ffffff", paddingX: "1.5rem" },
        { name: "Ghost", color: "#0f766e" },
      ],
    });
    const [p1, p2] = a.branding.buttonPresets;
    expect(p1.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(p2.id).not.toBe(p1.id);
    const b = await update({
      buttonPresets: [
        { id: p1.id, paddingX: "2rem", textTransform: "uppercase" },
        { name: "Outline", color: "#111111" },
      ],
    });
    expect(b.branding.buttonPresets.map((p: any) => p.id)).toEqual([p1.id, p2.id, expect.any(String)]);
    expect(b.branding.buttonPresets[0]).toEqual({
      id: p1.id,
      name: "Primary",
      backgroundColor: "#0f766e",
      color: "#ffffff",
      paddingX: "2rem",
      textTransform: "uppercase",
    });
    const unknown = await errorOf(() =>
      update({ buttonPresets: [{ id: "7f1c1a52-1b1a-4c1e-9a1a-1a1a1a1a1a1a", name: "X" }] }),
    );
    expect(unknown.message).toContain("omit id");
    expect((await errorOf(() => update({ buttonPresets: [{ color: "#000000" }] }))).message).toContain("needs a name");
    // Clearing one preset by id, and a field of another.
    const c = await clear([`buttonPresets.${p2.id}`, `buttonPresets.${p1.id}.paddingX`]);
    expect(c.branding.buttonPresets.map((p: any) => p.id)).toEqual([p1.id, b.branding.buttonPresets[2].id]);
    expect(c.branding.buttonPresets[0].paddingX).toBeUndefined();
  });

  test("branding_clear_fields takes paths and refuses unknown ones", async () => {
    await update({
      darkMode: { backgroundColor: "#0b0b0b", textColor: "#eeeeee" },
      logoUrl: "https://cdn.example.com/logo.svg",
    });
    const r = await clear(["darkMode.textColor", "typography.h1.size", "logoUrl"]);
    expect(r.branding.darkMode).toEqual({ backgroundColor: "#0b0b0b" });
    expect(r.branding.typography).toEqual({ h1: { lineHeight: "1.1" } });
    expect(r.branding.logoUrl).toBeUndefined();
    for (const path of [
      "nope",
      "darkMode.linkColor",
      "typography.h1.colour",
      "primaryColor.x",
      "buttonPresets.not-an-id",
      "__proto__",
      "constructor.prototype",
    ]) {
      const e = await errorOf(() => call("branding_clear_fields", { siteId: w.siteId, fields: [path] }));
      expect([path, e.code]).toEqual([path, "validation"]);
    }
  });

  test("the spec's shape is enforced exactly, and CSS values cannot break out", async () => {
    const bad: Record<string, unknown>[] = [
      { primaryColor: "red" },
      { primaryColor: "#12345" },
      { primaryColour: "#123456" },
      { buttonStyle: { primaryBg: "#fff", shadow: "1px" } },
      { headingFont: "Inter; } body { display: none" },
      { borderRadius: "4px</style><script>alert(1)</script>" },
      { bodyFont: "url(javascript:alert(1))" },
      { typography: { "h1 { color": { size: "1rem" } } },
      { typography: { H1: { size: "1rem" } } },
      { logoUrl: "javascript:alert(1)" },
      { faviconUrl: "//evil.example/f.ico" },
      { navTemplate: "classic; drop" },
      { logoText: "" },
      { darkMode: { textColor: 123 } },
      { buttonPresets: [{ id: "not-a-uuid", name: "x" }] },
      { typography: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`e${i}`, { size: "1rem" }])) },
    ];
    for (const b of bad) {
      const e = await errorOf(() => update(b));
      expect([JSON.stringify(b), e.code]).toEqual([JSON.stringify(b), "validation"]);
    }
    expect((await errorOf(() => update({}))).message).toContain("branding is empty");
    // Text fields hold any text: HTML is data, renderers escape it.
    const p = await update({ logoAlt: `<img src=x onerror=alert(1)> "Acme" & co` });
    expect(p.branding.logoAlt).toBe(`<img src=x onerror=alert(1)> "Acme" & co`);
  });

  test("deleting the profile falls back to defaults", async () => {
    await update({ primaryColor: "#000000" }, w.site2Id);
    await call("branding_delete_profile", { siteId: w.site2Id });
    expect((await call("branding_get_profile", { siteId: w.site2Id })).branding).toEqual({});
    expect((await errorOf(() => call("branding_delete_profile", { siteId: w.site2Id }))).code).toBe("not_found");
  });
});

describe("contrast and audit tools", () => {
  test("branding_check_contrast reports WCAG levels and suggestions", async () => {
    const r = await call("branding_check_contrast", { foreground: "#777", background: "#FFFFFF" });
    expect(r).toMatchObject({
      foreground: "#777777",
      background: "#ffffff",
      ratio: 4.48,
      aa: { normal: false, large: true },
      aaa: { normal: false, large: false },
    });
    // Both ways to pass, each named: a new foreground on white, or a new background under #777.
    expect(r.suggestions.aaNormal).toEqual({ foreground: "#767676", background: "#060606" });
    expect(contrastRatio(r.suggestions.aaNormal.background, "#777777")).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(r.suggestions.aaaNormal.foreground, "#ffffff")).toBeGreaterThanOrEqual(7);
    // No background reaches 7:1 under a mid grey (black gives 4.69, white 4.48): null, not a guess.
    expect(r.suggestions.aaaNormal.background).toBeNull();
    expect(r.suggestions.aaLarge).toBeUndefined();
    expect(
      (await errorOf(() => call("branding_check_contrast", { foreground: "blue", background: "#fff" }))).code,
    ).toBe("validation");
  });

  test("the audit checks every implied pair and suggests fixes", async () => {
    const site = w.site2Id;
    await update(
      {
        backgroundColor: "#ffffff",
        textColor: "#777777",
        linkColor: "#ffff00",
        navBackground: "#1e293b",
        navTextColor: "#334155",
        buttonStyle: {
          primaryBg: "#2563eb",
          primaryText: "#ffffff",
          secondaryText: "#1e40af",
          primaryHoverBg: "#93c5fd",
        },
        buttonPresets: [{ name: "Soft", backgroundColor: "#eeeeee", color: "#999999" }],
        darkMode: { backgroundColor: "#0b0b0b", textColor: "#eeeeee", primaryColor: "#1e3a8a" },
        logoUrl: "/logo.svg",
      },
      site,
    );
    const a = await call("branding_audit", { siteId: site });
    const byPair = Object.fromEntries(a.pairs.map((p: any) => [p.pair, p]));
    expect(Object.keys(byPair).sort()).toEqual(
      [
        "text on background",
        "link on background",
        "primary on background",
        "accent on background",
        "nav text on nav background",
        "primary button text on primary button",
        "primary button text on hover",
        "secondary button text on secondary button",
        'button preset "Soft" text on its background',
        "dark mode: text on background",
        "dark mode: primary on background",
      ].sort(),
    );
    expect(byPair["text on background"]).toMatchObject({
      ratio: 4.48,
      kind: "text",
      target: 4.5,
      passes: false,
      suggestion: { foreground: "#767676", background: "#060606" },
      foregroundField: "textColor",
    });
    expect(byPair["link on background"].passes).toBe(false);
    expect(contrastRatio(byPair["link on background"].suggestion.foreground, "#ffffff")).toBeGreaterThanOrEqual(4.5);
    // With a linkColor of its own, the primary colour is still text (headings, prices, outline labels): checked on its own.
    expect(byPair["primary on background"]).toMatchObject({
      foregroundField: "default primaryColor",
      foreground: "#2563eb",
      ratio: 5.17,
      passes: true,
    });
    // The default accent (#f59e0b) is 2.15:1 on white: below even the 3:1 of non-text marks.
    expect(byPair["accent on background"]).toMatchObject({ kind: "non-text", target: 3, ratio: 2.15, passes: false });
    expect(byPair["nav text on nav background"].passes).toBe(false);
    expect(byPair["primary button text on primary button"].passes).toBe(true);
    expect(byPair["primary button text on hover"].passes).toBe(false);
    expect(byPair["secondary button text on secondary button"]).toMatchObject({
      backgroundField: "default secondaryColor",
      passes: false,
    });
    expect(byPair["dark mode: text on background"].passes).toBe(true);
    expect(byPair["dark mode: primary on background"].passes).toBe(false);
    for (const p of a.pairs.filter((x: any) => !x.passes)) {
      expect(contrastRatio(p.suggestion.foreground, p.background)).toBeGreaterThanOrEqual(p.target);
      expect(contrastRatio(p.foreground, p.suggestion.background)).toBeGreaterThanOrEqual(p.target);
    }
    expect(a.summary).toEqual({ checked: 11, passed: 3, failed: 8, skipped: 0, missingAssets: 4 });
    expect(a.missingAssets).toEqual(["logoSquareUrl", "logoRectUrl", "logoIconUrl", "faviconUrl"]);
    expect(a.warnings.join(" ")).toContain("logoAlt");
  });

  test("transparent backgrounds show the page; notations the maths cannot evaluate are skipped", async () => {
    const p = await update(
      {
        buttonPresets: [{ name: "Outline", backgroundColor: "transparent", color: "#AAAAAA" }],
        darkMode: { backgroundColor: "rgb(10, 10, 10)", textColor: "#fff" },
      },
      w.site2Id,
    );
    const outline = p.branding.buttonPresets.find((x: any) => x.name === "Outline");
    expect(outline).toMatchObject({ backgroundColor: "transparent", color: "#aaaaaa" });
    const a = await call("branding_audit", { siteId: w.site2Id });
    const pair = a.pairs.find((x: any) => x.pair === 'button preset "Outline" text on its background');
    expect(pair).toMatchObject({
      background: "#ffffff",
      backgroundField: `buttonPresets.${outline.id}.backgroundColor (transparent, shows #ffffff)`,
      passes: false,
    });
    expect(a.skipped).toContainEqual({
      pair: "dark mode: text on background",
      reason: expect.stringContaining("darkMode.backgroundColor is rgb(10, 10, 10)"),
    });
    // Top-level colours stay hex-only, as the spec says.
    expect((await errorOf(() => update({ backgroundColor: "transparent" }, w.site2Id))).code).toBe("validation");
    expect((await errorOf(() => update({ buttonStyle: { primaryBg: "rgb(1,2,3); x" } }, w.site2Id))).code).toBe(
      "validation",
    );
  });

  test("a stored value from before a rule existed is named, and can be cleared", async () => {
    await w.deps.store.query("UPDATE brand_profiles SET data = ? WHERE site_id = ?", [
      JSON.stringify({ primaryColor: "blue", textColor: "#111111" }),
      w.site2Id,
    ]);
    expect((await call("branding_get_profile", { siteId: w.site2Id })).branding).toEqual({
      primaryColor: "blue",
      textColor: "#111111",
    });
    expect((await call("branding_audit", { siteId: w.site2Id })).skipped).toContainEqual({
      pair: "link on background",
      reason: expect.stringContaining("primaryColor is blue"),
    });
    const e = await errorOf(() => update({ textColor: "#000000" }, w.site2Id));
    expect(e.message).toContain("invalid field primaryColor");
    expect((await clear(["primaryColor"], w.site2Id)).branding).toEqual({ textColor: "#111111" });
  });

  test("pairs without a foreground are skipped, not guessed; defaults are audited", () => {
    const a = auditBranding({});
    expect(a.pairs.map((p) => [p.pair, p.passes])).toEqual([
      ["text on background", true],
      ["link on background", true],
      ["accent on background", false], // the spec's default amber on white: 2.15:1
    ]);
    expect(a.skipped.map((s) => s.pair)).toEqual([
      "primary button text on primary button",
      "secondary button text on secondary button",
    ]);
    expect(a.missingAssets).toEqual(["logoUrl", "logoSquareUrl", "logoRectUrl", "logoIconUrl", "faviconUrl"]);
    const dark = auditBranding({ darkMode: { textColor: "#ffffff" } });
    expect(dark.skipped.map((s) => s.reason)).toContain("darkMode.backgroundColor not set");
  });
});

describe("primary and accent pairs; contrast warnings on write", () => {
  /** A site of its own per test, with no profile yet. */
  const freshSite = async () =>
    (await w.deps.db.insert(sites).values({ companyId: w.companyId, name: "Fresh" }).returning())[0]!.id;
  const write = (siteId: number, branding: Record<string, unknown>) =>
    call("branding_update_profile", { siteId, branding });

  test("a primary of 1.54:1 is flagged by the audit, and the update that sets it says so but still saves it", async () => {
    const site = await freshSite();
    const echo = await write(site, { linkColor: "#1d4ed8", primaryColor: "#b8d2f8" });
    expect(echo.warnings).toEqual([
      "primary on background: primaryColor #b8d2f8 on default backgroundColor #ffffff is 1.54:1, below WCAG AA 4.5:1 for text; " +
        "nearest passing foreground primaryColor #2172e9, or background backgroundColor #595959.",
    ]);
    expect((await call("branding_get_profile", { siteId: site })).branding.primaryColor).toBe("#b8d2f8");
    const a = await call("branding_audit", { siteId: site });
    expect(a.pairs.find((p: any) => p.pair === "primary on background")).toMatchObject({
      ratio: 1.54,
      kind: "text",
      target: 4.5,
      passes: false,
      suggestion: { foreground: "#2172e9", background: "#595959" },
    });
    expect(a.target).toBe("WCAG 2.x AA: 4.5:1 for text pairs, 3:1 for non-text pairs (accent)");
  });

  test("without a linkColor the primary colour is the link colour: one pair, one warning", async () => {
    const site = await freshSite();
    const echo = await write(site, { primaryColor: "#b8d2f8" });
    expect(echo.warnings).toEqual([
      expect.stringMatching(/^link on background: primaryColor #b8d2f8 on default backgroundColor #ffffff is 1\.54:1/),
    ]);
    expect((await call("branding_audit", { siteId: site })).pairs.map((p: any) => p.pair)).not.toContain(
      "primary on background",
    );
  });

  test("only failures the change brought are warned about; a passing change has no warnings key", async () => {
    const site = await freshSite();
    // The default accent already fails 3:1 on white; setting a font does not repeat that.
    const font = await write(site, { headingFont: "Georgia, serif" });
    expect(font.warnings).toBeUndefined();
    expect((await write(site, { primaryColor: "#1e3a8a", accentColor: "#b45309" })).warnings).toBeUndefined();
    const accent = await write(site, { accentColor: "#fde68a" });
    expect(accent.warnings).toEqual([
      "accent on background: accentColor #fde68a on default backgroundColor #ffffff is 1.25:1, below WCAG AA 3:1 for non-text marks; " +
        "nearest passing foreground accentColor #b49103, or background backgroundColor #848484.",
    ]);
    // A second, unrelated write keeps quiet about the accent it did not touch.
    expect((await write(site, { logoText: "Fresh" })).warnings).toBeUndefined();
  });

  test("a new background is checked against every colour drawn on it, with both fixes named", async () => {
    const site = await freshSite();
    const echo = await write(site, { backgroundColor: "#111111" });
    // Default text and the default primary (as links) fail on near-black; the amber accent passes 3:1 there.
    expect(echo.warnings).toEqual([
      "text on background: default textColor #111827 on backgroundColor #111111 is 1.06:1, below WCAG AA 4.5:1 for text; " +
        "nearest passing foreground textColor #5e7bb9, or background backgroundColor #818181.",
      "link on background: default primaryColor #2563eb on backgroundColor #111111 is 3.65:1, below WCAG AA 4.5:1 for text; " +
        "nearest passing foreground primaryColor #3f76ed, or background backgroundColor #f0f0f0.",
    ]);
    const buttons = await write(site, {
      backgroundColor: null,
      buttonStyle: { primaryText: "#ffffff", primaryBg: "#93c5fd" },
    });
    // Back on white, the default amber accent fails again: its background changed, so that is said too.
    expect(buttons.warnings).toEqual([
      expect.stringMatching(
        /^accent on background: default accentColor #f59e0b on default backgroundColor #ffffff is 2\.15:1, below WCAG AA 3:1/,
      ),
      expect.stringContaining(
        "primary button text on primary button: buttonStyle.primaryText #ffffff on buttonStyle.primaryBg #93c5fd is 1.8:1",
      ),
    ]);
  });

  test("clearing a colour back to its default warns too", async () => {
    const site = await freshSite();
    expect(
      (await write(site, { backgroundColor: "#0b0b0b", textColor: "#f5f5f5", primaryColor: "#93c5fd" })).warnings,
    ).toBeUndefined();
    const r = await call("branding_clear_fields", { siteId: site, fields: ["textColor"] });
    expect(r.fields.sort()).toEqual(["backgroundColor", "primaryColor"]);
    expect(r.warnings).toEqual([
      expect.stringMatching(/^text on background: default textColor #111827 on backgroundColor #0b0b0b is 1\.11:1/),
    ]);
  });
});

describe("brand messaging", () => {
  test("partial updates, null clears, lists replaced and tidied", async () => {
    expect(await call("brand_messaging_get", { siteId: w.siteId })).toMatchObject({
      tagline: null,
      keyMessages: [],
      wordsToAvoid: [],
      updatedAt: null,
    });
    await call("brand_messaging_update", {
      siteId: w.siteId,
      tagline: " Coffee, roasted right. ",
      keyMessages: ["Fresh", " fresh ", "Local", "  "],
    });
    const echo = await call("brand_messaging_update", {
      siteId: w.siteId,
      toneOfVoice: "Warm, plain-spoken.",
      wordsToAvoid: ["cheap"],
    });
    expect(echo).toEqual({
      siteId: w.siteId,
      status: "saved",
      fields: ["tagline", "toneOfVoice", "keyMessages", "wordsToAvoid"],
      updatedAt: expect.any(String),
    });
    const m = await call("brand_messaging_get", { siteId: w.siteId });
    expect(m).toMatchObject({
      tagline: "Coffee, roasted right.",
      toneOfVoice: "Warm, plain-spoken.",
      keyMessages: ["Fresh", "Local"],
      wordsToAvoid: ["cheap"],
    });
    await call("brand_messaging_update", { siteId: w.siteId, tagline: null, keyMessages: [] });
    const cleared = await call("brand_messaging_get", { siteId: w.siteId });
    expect(cleared).toMatchObject({ tagline: null, keyMessages: [], toneOfVoice: "Warm, plain-spoken." });
    expect((await errorOf(() => call("brand_messaging_update", { siteId: w.siteId }))).message).toContain(
      "Nothing to update",
    );
    expect((await errorOf(() => call("brand_messaging_update", { siteId: w.siteId, wordsToAvoid: [""] }))).code).toBe(
      "validation",
    );
    expect(
      (await errorOf(() => call("brand_messaging_update", { siteId: w.siteId, keyMessages: Array(21).fill("x") })))
        .code,
    ).toBe("validation");
    expect(
      (await errorOf(() => call("brand_messaging_update", { siteId: w.siteId, tagline: "x".repeat(201) }))).code,
    ).toBe("validation");
  });
});

describe("brand://default", () => {
  test("is the first active site's profile and messaging, as JSON", async () => {
    const doc = JSON.parse(await readDefaultBrand(w.ctx()));
    expect(doc.siteId).toBe(w.siteId);
    expect(doc.branding.primaryColor).toBe("#0f766e");
    expect(doc.messaging.toneOfVoice).toBe("Warm, plain-spoken.");
    expect(doc.cssVars["--color-primary"]).toBe("#0f766e");
    expect((await errorOf(async () => await readDefaultBrand(w.ctx({ scopes: ["store:read"] })))).code).toBe(
      "forbidden",
    );
  });

  test("branding_get_profile without siteId reads the same primary site: what a multi-company connection uses instead", async () => {
    const doc = JSON.parse(await readDefaultBrand(w.ctx()));
    const viaTool = await call("branding_get_profile", {});
    expect(viaTool.siteId).toBe(doc.siteId);
    expect(viaTool.branding).toEqual(doc.branding);
    expect(viaTool.cssVars).toEqual(doc.cssVars);
  });
});
