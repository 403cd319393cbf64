/**
 * MCP Apps (in-chat views, src/mcp/apps.ts) on the wire, through real SDK
 * clients: one announcing the extension sees `_meta.ui.resourceUri` on the
 * tools that return the views' shapes and reads the `ui://plinth/…` views;
 * one without sees today's bytes (tools/list, resources/list), in both eras.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createCompany, createUser, mintMcpKey, mcpClient } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { appsClient, EXT, MIME } from "./apps-client";

let s: TestServer;
let key: string;

/** The raw bytes of a tools/list or resources/list as a client sends it (the SDK client would re-serialise). */
async function rawList(method: string, meta?: Record<string, unknown>): Promise<string> {
  const r = await fetch(`${s.url}/api/mcp`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method,
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": { ...meta },
        },
      },
    }),
  });
  expect(r.status).toBe(200);
  return await r.text();
}

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  const u = await createUser(s.deps, { email: "apps@apps.test", name: "Ada Apps" });
  const co = await createCompany(s.deps, { name: "Apps Co", ownerUserId: u.id });
  key = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [co.id] })).key;
});
afterAll(async () => await s?.stop());

describe("a client announcing MCP Apps", () => {
  test("sees the view links on exactly the tools that return the views' shapes", async () => {
    const c = await appsClient(s.url, key);
    const { tools } = await c.listTools();
    const linked = Object.fromEntries(
      tools.filter((t) => t._meta).map((t) => [t.name, (t._meta as any).ui?.resourceUri as string]),
    );
    expect(linked.tickets_get).toBe("ui://plinth/ticket");
    expect(linked.posts_create).toBe("ui://plinth/approval");
    expect(linked.email_campaigns_create ?? linked.surveys_create).toBe("ui://plinth/approval");
    expect(linked.posts_list).toBeUndefined();
    expect(linked.tickets_list).toBeUndefined();
    expect(linked.boards_get).toBe("ui://plinth/board");
    expect(linked.pipelines_get).toBe("ui://plinth/pipeline");
    expect(linked.boards_list).toBeUndefined();
    // Read tools never carry the approval view, whatever they are about.
    expect(
      tools.filter((t) => t.annotations?.readOnlyHint && (t._meta as any)?.ui?.resourceUri === "ui://plinth/approval"),
    ).toEqual([]);
    expect(new Set(Object.values(linked))).toEqual(
      new Set(["ui://plinth/approval", "ui://plinth/ticket", "ui://plinth/board", "ui://plinth/pipeline"]),
    );
    await c.close();
  });

  test("lists and reads the ui:// views as MCP App HTML, self-contained", async () => {
    const c = await appsClient(s.url, key);
    const { resources } = await c.listResources();
    const views = resources.filter((r) => r.uri.startsWith("ui://"));
    expect(views.map((r) => r.uri).sort()).toEqual([
      "ui://plinth/approval",
      "ui://plinth/board",
      "ui://plinth/pipeline",
      "ui://plinth/ticket",
    ]);
    for (const v of views) {
      expect(v.mimeType).toBe(MIME);
      const read = await c.readResource({ uri: v.uri });
      const item = read.contents[0] as { uri: string; mimeType: string; text: string };
      expect(item.mimeType).toBe(MIME);
      expect(item.text).toStartWith("<!doctype html>");
      expect(item.text).toContain("default-src 'none'");
      // Nothing loaded from anywhere: no src or href attributes to other documents, no fetch.
      expect(item.text).not.toMatch(/\ssrc=|<link|fetch\(|XMLHttpRequest|innerHTML|insertAdjacentHTML/);
    }
    await c.close();
  });

  test("another extension's MIME type is not ours", async () => {
    const c = await appsClient(s.url, key, ["text/html;profile=other"]);
    const { tools } = await c.listTools();
    expect(tools.some((t) => t._meta)).toBe(false);
    await c.close();
  });
});

describe("a client without the extension", () => {
  test("sees no links and no ui:// resources (both eras)", async () => {
    for (const era of ["modern", "legacy"] as const) {
      const c = await mcpClient(s.url, key, { era });
      const { tools } = await c.listTools();
      expect(tools.some((t) => "_meta" in t)).toBe(false);
      const { resources } = await c.listResources();
      expect(resources.some((r) => r.uri.startsWith("ui://"))).toBe(false);
      await c.close();
    }
  });

  test("gets the same tools/list and resources/list bytes as before the views, and different ones with them", async () => {
    const plain = await rawList("tools/list");
    // An unrelated extension does not change the listing either.
    expect(await rawList("tools/list", { extensions: { other: {} } })).toBe(plain);
    const withApps = await rawList("tools/list", { extensions: { [EXT]: { mimeTypes: [MIME] } } });
    expect(withApps).not.toBe(plain);
    // The memo keeps the two apart, whichever came first.
    expect(await rawList("tools/list")).toBe(plain);
    // Removing the links gives back the plain listing, byte for byte.
    const unlinked = JSON.parse(withApps);
    for (const t of unlinked.result.tools) delete t._meta;
    expect(JSON.stringify(unlinked)).toBe(JSON.stringify(JSON.parse(plain)));
    expect(plain).not.toContain("ui://");
    expect(await rawList("resources/list")).not.toContain("ui://");
  });
});

test("an unknown ui:// resource is not found, not a 500", async () => {
  const c = await appsClient(s.url, key);
  await expect(c.readResource({ uri: "ui://plinth/nope" })).rejects.toThrow(/not found/i);
  await c.close();
});
