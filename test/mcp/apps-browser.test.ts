/**
 * The MCP Apps views (src/mcp/apps.ts) in headless Chromium, with a page
 * acting as the host through the SDK's own host side (AppBridge and
 * PostMessageTransport from @modelcontextprotocol/ext-apps/app-bridge,
 * bundled for the page): the view is read from the server over MCP, loaded
 * in a sandboxed iframe as hosts do, handed a real tool result from the
 * server, and must render it as text (hostile text included), ask the host
 * to open the approval page rather than decide anything, load and fetch
 * nothing, and pass axe-core. Screenshots go to docs/img/mcpapps-*.png.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import type { Browser, Frame, Page } from "playwright-core";
import { axe, DOCS_IMG, launchChromium } from "../fixtures/portal-browser";
import { mintMcpKey } from "../fixtures/accounts";
import { ManualClock } from "../../src/core/clock";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, SAMPLE_BLOCKS, type World } from "../cms/world";
import { appsClient, MIME } from "./apps-client";

const T = 60_000;
/** Agent- or visitor-written text that would run, load or alert if it were ever parsed as HTML. */
const HOSTILE = `<img src=x onerror="alert(1)"><script>alert(2)</script>`;

let s: TestServer;
let w: World;
let apps: Client;
let browser: Browser;
let bridgeJs: string;
let scratch: string;

beforeAll(async () => {
  // A fixed clock, so the dates the views show (and the screenshots in docs/img) are the same on every run.
  s = await startTestServer({ seed: false, clock: new ManualClock(new Date("2026-11-02T09:30:00Z")) });
  w = await makeWorld(s);
  const key = await mintMcpKey(s.deps, { userId: w.ownerUserId, scopes: ["*"], companyIds: [w.A.id] });
  apps = await appsClient(s.url, key.key);
  // The SDK's host side, bundled for the page: the test host speaks exactly what the package's hosts speak.
  scratch = mkdtempSync(join(tmpdir(), "plinth-mcpapps-"));
  const entry = join(scratch, "host.ts");
  const pkg = join(import.meta.dir, "../../node_modules/@modelcontextprotocol/ext-apps/dist/src/app-bridge.js");
  writeFileSync(
    entry,
    `import { AppBridge, PostMessageTransport } from ${JSON.stringify(pkg)};\n(globalThis as any).McpHost = { AppBridge, PostMessageTransport };\n`,
  );
  const built = await Bun.build({ entrypoints: [entry], target: "browser", format: "iife", minify: true });
  if (!built.success) throw new Error(String(built.logs));
  bridgeJs = await built.outputs[0]!.text();
  browser = await launchChromium();
  mkdirSync(DOCS_IMG, { recursive: true });
}, T);

afterAll(async () => {
  await apps?.close();
  await browser?.close();
  await s?.stop();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A tool call's whole CallToolResult, as a host receives it. */
async function resultOf(name: string, args: Record<string, unknown>) {
  const r = (await apps.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
  if (r.isError) throw new Error(`${name}: ${r.content[0]?.text}`);
  return r;
}

/** The view a tool links to, read over MCP as a host would. */
async function viewOf(tool: string): Promise<string> {
  const { tools } = await apps.listTools();
  const uri = (tools.find((t) => t.name === tool)?._meta as any)?.ui?.resourceUri as string;
  expect(uri).toStartWith("ui://plinth/");
  const read = await apps.readResource({ uri });
  const item = read.contents[0] as { mimeType: string; text: string };
  expect(item.mimeType).toBe(MIME);
  return item.text;
}

interface Hosted {
  page: Page;
  frame: Frame;
  requests: string[];
  dialogs: string[];
  errors: string[];
  opened: () => Promise<string[]>;
}

/** A host page holding `html` in a sandboxed iframe, connected through AppBridge, that has sent `result`. */
async function host(html: string, result: unknown, args?: Record<string, unknown>): Promise<Hosted> {
  const ctx = await browser.newContext({ viewport: { width: 720, height: 900 }, bypassCSP: true });
  const page = await ctx.newPage();
  const requests: string[] = [];
  const dialogs: string[] = [];
  const errors: string[] = [];
  // Whatever the page or the view asks the network for is recorded and refused.
  await ctx.route("**/*", (route) => {
    requests.push(route.request().url());
    return route.abort();
  });
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  // A request the view's own CSP stops never reaches the route: the attempt is a console error, and counts too.
  page.on("console", (m) => m.text().includes("Content Security Policy") && requests.push(m.text()));
  await page.setContent(`<!doctype html><html lang="en"><head><title>Host</title></head><body></body></html>`);
  await page.addScriptTag({ content: bridgeJs });
  await page.evaluate(
    async ({ html, result, args }) => {
      const { AppBridge, PostMessageTransport } = (window as any).McpHost;
      const opened: string[] = ((window as any).opened = []);
      const bridge = new AppBridge(null, { name: "test-host", version: "1.0.0" }, { openLinks: {} });
      bridge.onopenlink = async ({ url }: { url: string }) => {
        opened.push(url);
        return {};
      };
      const initialized = new Promise<void>((resolve) => {
        bridge.oninitialized = () => resolve();
      });
      const iframe = document.createElement("iframe");
      iframe.title = "Tool result view";
      iframe.setAttribute("sandbox", "allow-scripts");
      iframe.style.cssText = "width:680px;height:820px;border:0";
      document.body.append(iframe);
      await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
      iframe.srcdoc = html;
      await initialized;
      if (args) await bridge.sendToolInput({ arguments: args });
      await bridge.sendToolResult(result);
    },
    { html, result, args },
  );
  const frame = page.frames().find((f) => f !== page.mainFrame())!;
  await frame.locator('main[aria-busy="false"]').waitFor();
  return { page, frame, requests, dialogs, errors, opened: () => page.evaluate(() => (window as any).opened) };
}

const textOf = async (f: Frame) => (await f.locator("main").innerText()).replace(/\s+/g, " ").trim();

describe("approval view", () => {
  test(
    "shows what waits for approval and asks the host to open the approval page; nothing to decide here",
    async () => {
      const args = {
        siteId: w.siteA,
        title: `Espresso guide ${HOSTILE}`,
        excerpt: "How we pull shots.",
        blocks: [SAMPLE_BLOCKS[1]],
      };
      const result = await resultOf("posts_create", args);
      const data = JSON.parse(result.content[0]!.text);
      expect(data.approval.url).toContain("/approve/");
      const h = await host(await viewOf("posts_create"), result, args);
      const text = await textOf(h.frame);
      expect(text).toContain("Waiting for approval");
      // Hostile text stays text: shown verbatim, never parsed.
      expect(text).toContain(`Espresso guide ${HOSTILE}`);
      expect(await h.frame.locator("main img, main script, main iframe").count()).toBe(0);
      expect(text).toContain("excerpt How we pull shots.");
      expect(text).not.toContain("title Espresso"); // the heading, not repeated
      expect(text).toContain("blocks 1 item");
      expect(text).not.toContain(`siteId`);
      expect(text).toContain(`#${data.id}`);
      expect(text).toContain("pending");
      // Deciding stays on the approval page: no form, no button to approve or reject.
      expect(await h.frame.locator("button, form, input").count()).toBe(0);
      expect(text).not.toMatch(/\bApprove\b|\bReject\b/);
      await h.frame.getByRole("link", { name: "Open the approval page" }).click();
      await h.frame.getByRole("link", { name: "Open the preview" }).click();
      expect(await h.opened()).toEqual([data.approval.url, data.approval.previewUrl]);
      expect(h.requests).toEqual([]);
      expect(h.dialogs).toEqual([]);
      expect(h.errors).toEqual([]);
      expect(await axe(h.page)).toEqual([]);
      await h.page.locator("iframe").screenshot({ path: join(DOCS_IMG, "mcpapps-approval.png") });
      await h.page.context().close();
    },
    T,
  );

  test(
    "a result without an approval envelope says so; an error result shows the error as text",
    async () => {
      const view = await viewOf("posts_create");
      const direct = await host(view, {
        content: [{ type: "text", text: JSON.stringify({ id: 3, status: "draft" }) }],
      });
      expect(await textOf(direct.frame)).toContain("Nothing waits for approval");
      await direct.page.context().close();
      const failed = await host(view, { isError: true, content: [{ type: "text", text: `Not found: ${HOSTILE}` }] });
      expect(await textOf(failed.frame)).toContain(`Not found: ${HOSTILE}`);
      expect(await failed.frame.locator("main img, main script").count()).toBe(0);
      expect(failed.dialogs).toEqual([]);
      await failed.page.context().close();
    },
    T,
  );
});

describe("ticket view", () => {
  test(
    "renders a ticket and its conversation from tickets_get, hostile text as text",
    async () => {
      const t = JSON.parse(
        (
          await resultOf("tickets_create", {
            subject: `Printer on fire ${HOSTILE}`,
            requesterEmail: "kim@client.test",
            body: `It smokes.\n${HOSTILE}`,
            priority: "high",
          })
        ).content[0]!.text,
      );
      const result = await resultOf("tickets_get", { id: t.id });
      const h = await host(await viewOf("tickets_get"), result);
      const text = await textOf(h.frame);
      expect(text).toContain(`Printer on fire ${HOSTILE}`);
      expect(text).toContain(`#${t.id}`);
      expect(text).toContain("high");
      expect(text).toContain("Conversation");
      expect(text).toContain("It smokes.");
      expect(await h.frame.locator("main img, main script, main iframe").count()).toBe(0);
      expect(h.requests).toEqual([]);
      expect(h.dialogs).toEqual([]);
      expect(h.errors).toEqual([]);
      expect(await axe(h.page)).toEqual([]);
      await h.page.locator("iframe").screenshot({ path: join(DOCS_IMG, "mcpapps-ticket.png") });
      await h.page.context().close();
    },
    T,
  );
});

describe("board view", () => {
  test(
    "renders boards_get's columns, WIP limits and cards, hostile text as text",
    async () => {
      await resultOf("projects_create", { name: "Web", key: "WEB" });
      const board = JSON.parse(
        (
          await resultOf("boards_create", {
            projectId: "WEB",
            name: `Ops ${HOSTILE}`,
            columns: [
              { name: "Queue", stateGroup: "unstarted" },
              { name: "Doing", stateGroup: "started", wipLimit: 1 },
              { name: "Shipped", stateGroup: "done" },
            ],
          })
        ).content[0]!.text,
      );
      const doing = board.columns.find((c: { name: string }) => c.name === "Doing").id;
      await resultOf("cards_create", {
        projectId: "WEB",
        title: `Fix ${HOSTILE}`,
        columnId: doing,
        estimate: 5,
        priority: "high",
      });
      const result = await resultOf("boards_get", { id: board.id });
      const h = await host(await viewOf("boards_get"), result);
      const text = await textOf(h.frame);
      expect(text).toContain(`Ops ${HOSTILE}`);
      expect(text).toContain("Project WEB");
      expect(await h.frame.locator("section.lane h2").allInnerTexts()).toEqual(["Queue", "Doing", "Shipped"]);
      expect(text).toContain(`WEB-1 Fix ${HOSTILE}`);
      expect(text).toContain("1 / 1 card · 5 pts (at WIP limit)");
      expect(text).toContain("high · 5 pts");
      expect(await h.frame.locator("main img, main script, main iframe").count()).toBe(0);
      expect(h.requests).toEqual([]);
      expect(h.dialogs).toEqual([]);
      expect(h.errors).toEqual([]);
      expect(await axe(h.page)).toEqual([]);
      await h.page.locator("iframe").screenshot({ path: join(DOCS_IMG, "mcpapps-board.png") });
      await h.page.context().close();
    },
    T,
  );
});

describe("pipeline view", () => {
  test(
    "renders pipelines_get's stages with deal counts and amounts, hostile text as text",
    async () => {
      const p = JSON.parse(
        (
          await resultOf("pipelines_create", {
            name: `Sales ${HOSTILE}`,
            stages: [
              { name: "Lead", probability: 10 },
              { name: "Proposal", probability: 50 },
              { name: "Won", probability: 100, kind: "won" },
              { name: "Lost", probability: 0, kind: "lost" },
            ],
          })
        ).content[0]!.text,
      );
      await resultOf("deals_create", { name: "Big one", amountCents: 1_250_000, pipelineId: p.id, stage: "Proposal" });
      await resultOf("deals_create", { name: "Small one", amountCents: 50_000, pipelineId: p.id, stage: "Proposal" });
      const result = await resultOf("pipelines_get", { id: p.id });
      const h = await host(await viewOf("pipelines_get"), result);
      const text = await textOf(h.frame);
      expect(text).toContain(`Sales ${HOSTILE}`);
      const lanes = (await h.frame.locator("section.lane").allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
      expect(lanes).toEqual([
        "Lead 0 deals 10%",
        "Proposal 2 deals $13,000.00 50%",
        "Won 0 deals 100% · won",
        "Lost 0 deals 0% · lost",
      ]);
      expect(await h.frame.locator("main img, main script, main iframe").count()).toBe(0);
      expect(h.requests).toEqual([]);
      expect(h.dialogs).toEqual([]);
      expect(h.errors).toEqual([]);
      expect(await axe(h.page)).toEqual([]);
      await h.page.locator("iframe").screenshot({ path: join(DOCS_IMG, "mcpapps-pipeline.png") });
      await h.page.context().close();
    },
    T,
  );
});
