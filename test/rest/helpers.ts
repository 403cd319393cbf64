/**
 * A REST client for tests that checks every response it receives against
 * the server's own OpenAPI document (/api/v1/openapi.json): the body against
 * the declared schema of that operation and status (or `default`), and the
 * headers every response must carry. Use `rest(server)` once per file.
 */
import { expect } from "bun:test";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { startTestServer, type TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import { seedRestContent } from "../fixtures/rest-content";

export interface RestResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON body; null for 304, HEAD and 204. */
  body: any;
  text: string;
}

type Doc = any;

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node))
      out[k] = k === "$ref" && typeof v === "string" ? `doc${v}` : rewriteRefs(v);
    return out;
  }
  return node;
}

export class OpenApiChecker {
  private ajv = new Ajv2020({ strict: false, allErrors: true });
  private compiled = new Map<string, ValidateFunction>();
  private routes: { re: RegExp; path: string }[];
  constructor(readonly doc: Doc) {
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: "doc", components: rewriteRefs({ schemas: doc.components.schemas }) });
    this.routes = Object.keys(doc.paths).map((p) => ({
      path: p,
      re: new RegExp("^" + p.replace(/\{[^}]+\}/g, "[^/]+") + "$"),
    }));
  }

  /** The declared response object for a path and status, with $refs into components.responses followed. */
  responseFor(path: string, status: number): { opPath: string | null; response: any } {
    const route = this.routes.find((r) => r.re.test(path));
    if (!route) return { opPath: null, response: this.doc.components.responses.Error };
    const responses = this.doc.paths[route.path].get.responses;
    let r = responses[String(status)] ?? responses.default;
    if (r.$ref) r = this.doc.components.responses[r.$ref.split("/").pop()];
    return { opPath: route.path, response: r };
  }

  validator(key: string, schema: unknown): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile(rewriteRefs(schema) as object);
      this.compiled.set(key, v);
    }
    return v;
  }

  check(method: string, path: string, res: RestResponse) {
    const apiPath = path.replace(/^\/api\/v1/, "").split("?")[0]!;
    const h = res.headers;
    // Headers every REST response carries.
    expect(h.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    expect(h.get("x-ratelimit-remaining")).toMatch(/^\d+$/);
    expect(h.get("access-control-allow-origin")).toBe("*");
    if (method === "OPTIONS") return;
    expect(h.get("vary")).toBe("Authorization, X-API-Key");
    if (apiPath === "/openapi.json") return;
    const { opPath, response } = this.responseFor(apiPath, res.status);
    if (res.status === 304) {
      expect(res.text).toBe("");
      expect(h.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
      return;
    }
    if (res.status === 200) expect(h.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
    else expect(h.get("cache-control")).toBe("no-store");
    if (res.status === 429) {
      expect(h.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(h.get("x-ratelimit-remaining")).toBe("0");
    }
    if (res.status === 401) expect(h.get("www-authenticate")).toBe('Bearer realm="plinth-rest"');
    if (method === "HEAD") return;
    expect(h.get("content-type")).toContain("application/json");
    const schema = response.content["application/json"].schema;
    const v = this.validator(`${opPath}|${res.status}`, schema);
    if (!v(res.body)) {
      throw new Error(
        `${method} ${path} → ${res.status}: body does not match the OpenAPI document: ${this.ajv.errorsText(v.errors)}\n${res.text.slice(0, 500)}`,
      );
    }
  }
}

export interface Rest {
  url: string;
  checker: OpenApiChecker;
  /** GET (or another method) a path under the server root; every response is checked against the document. */
  get(path: string, headers?: Record<string, string>, method?: string): Promise<RestResponse>;
  /** GET with `Authorization: Bearer key`. */
  keyed(path: string, key: string, headers?: Record<string, string>): Promise<RestResponse>;
}

export async function rest(server: TestServer): Promise<Rest> {
  const docRes = await fetch(`${server.url}/api/v1/openapi.json`);
  expect(docRes.status).toBe(200);
  const checker = new OpenApiChecker(await docRes.json());
  async function get(path: string, headers: Record<string, string> = {}, method = "GET"): Promise<RestResponse> {
    const res = await fetch(server.url + path, { method, headers });
    const text = await res.text();
    let body: any = null;
    if (text && method !== "HEAD") {
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`${method} ${path} → ${res.status}: not JSON: ${text.slice(0, 200)}`);
      }
    }
    const r = { status: res.status, headers: res.headers, body, text };
    checker.check(method, path, r);
    return r;
  }
  return {
    url: server.url,
    checker,
    get,
    keyed: (path, key, headers = {}) => get(path, { Authorization: `Bearer ${key}`, ...headers }),
  };
}

/** The error envelope, asserted exactly. */
export function expectError(r: RestResponse, status: number, message: string | RegExp) {
  expect({ status: r.status, success: r.body?.success }).toEqual({ status, success: false });
  if (typeof message === "string") expect(r.body.message).toBe(message);
  else expect(r.body.message).toMatch(message);
}

/**
 * The usual REST test world: a real server on a fresh data dir with the
 * precise fixture content, a key for the shop site and a checking client.
 */
export async function restWorld() {
  const server = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const c = await seedRestContent(server.deps);
  const key = (await mintRestKey(server.deps, c.sites.shop)).key;
  const shop = `/api/v1/sites/${c.sites.shop}`;
  const api = await rest(server);
  return { server, api, c, key, shop };
}
