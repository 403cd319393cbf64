/**
 * Helpers for the OAuth and portal suites: a person signing in over HTTP,
 * reading forms out of the served HTML (with Bun's HTMLRewriter, as a
 * browser would see them), submitting the consent screen, and the client
 * half of OAuth (PKCE pairs, registration, token requests).
 */
import { createHash, randomBytes } from "node:crypto";
import { SCOPES } from "../../src/core/scopes";
import { registry } from "../../src/mcp/routes";
import type { OAuthClientProvider } from "@modelcontextprotocol/client";

/** A browser-ish cookie jar for one origin: enough for the portal's one session cookie. */
export class Jar {
  private cookies = new Map<string, string>();
  store(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const i = pair!.indexOf("=");
      const name = pair!.slice(0, i).trim();
      const value = pair!.slice(i + 1).trim();
      if (/max-age=0/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  get size() {
    return this.cookies.size;
  }
}

/** A portal visitor: GETs and same-origin form posts with a cookie jar; never follows redirects. */
export class Browser {
  jar = new Jar();
  constructor(readonly base: string) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const res = await fetch(new URL(path, this.base), {
      redirect: "manual",
      headers: { cookie: this.jar.header(), ...headers },
    });
    this.jar.store(res);
    return res;
  }

  async post(
    path: string,
    fields: Record<string, string | string[]> | URLSearchParams,
    headers: Record<string, string> = {},
  ) {
    const body = fields instanceof URLSearchParams ? fields : toParams(fields);
    const res = await fetch(new URL(path, this.base), {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie: this.jar.header(),
        origin: new URL(this.base).origin,
        "content-type": "application/x-www-form-urlencoded",
        ...headers,
      },
      body: body.toString(),
    });
    this.jar.store(res);
    return res;
  }

  async signIn(email: string, password: string): Promise<Response> {
    return this.post("/login", { email, password, next: "/" });
  }

  /** The CSRF token of the current session, read from a page's form. */
  async csrf(path = "/settings/api-keys"): Promise<string> {
    const forms = await readForms(await (await this.get(path)).text());
    const token = forms.flatMap((f) => f.fields).find((f) => f.name === "_csrf")?.value;
    if (!token) throw new Error(`no CSRF token on ${path}`);
    return token;
  }
}

export function toParams(fields: Record<string, string | string[]>): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
  return p;
}

export interface FormField {
  name: string;
  value: string;
  type: string;
  checked: boolean;
}
export interface HtmlForm {
  action: string;
  method: string;
  fields: FormField[];
}

/** Every form in a page with its inputs, selects (selected option) and buttons. */
export async function readForms(html: string): Promise<HtmlForm[]> {
  const forms: HtmlForm[] = [];
  let select: FormField | null = null;
  await new HTMLRewriter()
    .on("form", {
      element(e) {
        forms.push({ action: e.getAttribute("action") ?? "", method: e.getAttribute("method") ?? "get", fields: [] });
      },
    })
    .on("input, button", {
      element(e) {
        const name = e.getAttribute("name");
        if (!name || !forms.length) return;
        forms.at(-1)!.fields.push({
          name,
          value: e.getAttribute("value") ?? "",
          type: e.getAttribute("type") ?? (e.tagName === "button" ? "submit" : "text"),
          checked: e.hasAttribute("checked"),
        });
      },
    })
    .on("select", {
      element(e) {
        const name = e.getAttribute("name");
        if (!name || !forms.length) return;
        select = { name, value: "", type: "select", checked: false };
        forms.at(-1)!.fields.push(select);
      },
    })
    .on("option", {
      element(e) {
        if (select && (e.hasAttribute("selected") || select.value === "")) select.value = e.getAttribute("value") ?? "";
      },
    })
    .transform(new Response(html))
    .text();
  return forms;
}

/** The text content of a page, tags stripped: for asserting on what a person reads. */
export async function pageText(html: string): Promise<string> {
  let out = "";
  await new HTMLRewriter()
    .on("*", {
      text(t) {
        out += t.text;
      },
    })
    .transform(new Response(html))
    .text();
  // HTMLRewriter hands over text as written; decode the entities a browser would.
  const entities: Record<string, string> = { lt: "<", gt: ">", quot: '"', amp: "&", "#39": "'", "#x27": "'" };
  return out.replace(/&(lt|gt|quot|amp|#39|#x27);/g, (_, e: string) => entities[e]!).replace(/\s+/g, " ");
}

export function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  return { verifier, challenge };
}

export async function register(base: string, meta: Record<string, unknown>) {
  const res = await fetch(new URL("/oauth/register", base), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(meta),
  });
  return { status: res.status, body: (await res.json()) as any };
}

export async function tokenRequest(base: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(new URL("/oauth/token", base), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

export async function revokeRequest(base: string, fields: Record<string, string>) {
  const res = await fetch(new URL("/oauth/revoke", base), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, text: await res.text() };
}

export type Level = "none" | "read" | "write";

export interface ConsentChoice {
  /**
   * Scopes to grant, translated into the page's per-area choice: an area is
   * "read and change" when a non-read scope of it is listed (`store:write`,
   * `approvals:manage`, `store:*`), "read" when its `:read` scope is, else
   * none; `*` ticks full access. Default: the page's pre-selection.
   */
  scopes?: string[];
  /** Levels per area (`access_<domain>`), applied after `scopes`. */
  levels?: Record<string, Level>;
  /** Tick or untick the full-access box; default: as the page has it. */
  fullAccess?: boolean;
  /** Company ids to tick; default: whatever the page pre-ticked. */
  companies?: number[];
  /** The tool listing radio (auto, full, discovery, toolsets) and its toolsets; default: as the page has it (auto). */
  listing?: string;
  listingToolsets?: string[];
  decision?: "approve" | "deny" | "preview";
}

/** The level a list of scopes asks for in one area. */
export function levelIn(scopes: readonly string[], domain: string): Level {
  if (scopes.some((s) => s.startsWith(`${domain}:`) && !s.endsWith(":read"))) return "write";
  return scopes.includes(`${domain}:read`) ? "read" : "none";
}

/** The consent form's fields as a browser would submit them for `choice`. */
export function consentFields(form: HtmlForm, choice: ConsentChoice = {}): URLSearchParams {
  const p = new URLSearchParams();
  const areas = [...new Set(form.fields.filter((f) => f.name.startsWith("access_")).map((f) => f.name))];
  const wanted = new Map<string, string>();
  for (const name of areas) {
    const domain = name.slice("access_".length);
    const preset = form.fields.find((f) => f.name === name && f.checked)?.value ?? "none";
    wanted.set(name, choice.levels?.[domain] ?? (choice.scopes ? levelIn(choice.scopes, domain) : preset));
  }
  for (const f of form.fields) {
    if (f.type === "hidden") p.append(f.name, f.value);
    else if (f.name === "listing") {
      if (choice.listing ? choice.listing === f.value : f.checked) p.append(f.name, f.value);
    } else if (f.name === "listing_toolset") {
      if (choice.listingToolsets ? choice.listingToolsets.includes(f.value) : f.checked) p.append(f.name, f.value);
    } else if (f.type === "radio" && wanted.get(f.name) === f.value) p.append(f.name, f.value);
    else if (f.name === "full_access") {
      const on = choice.fullAccess ?? (choice.scopes ? choice.scopes.includes("*") : f.checked);
      if (on) p.append(f.name, f.value);
    } else if (
      f.name === "grant_company" &&
      (choice.companies ? choice.companies.includes(Number(f.value)) : f.checked)
    )
      p.append(f.name, f.value);
  }
  p.append("decision", choice.decision ?? "approve");
  return p;
}

/**
 * Opens an authorization URL as the signed-in browser, reads the consent
 * form and submits it with the given choices. Returns the final response
 * (a 303 to the client's redirect URI on success).
 */
export async function consent(browser: Browser, authorizationUrl: string | URL, choice: ConsentChoice = {}) {
  const u = new URL(authorizationUrl);
  const page = await browser.get(u.pathname + u.search);
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${await page.text()}`);
  const html = await page.text();
  const form = (await readForms(html)).find((f) => f.action === "/oauth/authorize");
  if (!form) throw new Error("no consent form on the page");
  return { page: html, response: await browser.post("/oauth/authorize", consentFields(form, choice)) };
}

/** A complete authorization: returns the code and the callback parameters. */
export async function authorizeCode(
  browser: Browser,
  base: string,
  opts: { clientId: string; redirectUri: string; scope?: string; state?: string; resource?: string } & ConsentChoice,
) {
  const { verifier, challenge } = pkce();
  const u = new URL("/oauth/authorize", base);
  u.searchParams.set("response_type", "code");
  u.searchParams.set("client_id", opts.clientId);
  u.searchParams.set("redirect_uri", opts.redirectUri);
  u.searchParams.set("code_challenge", challenge);
  u.searchParams.set("code_challenge_method", "S256");
  u.searchParams.set("state", opts.state ?? "st-123");
  if (opts.scope) u.searchParams.set("scope", opts.scope);
  if (opts.resource) u.searchParams.set("resource", opts.resource);
  const { response } = await consent(browser, u, opts);
  const location = response.headers.get("location");
  if (response.status !== 303 || !location)
    throw new Error(`consent answered ${response.status}: ${await response.text()}`);
  const cb = new URL(location);
  return { code: cb.searchParams.get("code")!, callback: cb, verifier };
}

/**
 * Areas (scope domains) whose scopes gate a tool or resource in the MCP
 * registry, in the scope table's order: what the consent screen and the
 * API-key form may offer. Computed here from the registry independently of
 * src/portal/scope-picker.tsx.
 */
export function areasWithTools(): string[] {
  return [...new Set(gatingScopes().map((s) => s.split(":")[0]!))];
}

/** Every scope that gates a tool or resource, in the scope table's order. */
export function gatingScopes(): string[] {
  const gating = new Set<string | null>([
    ...registry().tools.map((t) => t.def.scope),
    ...registry().resources.map((r) => r.scope),
  ]);
  return SCOPES.filter((s) => gating.has(s));
}

/** An in-memory OAuthClientProvider for the MCP SDK, like a desktop client keeps in its settings. */
export class MemoryProvider implements OAuthClientProvider {
  info: any;
  saved: any;
  verifier = "";
  discovery: any;
  authorizationUrl: URL | null = null;
  constructor(
    readonly redirectUrl: string,
    private opts: { name?: string; state?: string } = {},
  ) {}
  get clientMetadata() {
    return {
      client_name: this.opts.name ?? "SDK test client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return this.opts.state ?? "sdk-state-1";
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: any) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(t: any) {
    this.saved = t;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(s: any) {
    this.discovery = s;
  }
  discoveryState() {
    return this.discovery;
  }
}
