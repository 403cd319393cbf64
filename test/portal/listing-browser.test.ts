/**
 * A key's tool listing, changed by a person in a real browser (headless
 * Chromium through playwright-core) on Settings → API keys, takes effect on
 * the key's next MCP request (issue 29, item 1). Also: the create form's
 * listing choice, with counts per mode for the scopes chosen, works without
 * JavaScript (Preview recounts). A screenshot is kept in test-artifacts/.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { DISCOVERY_LISTED } from "../../src/mcp/discovery";
import { AUTOMATIC_MAX } from "../../src/mcp/listing";
import { registry } from "../../src/mcp/routes";
import { createCompany, createUser, mintMcpKey, rawMcp } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

let s: TestServer;
let context: BrowserContext;
let profile: string;
let page: Page;
let ids: { userId: number; companyId: number };

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  const u = await createUser(s.deps, { email: "kim@example.test", password: "correct horse battery" });
  ids = { userId: u.id, companyId: (await createCompany(s.deps, { name: "Acme", ownerUserId: u.id })).id };
  profile = mkdtempSync(join(tmpdir(), "plinth-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    javaScriptEnabled: false,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  page = await context.newPage();
  await page.goto(new URL("/login", s.config.publicUrl).href);
  await page.fill("#email", "kim@example.test");
  await page.fill("#password", "correct horse battery");
  await Promise.all([page.waitForURL((url) => url.pathname !== "/login"), page.click("button[type=submit]")]);
}, 30_000);

afterAll(async () => {
  await context?.close();
  await s?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const ARTIFACTS = join(import.meta.dir, "../../test-artifacts");

async function listed(key: string): Promise<string[]> {
  const r = await rawMcp(s.url, key, { jsonrpc: "2.0", id: 1, method: "tools/list" });
  return ((await r.json()) as any).result.tools.map((t: any) => t.name);
}

test("changing a key's listing on the API keys page takes effect on its next request", async () => {
  const { id, key } = await mintMcpKey(s.deps, {
    userId: ids.userId,
    scopes: ["*"],
    companyIds: [ids.companyId],
    name: "Laptop agent",
    listingMode: null,
  });
  // Automatic: everything is more than 128 tools, so the key starts in discovery.
  expect((await listed(key)).sort()).toEqual([...DISCOVERY_LISTED].sort());

  await page.goto(new URL("/settings/api-keys", s.config.publicUrl).href);
  const row = page.locator("tr", { hasText: "Laptop agent" });
  expect(await row.locator(".listing-summary").textContent()).toBe(
    `automatic (discovery): ${DISCOVERY_LISTED.size} tools listed`,
  );
  const form = page.locator(`form[action="/settings/api-keys/${id}/listing"]`);
  await row.locator("summary", { hasText: "Change" }).click();
  await form.getByRole("radio", { name: /Chosen toolsets/ }).check();
  await form.locator("summary", { hasText: "Toolsets to list" }).click();
  await form.getByRole("checkbox", { name: "crm", exact: true }).check();
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, "api-keys-listing.png"), fullPage: true });
  await Promise.all([
    page.waitForURL((url) => url.searchParams.has("listed")),
    form.getByRole("button", { name: "Save listing" }).click(),
  ]);
  expect(await page.locator(".notice.ok").first().textContent()).toContain("Tool listing of “Laptop agent” changed");

  const crm = registry()
    .tools.filter((t) => t.def.toolset === "crm")
    .map((t) => t.def.name);
  expect((await listed(key)).sort()).toEqual([...crm, ...DISCOVERY_LISTED].sort());

  // And to the full listing.
  await row.locator("summary", { hasText: "Change" }).click();
  await form.getByRole("radio", { name: /^Full/ }).check();
  await Promise.all([
    page.waitForURL((url) => url.searchParams.has("listed")),
    form.getByRole("button", { name: "Save listing" }).click(),
  ]);
  expect((await listed(key)).length).toBeGreaterThan(AUTOMATIC_MAX);
  expect(await row.locator(".listing-summary").textContent()).toMatch(/^full: \d+ tools listed$/);
}, 60_000);

test("the create form counts each mode for the scopes chosen, and the chosen mode is the new key's", async () => {
  await page.goto(new URL("/settings/api-keys", s.config.publicUrl).href);
  const create = page.locator('form[action="/settings/api-keys"]');
  await create.locator("#key-name").fill("CRM only");
  await create.getByRole("group", { name: "CRM" }).getByRole("radio", { name: "Read and change" }).check();
  // Preview: counted for the CRM alone, nothing created.
  await Promise.all([
    page.waitForLoadState("load"),
    create.getByRole("button", { name: "Preview tool counts" }).click(),
  ]);
  const text = (await create.locator("fieldset.listing").textContent()) ?? "";
  const full = Number(/Full\s+— (\d+) tools/.exec(text)?.[1]);
  expect(full).toBeGreaterThan(10);
  expect(full).toBeLessThanOrEqual(AUTOMATIC_MAX);
  expect(text).toContain("here full");
  expect(await page.locator("tr", { hasText: "CRM only" }).count()).toBe(0);

  await create.getByRole("radio", { name: /^Discovery/ }).check();
  await Promise.all([page.waitForLoadState("load"), create.getByRole("button", { name: "Create key" }).click()]);
  const key = (await page.locator("#new-key").textContent())!.trim();
  expect((await listed(key)).sort()).toEqual([
    "tools_call_destructive",
    "tools_call_read",
    "tools_call_write",
    "tools_search",
    "toolsets_list",
    "whoami",
  ]);
}, 60_000);
