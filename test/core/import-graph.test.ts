/**
 * Which parts of src may import which: the layering, checked over every
 * import in src so it cannot erode one convenient import at a time.
 *
 * The layers, inside out:
 *
 *   core        src/core/*, src/config.ts, src/version.ts: context, errors,
 *               scopes and roles, db and columns, the tenancy tables (users,
 *               companies, memberships), the audit log. Knows no domain and
 *               no adapter: core imports only core (and files outside src,
 *               such as the embedded migrations).
 *   domains     src/domains/<name>/: tables, verbs, tools, approval kinds.
 *               May import core, other domains, and the one file of the MCP
 *               layer that is the declaration contract every tools.ts uses,
 *               src/mcp/define.ts, and the UI kit (src/ui) for their
 *               signed-in pages. Never a web adapter: not src/rest,
 *               src/mcp (but define.ts), src/portal (nothing of it: not
 *               its routing, session or guard), src/oauth, src/approvals,
 *               src/ops, src/cli, app.ts, server.ts, main.ts.
 *               Verbs are what adapters call, whichever adapter it is.
 *   approvals   src/domains/approvals is the generic workflow other domains
 *   domain      plug into: they import it (links, kinds, staging), it
 *               imports none of them. What it needs from them comes through
 *               the Domain values they declare (approvalKinds,
 *               stagedTargets, approvalSupport), read from the domain list
 *               src/domains/index.ts, the one file under src/domains it may
 *               import besides its own.
 *   ui          src/ui/*: the UI kit, the frame and components signed-in
 *               pages render with, the portal's and the domains' alike.
 *               Imports only the core (and itself): no domain, no adapter,
 *               so a domain using it drags in nothing of the portal.
 *   adapters    src/rest, src/mcp, src/portal, src/oauth, src/approvals,
 *               src/ops, src/cli, app.ts, server.ts, main.ts: may import
 *               anything inside.
 *
 * Imports are read with a regular expression (comments stripped first) and
 * relative specifiers resolved against the importing file; packages are
 * not layers and are ignored. A failure names each offending edge.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");

export interface Edge {
  /** Importing file, relative to src, e.g. "domains/cms/posts.ts". */
  from: string;
  /** Imported module, relative to src and without extension, e.g. "domains/approvals/links"; "../db/…" when outside src. */
  to: string;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.tsx?$/.test(f) && !/\.d\.ts$/.test(f) ? [p] : [];
  });
}

const IMPORT_RE =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\sfrom\s*["']([^"']+)["']|(?:^|[\s;(=])import\s*\(\s*["']([^"']+)["']\s*\)|(?:^|[\s;])import\s+["']([^"']+)["']/g;

/** Import specifiers of a source text; comments do not count. */
export function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(IMPORT_RE)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

export function edgesOf(src: string): Edge[] {
  const out: Edge[] = [];
  for (const file of files(src)) {
    const from = relative(src, file);
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      out.push({ from, to: relative(src, resolve(dirname(file), spec)).replace(/\.(tsx?|json)$/, "") });
    }
  }
  return out;
}

const CORE = /^(core\/|config$|version$)/;
const ADAPTERS = /^(rest\/|mcp\/|portal\/|oauth\/|approvals\/|ops\/|cli\/|app$|server$|main$)/;
const MCP_CONTRACT = "mcp/define";

const isCore = (p: string) => CORE.test(p);
const domainOf = (p: string) => /^domains\/([^/]+)\//.exec(p)?.[1] ?? null;
const insideSrc = (p: string) => !p.startsWith("..");

/** Every edge that breaks a rule of the module comment, as "from → to: why". */
export function violations(edges: readonly Edge[]): string[] {
  const out: string[] = [];
  for (const { from, to } of edges) {
    if (!insideSrc(to)) continue;
    if (isCore(from) && !isCore(to)) out.push(`${from} → ${to}: the core imports only the core`);
    const fromDomain = domainOf(from) ?? (from === "domains/index.ts" ? "(list)" : null);
    if (fromDomain !== null && ADAPTERS.test(to) && to !== MCP_CONTRACT && !isPortal(to))
      out.push(
        `${from} → ${to}: a domain imports no web adapter (only ${MCP_CONTRACT}, the tool declaration contract)`,
      );
    if (fromDomain === "approvals") {
      const toDomain = domainOf(to);
      if (toDomain !== null && toDomain !== "approvals")
        out.push(
          `${from} → ${to}: the approvals domain imports no other domain (it reads their Domain values from domains/index)`,
        );
    }
    out.push(...uiViolations(from, to, fromDomain));
  }
  return out;
}

// ── The UI-kit layer (src/ui) and domains' pages ─────────────────────────────
// Rules of issue 28 item 3, kept in this block of their own.

const UI = /^ui\//;
const isPortal = (p: string) => /^portal\//.test(p);

/** An edge's breaks of the UI-kit rules: the kit imports only the core and itself; a domain imports nothing of src/portal (its pages use the kit). */
function uiViolations(from: string, to: string, fromDomain: string | null): string[] {
  const out: string[] = [];
  if (UI.test(from) && !isCore(to) && !UI.test(to))
    out.push(`${from} → ${to}: the UI kit imports only the core (and itself), never a domain or an adapter`);
  if (fromDomain !== null && isPortal(to))
    out.push(
      `${from} → ${to}: a domain imports nothing of the portal (not its routing, session or guard); its pages use the UI kit, src/ui`,
    );
  return out;
}

// ── end of the UI-kit block ──────────────────────────────────────────────────

describe("import graph of src", () => {
  const edges = edgesOf(SRC);

  test("the reader sees the imports (the check is not vacuous)", () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual({ from: "domains/cms/posts.ts", to: "domains/approvals/links" });
    expect(edges).toContainEqual({ from: "domains/index.ts", to: "domains/approvals/registry" });
  });

  test("core → domains or adapters, domains → adapters, approvals → other domains: none", () => {
    expect(violations(edges)).toEqual([]);
  });

  test("each rule names the edge that breaks it", () => {
    const bad: Edge[] = [
      { from: "core/audit.ts", to: "domains/accounts/tables" },
      { from: "core/db.ts", to: "rest/routes" },
      { from: "domains/accounts/credentials.ts", to: "oauth/tables" },
      { from: "domains/cms/tools.ts", to: "mcp/registry" },
      { from: "domains/approvals/preview.ts", to: "domains/branding/tables" },
    ];
    const found = violations(bad);
    expect(found).toHaveLength(5);
    expect(found[0]).toStartWith("core/audit.ts → domains/accounts/tables");
    expect(found[2]).toContain("domains/accounts/credentials.ts → oauth/tables");
    expect(found[4]).toContain("approvals domain imports no other domain");
    // What the rules allow.
    expect(
      violations([
        { from: "domains/cms/tools.ts", to: "mcp/define" },
        { from: "domains/cms/posts.ts", to: "domains/approvals/links" },
        { from: "domains/approvals/registry.ts", to: "domains/index" },
        { from: "core/db.ts", to: "../db/migrations/index" },
        { from: "rest/routes.ts", to: "domains/cms/public-reads" },
      ]),
    ).toEqual([]);
  });

  // ── UI-kit rules (issue 28 item 3) ──
  test("the UI kit imports only the core; a domain imports nothing of the portal, but may use the kit", () => {
    const bad: Edge[] = [
      { from: "ui/layout.tsx", to: "domains/accounts/tables" },
      { from: "ui/forms.tsx", to: "portal/session" },
      { from: "ui/table.tsx", to: "mcp/define" },
      { from: "domains/chat/portal.tsx", to: "portal/guard" },
      { from: "domains/billing/portal.tsx", to: "portal/kit" },
      { from: "domains/ai/portal.tsx", to: "portal/layout" },
    ];
    const found = violations(bad);
    expect(found).toEqual([
      "ui/layout.tsx → domains/accounts/tables: the UI kit imports only the core (and itself), never a domain or an adapter",
      "ui/forms.tsx → portal/session: the UI kit imports only the core (and itself), never a domain or an adapter",
      "ui/table.tsx → mcp/define: the UI kit imports only the core (and itself), never a domain or an adapter",
      "domains/chat/portal.tsx → portal/guard: a domain imports nothing of the portal (not its routing, session or guard); its pages use the UI kit, src/ui",
      "domains/billing/portal.tsx → portal/kit: a domain imports nothing of the portal (not its routing, session or guard); its pages use the UI kit, src/ui",
      "domains/ai/portal.tsx → portal/layout: a domain imports nothing of the portal (not its routing, session or guard); its pages use the UI kit, src/ui",
    ]);
    // What the rules allow: the kit on the core and on itself; domains and the portal on the kit.
    expect(
      violations([
        { from: "ui/layout.tsx", to: "core/context" },
        { from: "ui/layout.tsx", to: "ui/forms" },
        { from: "domains/chat/portal.tsx", to: "ui/layout" },
        { from: "domains/chat/portal.tsx", to: "ui/signed-in" },
        { from: "portal/team.tsx", to: "ui/table" },
      ]),
    ).toEqual([]);
  });

  test("the kit is really there and really used (the UI-kit rules are not vacuous)", () => {
    expect(edges.some((e) => e.from.startsWith("ui/") && e.to.startsWith("core/"))).toBe(true);
    expect(edges).toContainEqual({ from: "domains/chat/portal.tsx", to: "ui/layout" });
    expect(edges).toContainEqual({ from: "portal/routes.tsx", to: "ui/layout" });
  });

  test("comments and strings that look like imports are not imports", () => {
    expect(
      specifiers(
        '/** @example import { x } from "../domains/y"; */\n// import "z";\nimport { a } from "./a";\nexport * from "./b";\nconst m = await import("./c");',
      ),
    ).toEqual(["./a", "./b", "./c"]);
    expect(specifiers('import {\n  a,\n  type B,\n} from "./multi";\nimport "./side";')).toEqual(["./multi", "./side"]);
  });
});
