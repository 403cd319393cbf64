/** Site tools: sites list/get, custom domains (primary mirrored to REST site config), environment variables (secrets never shown). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rows, startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "./world";

let s: TestServer;
let w: World;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
});
afterAll(async () => {
  await s?.stop();
});

const config = async () => ((await (await fetch(`${s.url}/api/v1/sites/${w.siteA}/config`)).json()) as any).data;

describe("sites", () => {
  test("list shows only the company's sites, paginated; get adds domains and counts", async () => {
    const list = await w.ok(w.reader, "sites_list", {});
    expect(list.items.map((x: any) => x.name)).toEqual(["Acme Coffee", "Acme Blog"]);
    expect(list.total).toBe(2);
    expect((await w.ok(w.owner, "sites_list", { limit: 1, offset: 1 })).items.map((x: any) => x.id)).toEqual([
      w.siteA2,
    ]);
    await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Counted" });
    const got = await w.ok(w.owner, "sites_get", { siteId: w.siteA });
    expect(got).toMatchObject({
      id: w.siteA,
      name: "Acme Coffee",
      active: true,
      domains: [],
      counts: { posts: 1, publishedPosts: 0, media: 0 },
    });
    expect(await w.err(w.owner, "sites_get", { siteId: w.siteB })).toStartWith("Not found");
    expect((await w.ok(w.stranger, "sites_list", {})).items.map((x: any) => x.id)).toEqual([w.siteB]);
  });
});

describe("domains", () => {
  test("the first domain is primary and becomes SiteConfig.domain; switching and removing keep one primary", async () => {
    const a = await w.ok(w.owner, "site_domains_add", { siteId: w.siteA, hostname: "WWW.Acme-Coffee.example." });
    expect(a).toMatchObject({ hostname: "www.acme-coffee.example", isPrimary: true, verified: false });
    expect((await config()).domain).toBe("www.acme-coffee.example");
    const b = await w.ok(w.owner, "site_domains_add", { siteId: w.siteA, hostname: "shop.acme-coffee.example" });
    expect(b.isPrimary).toBe(false);
    await w.ok(w.owner, "site_domains_update", { siteId: w.siteA, id: b.id, primary: true });
    expect((await config()).domain).toBe("shop.acme-coffee.example");
    const list = await w.ok(w.owner, "site_domains_list", { siteId: w.siteA });
    expect(list.items.map((d: any) => [d.hostname, d.isPrimary])).toEqual([
      ["www.acme-coffee.example", false],
      ["shop.acme-coffee.example", true],
    ]);
    await w.ok(w.owner, "site_domains_remove", { siteId: w.siteA, id: b.id });
    expect((await config()).domain).toBe("www.acme-coffee.example");
    await w.ok(w.owner, "site_domains_update", { siteId: w.siteA, id: a.id, primary: false });
    expect((await config()).domain).toBeNull();
    const idn = await w.ok(w.owner, "site_domains_add", { siteId: w.siteA, hostname: "café.example" });
    expect(idn.hostname).toBe("xn--caf-dma.example");
  });

  test("bad hostnames are refused; a hostname belongs to one site and says nothing about the other owner", async () => {
    for (const h of [
      "https://x.example/path",
      "localhost",
      "printer.local",
      "10.0.0.1",
      "a..example",
      "-bad.example",
      "x",
      "user@host.example",
      "host.example:8080",
      "<script>.example",
    ])
      expect(await w.err(w.owner, "site_domains_add", { siteId: w.siteA, hostname: h })).toContain("hostname");
    await w.ok(w.stranger, "site_domains_add", { siteId: w.siteB, hostname: "rival.example" });
    const msg = await w.err(w.owner, "site_domains_add", { siteId: w.siteA, hostname: "Rival.example" });
    expect(msg).toBe('Conflict: rival.example is already in use by another site.\n{"path":"hostname"}');
    expect(
      await w.err(w.owner, "site_domains_add", { siteId: w.siteA, hostname: "www.acme-coffee.example" }),
    ).toContain("already a domain of this site");
  });
});

describe("environment variables", () => {
  test("set, list, replace, delete; secrets are never returned and stay secret", async () => {
    expect(await w.ok(w.owner, "site_env_vars_set", { siteId: w.siteA, key: "PUBLIC_GA_ID", value: "G-123" })).toEqual({
      key: "PUBLIC_GA_ID",
      secret: false,
      status: "created",
    });
    await w.ok(w.owner, "site_env_vars_set", { siteId: w.siteA, key: "STRIPE_KEY", value: "sk_live_1", secret: true });
    await w.ok(w.owner, "site_env_vars_set", { siteId: w.siteA, key: "STRIPE_KEY", value: "sk_live_2", secret: false });
    const list = await w.ok(w.reader, "site_env_vars_list", { siteId: w.siteA });
    expect(list.items.map((e: any) => [e.key, e.value, e.secret])).toEqual([
      ["PUBLIC_GA_ID", "G-123", false],
      ["STRIPE_KEY", null, true],
    ]);
    expect(JSON.stringify(list)).not.toContain("sk_live");
    const audit = (await rows(s.deps, "SELECT detail FROM audit_log WHERE action = 'site_env_vars.set'")) as {
      detail: string;
    }[];
    expect(audit.map((a) => a.detail).join(" ")).not.toContain("sk_live");
    expect(await w.ok(w.owner, "site_env_vars_delete", { siteId: w.siteA, key: "PUBLIC_GA_ID" })).toEqual({
      key: "PUBLIC_GA_ID",
      status: "deleted",
    });
    expect(await w.err(w.owner, "site_env_vars_delete", { siteId: w.siteA, key: "PUBLIC_GA_ID" })).toStartWith(
      "Not found",
    );
  });

  test("keys must be UPPER_SNAKE_CASE; values are bounded", async () => {
    for (const key of ["lower", "1ABC", "A-B", "A B", "", "A".repeat(129), "PATH=/x"])
      expect(await w.err(w.owner, "site_env_vars_set", { siteId: w.siteA, key, value: "x" })).toStartWith(
        "Invalid arguments",
      );
    expect(
      await w.err(w.owner, "site_env_vars_set", { siteId: w.siteA, key: "BIG", value: "x".repeat(32_769) }),
    ).toStartWith("Invalid arguments");
    expect(await w.ok(w.owner, "site_env_vars_set", { siteId: w.siteA, key: "_OK_1", value: "" })).toMatchObject({
      status: "created",
    });
  });
});

describe("security", () => {
  test("another company's site settings are unreachable; viewers read but cannot write", async () => {
    await w.ok(w.stranger, "site_env_vars_set", {
      siteId: w.siteB,
      key: "RIVAL_SECRET",
      value: "theirs",
      secret: true,
    });
    const theirDomain = (await w.ok(w.stranger, "site_domains_list", { siteId: w.siteB })).items[0];
    await w.ok(w.viewer, "whoami");
    const before = w.changes();
    for (const [tool, args] of [
      ["site_env_vars_list", { siteId: w.siteB }],
      ["site_env_vars_set", { siteId: w.siteB, key: "X", value: "y" }],
      ["site_env_vars_delete", { siteId: w.siteB, key: "RIVAL_SECRET" }],
      ["site_domains_list", { siteId: w.siteB }],
      ["site_domains_update", { siteId: w.siteA, id: theirDomain.id, primary: true }],
      ["site_domains_remove", { siteId: w.siteA, id: theirDomain.id }],
    ] as const) {
      const msg = await w.err(w.owner, tool, args as Record<string, unknown>);
      expect(msg).toStartWith("Not found");
      expect(msg).not.toContain("Rival");
    }
    expect((await w.ok(w.viewer, "site_env_vars_list", { siteId: w.siteA })).total).toBeGreaterThan(0);
    expect(await w.err(w.viewer, "site_env_vars_set", { siteId: w.siteA, key: "X", value: "y" })).toContain("viewer");
    expect(await w.err(w.viewer, "site_domains_add", { siteId: w.siteA, hostname: "v.example" })).toContain("viewer");
    expect(w.changes()).toBe(before);
  });
});
