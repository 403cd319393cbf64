/**
 * REST v1 site endpoints: listBlocks, getBranding (with cssVars),
 * getSiteConfig, getNavigation — served with or without a key — and the
 * CssVars derivation itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { blockCatalogEntries } from "../../src/domains/blocks/catalog";
import { cssVarsFor } from "../../src/domains/branding/css-vars";
import { toPublicBranding } from "../../src/domains/branding/public-reads";
import type { TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import type { RestContent } from "../fixtures/rest-content";
import { expectError, restWorld, type Rest } from "./helpers";

let server: TestServer;
let api: Rest;
let c: RestContent;
let key: string;
let shop: string;

beforeAll(async () => ({ server, api, c, key, shop } = await restWorld()));
afterAll(() => server.stop());

const SHOP_BRANDING = {
  primaryColor: "#112233",
  accentColor: "red; } body { display: none",
  headingFont: "Inter",
  logoUrl: "https://cdn.example.com/logo.png",
  borderRadius: "8px",
  buttonStyle: { primaryBg: "#000000", variant: "solid" },
  buttonPresets: [{ id: "5b0c3c1e-8a57-4d43-9d7e-3f0d2c1e9a10", name: "Primary", backgroundColor: "#112233" }],
  typography: { h1: { size: "2rem", lineHeight: "1.2" }, "bad name!": { size: "1px" } },
  darkMode: { backgroundColor: "#000000" },
};
const SHOP_CSS = {
  "--color-primary": "#112233",
  "--font-heading": "Inter",
  "--radius": "8px",
  "--button-primary-bg": "#000000",
  "--button-variant": "solid",
  "--dark-color-background": "#000000",
  "--typography-h1-size": "2rem",
  "--typography-h1-line-height": "1.2",
};

describe("listBlocks", () => {
  test("the shared catalog, with or without a key, for any well-formed site id", async () => {
    const expected = JSON.parse(JSON.stringify(blockCatalogEntries()));
    expect(expected.length).toBeGreaterThan(10);
    const anon = await api.get(`${shop}/blocks`);
    expect(anon.body).toEqual({ success: true, data: expected });
    expect(anon.headers.get("cache-control")).toBe("public, max-age=60");
    const keyed = await api.keyed(`${shop}/blocks`, key);
    expect(keyed.body.data).toEqual(expected);
    expect(keyed.headers.get("cache-control")).toBe("private, no-cache");
    // siteId only scopes keys and limits: an unknown or inactive site still gets the catalog.
    expect((await api.get("/api/v1/sites/424242/blocks")).body.data).toEqual(expected);
    expect((await api.get(`/api/v1/sites/${c.sites.off}/blocks`)).body.data).toEqual(expected);
    for (const b of expected) expect(["basic", "layout", "component", "media", "ecommerce"]).toContain(b.category);
  });
  test("a key of another site is refused even here", async () => {
    expectError(await api.keyed(`/api/v1/sites/${c.sites.blog}/blocks`, key), 401, "Invalid API key");
  });
  test("bad site id → 400", async () => {
    expectError(await api.get("/api/v1/sites/abc/blocks"), 400, "Invalid site ID");
  });
});

describe("getBranding", () => {
  test("only the spec's fields that are set, and cssVars beside data", async () => {
    const r = await api.get(`${shop}/branding`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, data: SHOP_BRANDING, cssVars: SHOP_CSS });
    // Stored junk (non-string textColor, unknown fields) never leaves.
    expect(r.body.data.textColor).toBeUndefined();
    expect(r.body.data.internalNote).toBeUndefined();
    expect(r.body.data.buttonStyle.bogus).toBeUndefined();
  });
  test("a site without a profile: empty branding and empty cssVars", async () => {
    const r = await api.get(`/api/v1/sites/${c.sites.blog}/branding`);
    expect(r.body).toEqual({ success: true, data: {}, cssVars: {} });
  });
  test("keyed and anonymous get the same body", async () => {
    const a = await api.get(`${shop}/branding`);
    const k = await api.keyed(`${shop}/branding`, key);
    expect(k.text).toBe(a.text);
    expect(k.headers.get("etag")).toBe(a.headers.get("etag")!);
  });
  test("inactive or unknown site → 404", async () => {
    expectError(await api.get(`/api/v1/sites/${c.sites.off}/branding`), 404, "Not found");
    expectError(await api.get("/api/v1/sites/999999/branding"), 404, "Not found");
  });
});

describe("getSiteConfig", () => {
  test("the bundle: identity, store, branding, cssVars, navigation", async () => {
    const r = await api.get(`${shop}/config`);
    const nav = (await api.get(`${shop}/navigation`)).body.data;
    expect(r.body).toEqual({
      success: true,
      data: {
        id: c.sites.shop,
        storeEnabled: true,
        name: "Shop",
        domain: "shop.example.com",
        subdomain: "shop",
        description: "The shop",
        customLayout: { header: "wide" },
        branding: SHOP_BRANDING,
        cssVars: SHOP_CSS,
        navigation: nav,
      },
    });
  });
  test("a bare site: nulls, storeEnabled false, empty branding and navigation", async () => {
    const r = await api.get(`/api/v1/sites/${c.sites.blog}/config`);
    expect(r.body.data).toEqual({
      id: c.sites.blog,
      storeEnabled: false,
      name: "Blog",
      domain: null,
      subdomain: null,
      description: null,
      customLayout: null,
      branding: {},
      cssVars: {},
      navigation: [],
    });
  });
  test("store row disabled → storeEnabled false", async () => {
    expect((await api.get(`/api/v1/sites/${c.sites.closed}/config`)).body.data.storeEnabled).toBe(false);
  });
});

describe("getNavigation", () => {
  test("roots with children nested, siblings by sortOrder, orphans left out", async () => {
    const r = await api.get(`${shop}/navigation`);
    const shape = (items: any[]): any[] => items.map((i) => [i.label, i.sortOrder, shape(i.children)]);
    expect(shape(r.body.data)).toEqual([
      ["Home", 0, []],
      ["Blog", 1, []],
      [
        "Shop",
        2,
        [
          ["Hats", 0, [["Caps", 0, []]]],
          ["Shirts", 1, []],
        ],
      ],
      ["Get started", 3, []],
    ]);
    const shopItem = r.body.data[2];
    expect(shopItem.children[1]).toEqual({
      id: c.nav.shirts,
      label: "Shirts",
      href: "/shirts",
      sortOrder: 1,
      openInNewTab: false,
      isButton: false,
      parentId: c.nav.shop,
      description: "All shirts",
      icon: "shirt",
      featuredImage: "https://cdn.example.com/shirts.jpg",
      columnGroup: 1,
      children: [],
    });
    expect(shopItem.children[0].children[0]).toMatchObject({ label: "Caps", openInNewTab: true, parentId: c.nav.hats });
    expect(r.body.data[3]).toMatchObject({ isButton: true, href: "https://example.com/signup", parentId: null });
    expect(JSON.stringify(r.body.data)).not.toContain("Orphan");
  });
  test("keyed works too; the key of another site does not", async () => {
    expect((await api.keyed(`${shop}/navigation`, key)).status).toBe(200);
    const other = (await mintRestKey(server.deps, c.sites.blog)).key;
    expectError(await api.keyed(`${shop}/navigation`, other), 401, "Invalid API key");
  });
});

describe("cssVarsFor", () => {
  test("maps every documented field and nothing unset", () => {
    const vars = cssVarsFor(
      toPublicBranding({
        primaryColor: "#1",
        secondaryColor: "#2",
        accentColor: "#3",
        backgroundColor: "#4",
        textColor: "#5",
        linkColor: "#6",
        linkHoverColor: "#7",
        navBackground: "#8",
        navTextColor: "#9",
        headingFont: "Inter",
        bodyFont: "Open Sans, sans-serif",
        borderRadius: "4px",
        buttonStyle: {
          primaryBg: "a",
          primaryText: "b",
          primaryHoverBg: "c",
          secondaryBg: "d",
          secondaryText: "e",
          secondaryHoverBg: "f",
          borderRadius: "g",
          variant: "outline",
        },
        darkMode: { primaryColor: "p", backgroundColor: "q", textColor: "r", navBackground: "s", navTextColor: "t" },
        typography: { body: { font: "Inter", size: "16px", weight: "400", lineHeight: "1.5", letterSpacing: "0" } },
        logoUrl: "https://x/logo.png",
        navTemplate: "classic",
      }),
    );
    expect(vars).toEqual({
      "--color-primary": "#1",
      "--color-secondary": "#2",
      "--color-accent": "#3",
      "--color-background": "#4",
      "--color-text": "#5",
      "--color-link": "#6",
      "--color-link-hover": "#7",
      "--color-nav-background": "#8",
      "--color-nav-text": "#9",
      "--font-heading": "Inter",
      "--font-body": "Open Sans, sans-serif",
      "--radius": "4px",
      "--button-primary-bg": "a",
      "--button-primary-text": "b",
      "--button-primary-hover-bg": "c",
      "--button-secondary-bg": "d",
      "--button-secondary-text": "e",
      "--button-secondary-hover-bg": "f",
      "--button-radius": "g",
      "--button-variant": "outline",
      "--dark-color-primary": "p",
      "--dark-color-background": "q",
      "--dark-color-text": "r",
      "--dark-color-nav-background": "s",
      "--dark-color-nav-text": "t",
      "--typography-body-font": "Inter",
      "--typography-body-size": "16px",
      "--typography-body-weight": "400",
      "--typography-body-line-height": "1.5",
      "--typography-body-letter-spacing": "0",
    });
    expect(cssVarsFor({})).toEqual({});
  });
  test.each([
    ["red; } body { display: none"],
    ["</style><script>alert(1)</script>"],
    ["a{b}"],
    ["line\nbreak"],
    ["back\\slash"],
    ["   "],
    ["x".repeat(501)],
  ])("leaves out an unsafe or empty value %p", (value) => {
    expect(cssVarsFor({ primaryColor: value, textColor: "#000" })).toEqual({ "--color-text": "#000" });
  });
});
