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
 *               stagedTargets, approvalSupport), collected into the catalog
 *               and handed down in Deps.catalog.
 *   the list    src/domains/index.ts, the domain list, is imported by one
 *               file only: src/catalog.ts, which builds the catalog every
 *               other part reads. The plug-in contract (src/mcp/define.ts)
 *               and the catalog builder (src/mcp/catalog.ts) import no
 *               domain: what they name is declared by domains.
 *   ui          src/ui/*: the UI kit, the frame and components signed-in
 *               pages render with, the portal's and the domains' alike.
 *               Imports only the core (and itself): no domain, no adapter,
 *               so a domain using it drags in nothing of the portal.
 *   adapters    src/rest, src/mcp, src/portal, src/oauth, src/approvals,
 *               src/ops, src/cli, app.ts, server.ts, main.ts, catalog.ts:
 *               may import anything inside.
 *
 * And nowhere in src is there a circle of imports, counting every kind
 * (static, type-only, import() and require()): a module is never read
 * before the modules it needs exist.
 *
 * Between domains (the block "Public faces between domains" below): a
 * domain imports another domain only through a file that carries `@public`
 * in its opening comment (saying whom it serves); everything else in a
 * domain folder is private to it. The one exception is tables.ts importing
 * another domain's tables.ts, for foreign-key references.
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
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?\sfrom\s*["']([^"']+)["']|(?:^|[\s;(=])import\s*\(\s*["']([^"']+)["']\s*\)|(?:^|[\s;])import\s+["']([^"']+)["']|(?:^|[^\w.$])require\s*\(\s*["']([^"']+)["']\s*\)/g;

/** Import specifiers of a source text (static, type-only, `import()` and `require()`); comments do not count. */
export function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return [...code.matchAll(IMPORT_RE)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4])!);
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
const ADAPTERS = /^(rest\/|mcp\/|portal\/|oauth\/|approvals\/|ops\/|cli\/|app$|server$|main$|catalog$)/;
/** The domain list, imported as "./domains" or "./domains/index". */
const LIST = /^domains(\/index)?$/;
const LIST_IMPORTER = "catalog.ts";
/** The plug-in contract and the catalog builder: they name no domain. */
const CONTRACT_FILES = new Set(["mcp/define.ts", "mcp/catalog.ts"]);
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
    if (LIST.test(to) && from !== LIST_IMPORTER)
      out.push(
        `${from} → ${to}: only ${LIST_IMPORTER} imports the domain list; take the catalog (Deps.catalog) instead`,
      );
    if (CONTRACT_FILES.has(from) && domainOf(to) !== null)
      out.push(`${from} → ${to}: the plug-in contract imports no domain; let the domain declare it on its Domain`);
    if (fromDomain === "approvals") {
      const toDomain = domainOf(to);
      if (toDomain !== null && toDomain !== "approvals")
        out.push(
          `${from} → ${to}: the approvals domain imports no other domain (it reads their Domain values from Deps.catalog)`,
        );
    }
    out.push(...uiViolations(from, to, fromDomain));
  }
  return out;
}

/** A module's name: its path without extension; a folder import means its index. */
function moduleOf(p: string): string {
  const m = p.replace(/\.(tsx?|json)$/, "");
  return m === "domains" ? "domains/index" : m;
}

/**
 * Every circle of imports (strongly connected set of two or more modules,
 * or one importing itself), each as its sorted members: Tarjan's algorithm
 * over the edges inside src.
 */
export function circles(edges: readonly Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!insideSrc(to)) continue;
    const a = moduleOf(from);
    const b = moduleOf(to);
    if (!next.has(a)) next.set(a, new Set());
    if (!next.has(b)) next.set(b, new Set());
    next.get(a)!.add(b);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const members: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        members.push(w);
      } while (w !== v);
      if (members.length > 1 || next.get(v)!.has(v)) out.push(members.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
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
// ---------------------------------------------------------------------------
// Public faces between domains (issue 28).
//
// A file another domain may import says so: `@public` in its opening module
// comment, with a sentence saying whom it serves. Everything else in a domain
// folder is private to it, so a domain's insides can change without a search
// over 25 other folders. A tables.ts may import another domain's tables.ts
// (foreign keys); a verb that wants another domain's rows asks the owning
// domain's public file (sites/facts.ts, cms/media-facts.ts, crm/facts.ts…).

/** The opening comment of a module (before its first import), "" when it has none. */
export function moduleComment(source: string): string {
  return /^\s*\/\*[\s\S]*?\*\//.exec(source)?.[0] ?? "";
}

const publicFiles = new Map<string, boolean>();

/** Whether the module at `to` (relative to src, no extension) is tagged @public. Each file is read once. */
export function isPublicFile(to: string, src = SRC): boolean {
  const key = join(src, to);
  const known = publicFiles.get(key);
  if (known !== undefined) return known;
  let tagged = false;
  for (const ext of [".ts", ".tsx"]) {
    let text: string;
    try {
      text = readFileSync(key + ext, "utf8");
    } catch {
      continue;
    }
    tagged = /(^|\s)@public\b/.test(moduleComment(text));
    break;
  }
  publicFiles.set(key, tagged);
  return tagged;
}

const isTables = (p: string) => /^domains\/[^/]+\/tables(\.ts)?$/.test(p);
/**
 * A domain's demo part (demo.ts) writes the rows its story needs in the
 * seed's one transaction, other domains' rows included (a deck's approval
 * link, a card's media): like a tables.ts's foreign keys, it may name
 * another domain's tables. It runs once, on an empty data dir.
 */
const isDemo = (p: string) => /^domains\/[^/]+\/demo\.ts$/.test(p);

/** Every cross-domain edge to a file not tagged @public (tables → tables aside), as "from → to: why". */
export function faceViolations(
  edges: readonly Edge[],
  isPublic: (to: string) => boolean = (to) => isPublicFile(to),
): string[] {
  const out: string[] = [];
  for (const { from, to } of edges) {
    const a = domainOf(from);
    const b = domainOf(to);
    if (a === null || b === null || a === b) continue;
    if ((isTables(from) || isDemo(from)) && isTables(to)) continue;
    if (isPublic(to)) continue;
    out.push(
      isTables(to)
        ? `${from} → ${to}: another domain's tables are private to it (only a tables.ts may import them, for foreign keys); call a read model in a @public file of ${b}, or add one there`
        : `${from} → ${to}: ${to} is private to ${b}; import a file of ${b} tagged @public, or tag this one (@public in its opening comment, saying whom it serves)`,
    );
  }
  return out;
}

/** Cross-domain imports, how many reach tables.ts, and how many reach an untagged file (tables → tables aside). */
export function faceCounts(edges: readonly Edge[]) {
  const cross = edges.filter((e) => {
    const a = domainOf(e.from);
    const b = domainOf(e.to);
    return a !== null && b !== null && a !== b;
  });
  return {
    crossDomain: cross.length,
    toTables: cross.filter((e) => isTables(e.to)).length,
    tablesToTables: cross.filter((e) => isTables(e.from) && isTables(e.to)).length,
    toPrivate: faceViolations(cross).length,
  };
}

// ---------------------------------------------------------------------------

describe("import graph of src", () => {
  const edges = edgesOf(SRC);

  test("the reader sees the imports (the check is not vacuous)", () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual({ from: "domains/cms/posts.ts", to: "domains/approvals/links" });
    expect(edges).toContainEqual({ from: "catalog.ts", to: "domains" });
    expect(edges).toContainEqual({ from: "domains/index.ts", to: "domains/approvals/tools" });
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
      { from: "domains/chat/portal.tsx", to: "portal/layout" },
      { from: "domains/notifications/types.ts", to: "domains/index" },
      { from: "app.ts", to: "domains" },
      { from: "mcp/define.ts", to: "domains/approvals/kinds" },
    ];
    const found = violations(bad);
    expect(found).toHaveLength(9);
    expect(found[6]).toBe(
      "domains/notifications/types.ts → domains/index: only catalog.ts imports the domain list; take the catalog (Deps.catalog) instead",
    );
    expect(found[7]).toStartWith("app.ts → domains: only catalog.ts imports the domain list");
    expect(found[8]).toBe(
      "mcp/define.ts → domains/approvals/kinds: the plug-in contract imports no domain; let the domain declare it on its Domain",
    );
    expect(found[0]).toStartWith("core/audit.ts → domains/accounts/tables");
    expect(found[2]).toContain("domains/accounts/credentials.ts → oauth/tables");
    expect(found[4]).toContain("approvals domain imports no other domain");
    // What the rules allow.
    expect(
      violations([
        { from: "domains/cms/tools.ts", to: "mcp/define" },
        { from: "domains/cms/posts.ts", to: "domains/approvals/links" },
        { from: "catalog.ts", to: "domains" },
        { from: "mcp/catalog.ts", to: "mcp/define" },
        { from: "core/db.ts", to: "../db/migrations/index" },
        { from: "rest/routes.ts", to: "domains/cms/public-reads" },
      ]),
    ).toEqual([]);
    // Public faces: a verb reading another domain's tables, a file importing another domain's untagged file.
    const tagged = new Set(["domains/crm/facts", "domains/sites/facts"]);
    const faces = faceViolations(
      [
        { from: "domains/chat/conversations.ts", to: "domains/sites/tables" },
        { from: "domains/notifications/tools.ts", to: "domains/profile/tools" },
        { from: "domains/email/segments.ts", to: "domains/crm/facts" },
        { from: "domains/decks/theme.ts", to: "domains/sites/facts" },
        { from: "domains/cms/tables.ts", to: "domains/sites/tables" },
        { from: "domains/cms/posts.ts", to: "domains/cms/common" },
        { from: "domains/cms/posts.ts", to: "core/fields" },
      ],
      (to) => tagged.has(to),
    );
    expect(faces).toHaveLength(2);
    expect(faces[0]).toStartWith("domains/chat/conversations.ts → domains/sites/tables: another domain's tables");
    expect(faces[0]).toContain("read model in a @public file of sites");
    expect(faces[1]).toStartWith(
      "domains/notifications/tools.ts → domains/profile/tools: domains/profile/tools is private",
    );
    expect(faces[1]).toContain("tag this one (@public");
  });

  test("a domain imports another only through a file tagged @public (tables → tables aside)", () => {
    expect(faceViolations(edges)).toEqual([]);
    expect(faceCounts(edges).toPrivate).toBe(0);
  });

  test("@public is read from the opening comment only, and from real files", () => {
    expect(moduleComment("/**\n * @public Serves email.\n */\nimport x;")).toContain("@public");
    expect(moduleComment('import { x } from "./y";\n/** @public */')).toBe("");
    expect(isPublicFile("domains/crm/facts")).toBe(true);
    expect(isPublicFile("domains/sites/access")).toBe(true);
    expect(isPublicFile("domains/cms/common")).toBe(false);
    expect(isPublicFile("domains/profile/tools")).toBe(false);
    expect(isPublicFile("domains/nowhere/missing")).toBe(false);
  });

  test("no circle of imports anywhere in src", () => {
    expect(circles(edges)).toEqual([]);
  });

  test("a circle is found and named, through require() and import() too", () => {
    const planted: Edge[] = [
      { from: "domains/notifications/types.ts", to: "domains" },
      { from: "domains/index.ts", to: "domains/notifications/tools" },
      { from: "domains/notifications/tools.ts", to: "domains/notifications/types" },
      { from: "core/a.ts", to: "core/b" },
    ];
    expect(circles(planted)).toEqual([["domains/index", "domains/notifications/tools", "domains/notifications/types"]]);
    expect(circles(planted.slice(1))).toEqual([]);
    expect(specifiers('const { domains } = require("../index") as X;\nawait import("./y");')).toEqual([
      "../index",
      "./y",
    ]);
    expect(specifiers('foo.require("./not-an-import");')).toEqual([]);
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
