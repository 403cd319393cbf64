/**
 * The root's last answer for an error (src/ops/errors.ts) is the same on
 * both ways a request can reach it: through the root Hono app's onError
 * (src/app.ts) and through the MCP fast path, which skips the root app
 * (src/mcp/routes.ts withMcpFastPath). Over HTTP, against the real app: its
 * configuration's public URL is made to throw on demand, which the MCP
 * endpoint reads first thing on a POST (fast path) and on a CORS preflight
 * (an OPTIONS, which goes through the root app); whatever it throws reaches
 * the root's mapping from both sides.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { HTTPException } from "hono/http-exception";
import { createApp } from "../../src/app";
import type { Config } from "../../src/config";
import { conflict, invalid } from "../../src/core/errors";
import { startTestServer, type TestServer } from "../harness";

let s: TestServer;
let server: ReturnType<typeof Bun.serve>;
let url: string;
/** What reading the public URL throws; null: it reads normally. */
let trap: unknown = null;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  const config = { ...s.config } as Config;
  const publicUrl = s.config.publicUrl;
  Object.defineProperty(config, "publicUrl", {
    get() {
      if (trap !== null) throw trap;
      return publicUrl;
    },
  });
  server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: createApp({ ...s.deps, config }).fetch });
  url = `http://127.0.0.1:${server.port}`;
});
afterAll(async () => {
  server?.stop(true);
  await s?.stop();
});

interface Answer {
  status: number;
  type: string | null;
  body: string;
  requestId: string | null;
}

async function answer(res: Response): Promise<Answer> {
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    body: await res.text(),
    requestId: res.headers.get("x-request-id"),
  };
}

/** The same error thrown on the fast path (POST /api/mcp) and through the root app (OPTIONS /api/mcp). */
async function bothWays(error: unknown): Promise<{ fast: Answer; root: Answer }> {
  trap = error;
  try {
    const fast = await answer(
      await fetch(`${url}/api/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    const root = await answer(
      await fetch(`${url}/api/mcp`, { method: "OPTIONS", headers: { origin: "http://localhost" } }),
    );
    return { fast, root };
  } finally {
    trap = null;
  }
}

const sameAnswer = (a: Answer, b: Answer) => {
  expect({ ...a, requestId: null }).toEqual({ ...b, requestId: null });
};

describe("the root's answer to an error, on the MCP fast path and through the root app alike", () => {
  test("the trap is off between requests: the endpoint answers as usual", async () => {
    const res = await fetch(`${url}/api/mcp`, { method: "OPTIONS", headers: { origin: "http://localhost" } });
    expect(res.status).toBe(204);
  });

  test("an AppError leaves with its code's status and its message", async () => {
    const { fast, root } = await bothWays(conflict("That slot was just taken."));
    expect(fast).toMatchObject({ status: 409, type: "application/json" });
    expect(JSON.parse(fast.body)).toEqual({ success: false, message: "That slot was just taken." });
    sameAnswer(fast, root);
    const bad = await bothWays(invalid("siteId must be a number."));
    expect(bad.fast.status).toBe(400);
    expect(JSON.parse(bad.fast.body)).toEqual({ success: false, message: "siteId must be a number." });
    sameAnswer(bad.fast, bad.root);
  });

  test("an engine error bad input can cause is mapped (mapDbError), never a 500", async () => {
    const unique = await bothWays(new Error("UNIQUE constraint failed: sites.slug"));
    expect(unique.fast.status).toBe(409);
    expect(JSON.parse(unique.fast.body)).toEqual({
      success: false,
      message: "That value is already in use; choose another.",
    });
    sameAnswer(unique.fast, unique.root);
    // PostgreSQL's SQLSTATE, wrapped as drizzle wraps it.
    const wrapped = new Error("Failed query: select 1", { cause: Object.assign(new Error("bad"), { code: "22P02" }) });
    const form = await bothWays(wrapped);
    expect(form.fast.status).toBe(400);
    expect(JSON.parse(form.fast.body)).toEqual({ success: false, message: "A value has the wrong form." });
    sameAnswer(form.fast, form.root);
  });

  test("an error that carries its own response (Hono's HTTPException) leaves as that response", async () => {
    const { fast, root } = await bothWays(new HTTPException(403, { message: "Refused by a guard." }));
    // Only the content type differs: the root app's middleware passes the response on without Bun's inferred text type.
    for (const a of [fast, root]) expect(a).toMatchObject({ status: 403, body: "Refused by a guard." });
  });

  test("anything else is a bare 500 that reveals nothing, logged with the request id", async () => {
    const logged: string[] = [];
    const spy = spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      logged.push(args.map(String).join(" "));
    });
    try {
      const { fast, root } = await bothWays(new Error("password=hunter2 at db.internal:5432"));
      for (const a of [fast, root]) {
        expect(a).toMatchObject({ status: 500, type: "application/json" });
        expect(JSON.parse(a.body)).toEqual({ success: false, message: "Internal server error" });
        expect(a.body).not.toContain("hunter2");
        expect(a.requestId).toMatch(/\S/);
        expect(logged.some((l) => l.startsWith(`[${a.requestId}] unhandled error:`) && l.includes("hunter2"))).toBe(
          true,
        );
      }
      sameAnswer(fast, root);
    } finally {
      spy.mockRestore();
    }
  });
});
