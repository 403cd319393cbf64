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
 *               src/mcp/define.ts, and the one file of the portal that
 *               domains' signed-in pages use, src/portal/kit.ts. Never a
 *               web adapter: not src/rest, src/mcp (but define.ts),
 *               src/portal (but kit.ts), src/oauth,
 *               src/approvals, src/ops, src/cli, app.ts, server.ts, main.ts.
 *               Verbs are what adapters call, whichever adapter it is.
 *   approvals   src/domains/approvals is the generic workflow other domains
 *   domain      plug into: they import it (links, kinds, staging), it
 *               imports none of them. What it needs from them comes through
 *               the Domain values they declare (approvalKinds,
 *               stagedTargets, approvalSupport), read from the domain list
 *               src/domains/index.ts, the one file under src/domains it may
 *               import besides its own.
 *   adapters    src/rest, src/mcp, src/portal, src/oauth, src/approvals,
 *               src/ops, src/cli, app.ts, server.ts, main.ts: may import
 *               anything inside.
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
/** Domains' portal pages (Domain.portal) build on this one file of the portal. */
const PORTAL_CONTRACT = "portal/kit";

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
    if (fromDomain !== null && ADAPTERS.test(to) && to !== MCP_CONTRACT && to !== PORTAL_CONTRACT)
      out.push(
        `${from} → ${to}: a domain imports no web adapter (only ${MCP_CONTRACT}, the tool declaration contract, and ${PORTAL_CONTRACT} for its portal pages)`,
      );
    if (fromDomain === "approvals") {
      const toDomain = domainOf(to);
      if (toDomain !== null && toDomain !== "approvals")
        out.push(
          `${from} → ${to}: the approvals domain imports no other domain (it reads their Domain values from domains/index)`,
        );
    }
  }
  return out;
}

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
 * Cross-domain edges that still reach a private file, each to be removed
 * from here when it is fixed (the test below fails on an entry that no
 * longer exists, so this list only shrinks). Not fixed on the faces branch:
 * the portal pages and approvals/registry.ts are being changed on other
 * branches (the portal pages then take users and memberships from
 * core/tables; registry.ts needs its @public tag), and hosting joins sites'
 * domains with its own check state in one statement (its scheduler's due
 * queries too), which wants a read model of sites' domains designed for it.
 */
export const NOT_YET_PUBLIC: readonly string[] = [
  "domains/ai/portal.tsx → domains/accounts/tables",
  "domains/chat/portal.tsx → domains/accounts/tables",
  "domains/automations/automations.ts → domains/approvals/registry",
  "domains/automations/definition.ts → domains/approvals/registry",
  "domains/automations/runner.ts → domains/approvals/registry",
  "domains/hosting/checks.ts → domains/sites/tables",
  "domains/hosting/verbs.ts → domains/sites/tables",
];

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
    if (isTables(from) && isTables(to)) continue;
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
      { from: "domains/chat/portal.tsx", to: "portal/layout" },
    ];
    const found = violations(bad);
    expect(found).toHaveLength(6);
    expect(found[0]).toStartWith("core/audit.ts → domains/accounts/tables");
    expect(found[2]).toContain("domains/accounts/credentials.ts → oauth/tables");
    expect(found[4]).toContain("approvals domain imports no other domain");
    // What the rules allow.
    expect(
      violations([
        { from: "domains/cms/tools.ts", to: "mcp/define" },
        { from: "domains/chat/portal.tsx", to: "portal/kit" },
        { from: "domains/cms/posts.ts", to: "domains/approvals/links" },
        { from: "domains/approvals/registry.ts", to: "domains/index" },
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
    const known = new Set(NOT_YET_PUBLIC);
    const found = faceViolations(edges);
    expect(found.filter((v) => !known.has(v.slice(0, v.indexOf(":"))))).toEqual([]);
    // The list of edges not yet fixed only shrinks: a fixed edge leaves it.
    const edgeNames = new Set(found.map((v) => v.slice(0, v.indexOf(":"))));
    expect(NOT_YET_PUBLIC.filter((e) => !edgeNames.has(e))).toEqual([]);
    expect(faceCounts(edges).toPrivate).toBe(NOT_YET_PUBLIC.length);
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

  test("comments and strings that look like imports are not imports", () => {
    expect(
      specifiers(
        '/** @example import { x } from "../domains/y"; */\n// import "z";\nimport { a } from "./a";\nexport * from "./b";\nconst m = await import("./c");',
      ),
    ).toEqual(["./a", "./b", "./c"]);
    expect(specifiers('import {\n  a,\n  type B,\n} from "./multi";\nimport "./side";')).toEqual(["./multi", "./side"]);
  });
});
