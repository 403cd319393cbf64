/**
 * Choosing what a credential may do, in words a person reads: one line per
 * area (the domain of a scope: `crm`, `sites`, `store` …) with a choice of
 * no access / read / read and change, plus `*` as a separate "full access"
 * box with a warning. One component for both places a person grants scopes:
 * the OAuth consent screen (offering only what the client asked for) and
 * Settings → API keys (offering everything).
 *
 * The areas, their titles and the words are what each domain declares
 * (`scopes` on its Domain). Only areas whose scopes gate a tool or resource
 * in this server's MCP registry are shown (`registry()`, read once; nothing here lists tools by
 * hand), so an area without tools yet is neither shown nor granted. A level
 * grants the area's gating scopes of that level that the request covers,
 * written out explicitly (`store:read store:write`, never `store:*`): the
 * result never exceeds what was asked, in the wildcard-aware sense of
 * `covers` (src/core/scopes.ts).
 */
import type { FC } from "hono/jsx";
import { invalid } from "../core/errors";
import { covers, SCOPES } from "../core/scopes";
import { catalog } from "../catalog";
import { registry } from "../mcp/routes";
import type { Form } from "../ui/form-data";

export type Level = "none" | "read" | "write";

/** Each area's name and, per scope, what it lets a connection do (interface.md 5.3 in plain words), as the domains declare them. */
const AREAS: Record<string, { title: string; words: Record<string, string> }> = Object.fromEntries(
  catalog.scopeAreas.map((a) => [a.area, a]),
);

const domainOf = (scope: string) => scope.split(":")[0]!;
const isReadScope = (scope: string) => scope.endsWith(":read");

export interface Area {
  domain: string;
  title: string;
  /** The area's `:read` scopes that gate something in the registry. */
  readScopes: string[];
  /** Its other gating scopes (write, manage, send, approve). */
  writeScopes: string[];
}

let areas: Area[] | undefined;
/** Areas with at least one tool or resource in the registry, in the order of the scope table. */
export function toolAreas(): Area[] {
  if (areas) return areas;
  const reg = registry();
  const gating = new Set<string>();
  for (const t of reg.tools) if (t.def.scope) gating.add(t.def.scope);
  for (const r of reg.resources) if (r.scope) gating.add(r.scope);
  const domains = [...new Set(SCOPES.map(domainOf))];
  areas = domains
    .map((domain) => {
      const mine = SCOPES.filter((s) => domainOf(s) === domain && gating.has(s));
      return {
        domain,
        title: AREAS[domain]!.title,
        readScopes: mine.filter(isReadScope),
        writeScopes: mine.filter((s) => !isReadScope(s)),
      };
    })
    .filter((a) => a.readScopes.length + a.writeScopes.length > 0);
  return areas;
}

export interface AreaOffer {
  area: Area;
  /** The scopes each offered level grants; a level is offered when it grants something the request covers. */
  read: string[] | null;
  write: string[] | null;
  /** The highest level offered: what the request asked for. */
  asked: Exclude<Level, "none">;
}

export interface ScopeOffer {
  areas: AreaOffer[];
  /** `*` was asked, so the full-access box is offered. */
  fullAccess: boolean;
  /** Areas asked for that have no tools here: neither shown as a choice nor granted. */
  withoutTools: string[];
}

/** What a person may grant for a request of `asked` scopes (wildcards included). */
export function offerFor(asked: readonly string[]): ScopeOffer {
  const offered: AreaOffer[] = [];
  for (const area of toolAreas()) {
    const read = area.readScopes.filter((s) => covers(asked, s));
    const write = area.writeScopes.filter((s) => covers(asked, s));
    if (read.length + write.length === 0) continue;
    offered.push({
      area,
      read: read.length ? read : null,
      write: write.length ? [...read, ...write] : null,
      asked: write.length ? "write" : "read",
    });
  }
  const shown = new Set(offered.map((o) => o.area.domain));
  const withoutTools = [...new Set(asked.filter((s) => s !== "*").map(domainOf))]
    .filter((d) => !shown.has(d) && AREAS[d])
    .map((d) => AREAS[d]!.title);
  return { areas: offered, fullAccess: asked.includes("*"), withoutTools };
}

/** Everything, for Settings → API keys. */
export const offerAll = () => offerFor(["*"]);

export interface ScopeChoice {
  levels: ReadonlyMap<string, Level>;
  fullAccess: boolean;
}

/**
 * The choice a consent screen starts from: every area at the level asked.
 * The full-access box is ticked only when `*` was the only thing asked; a
 * client asking for `*` among other scopes (as SDKs asking for every
 * advertised scope do) gets every area at read and change instead.
 */
export function askedChoice(offer: ScopeOffer, asked: readonly string[]): ScopeChoice {
  return {
    levels: new Map(offer.areas.map((o) => [o.area.domain, o.asked])),
    fullAccess: offer.fullAccess && asked.length === 1 && asked[0] === "*",
  };
}

/** The choice that grants nothing (a new API key). */
export const emptyChoice: ScopeChoice = { levels: new Map(), fullAccess: false };

/** The scopes a choice grants: `*` alone when full access is ticked, else each area's level, in table order. */
export function grantedScopes(offer: ScopeOffer, choice: ScopeChoice): string[] {
  if (choice.fullAccess && offer.fullAccess) return ["*"];
  const out = new Set<string>();
  for (const o of offer.areas) {
    const level = choice.levels.get(o.area.domain) ?? "none";
    for (const s of (level === "write" ? o.write : level === "read" ? o.read : null) ?? []) out.add(s);
  }
  return SCOPES.filter((s) => out.has(s));
}

const FIELD = "access_";
const LEVEL_LABELS: Record<Level, string> = { none: "No access", read: "Read", write: "Read and change" };

/**
 * Reads a posted choice against what was offered. A level or area that was
 * not offered, or full access when `*` was not asked, is a 400 naming it:
 * nothing beyond the offer can be granted, even by a hand-made post. An
 * area left out of the post counts as no access.
 */
export function readScopeChoice(form: Form, offer: ScopeOffer): ScopeChoice {
  const byDomain = new Map(offer.areas.map((o) => [o.area.domain, o]));
  for (const name of new Set(form.params.keys()))
    if (name.startsWith(FIELD) && !byDomain.has(name.slice(FIELD.length)))
      throw invalid(`${name.slice(FIELD.length, FIELD.length + 40)} is not one of the areas offered.`);
  const levels = new Map<string, Level>();
  for (const [domain, o] of byDomain) {
    const v = form.text(FIELD + domain, { label: o.area.title, max: 100 }) || "none";
    const offered = v === "none" || (v === "read" && o.read) || (v === "write" && o.write);
    if (!offered) throw invalid(`${o.area.title}: choose one of the levels offered.`);
    levels.set(domain, v as Level);
  }
  const fullAccess = form.bool("full_access");
  if (fullAccess && !offer.fullAccess) throw invalid("Full access was not asked for, so it cannot be granted.");
  const choice = { levels, fullAccess };
  const implied = impliedProblem(offer, choice);
  if (implied) throw invalid(implied);
  return choice;
}

const RANK: Record<Level, number> = { none: 0, read: 1, write: 2 };

/**
 * A choice whose scopes would give an area more than the level chosen for
 * it, through a scope of another area that includes it (the grammar of
 * src/core/scopes.ts lets one area's scope cover another's, e.g. reading
 * Sites & content includes reading Media): the page would not say what is
 * granted, so the person is asked to make the two agree.
 */
function impliedProblem(offer: ScopeOffer, choice: ScopeChoice): string | null {
  const scopes = grantedScopes(offer, choice);
  if (scopes.includes("*")) return null;
  for (const o of offer.areas) {
    const chosen = choice.levels.get(o.area.domain) ?? "none";
    for (const level of ["read", "write"] as const) {
      const levelScopes = level === "read" ? o.read : o.write;
      if (RANK[level] <= RANK[chosen] || !levelScopes) continue;
      const extra = levelScopes.filter((x) => !scopes.includes(x));
      if (!extra.length || !extra.every((x) => covers(scopes, x))) continue;
      const by = [
        ...new Set(
          scopes.filter((g) => domainOf(g) !== o.area.domain && extra.some((x) => covers([g], x))).map(domainOf),
        ),
      ];
      const titles = joinWords(by.map((d) => AREAS[d]!.title));
      return `${o.area.title}: what you chose for ${titles} already includes “${LEVEL_LABELS[level]}” for ${o.area.title}. Choose ${LEVEL_LABELS[level]} for ${o.area.title} too, or less for ${titles}.`;
    }
  }
  return null;
}

/** Other areas with a scope that includes reading this one (src/core/scopes.ts), by title. */
function readAlsoComesWith(area: Area): string[] {
  return toolAreas()
    .filter(
      (b) =>
        b.domain !== area.domain &&
        [...b.readScopes, ...b.writeScopes].some((g) => area.readScopes.some((r) => covers([g], r))),
    )
    .map((b) => b.title);
}

const capitalised = (s: string) => s.slice(0, 1).toUpperCase() + s.slice(1);

function joinWords(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}

/** "read contacts, companies, deals and pipelines … and change them" for an offered area. */
export function areaLine(o: AreaOffer): string {
  const words = AREAS[o.area.domain]!.words;
  const read = (o.read ?? []).map((s) => words[s]!);
  const write = (o.write ?? []).filter((s) => !isReadScope(s)).map((s) => words[s]!);
  const line = !read.length
    ? joinWords(write)
    : write.length
      ? `${joinWords(read)} … and ${write.join(", and ")}`
      : joinWords(read);
  const also = readAlsoComesWith(o.area);
  return also.length ? `${line} (reading it also comes with ${joinWords(also)})` : line;
}

/**
 * What a request asks for, as the rest of a sentence whose subject is the
 * client: "asks to read and change Store and Media, and to read Branding".
 */
export function askedSummary(offer: ScopeOffer, asked: readonly string[]): string {
  if (offer.fullAccess && asked.length === 1)
    return "asks for full access to everything your account can do, including tools added later";
  const titles = (level: Level) => joinWords(offer.areas.filter((o) => o.asked === level).map((o) => o.area.title));
  const parts = [];
  if (titles("write")) parts.push(`to read and change ${titles("write")}`);
  if (titles("read")) parts.push(`to read ${titles("read")}`);
  if (!parts.length)
    return offer.fullAccess
      ? "asks for full access to everything, including tools added later"
      : "asks only for access this server has no tools for yet";
  return `asks ${parts.join(", and ")}${offer.fullAccess ? ", or for full access to everything, including tools added later" : ""}`;
}

export const FULL_ACCESS_LABEL = "Full access to everything this account can do (includes future tools)";

/**
 * The form control: the full-access box (when offered) with its warning,
 * then one fieldset per area with a radio per level. Works without
 * JavaScript; every input has a label, every group a legend.
 */
export const ScopeChooser: FC<{ offer: ScopeOffer; choice: ScopeChoice }> = ({ offer, choice }) => (
  <div class="scopes">
    {offer.fullAccess && (
      <div class="row full-access">
        <label class="inline">
          <input
            type="checkbox"
            name="full_access"
            value="on"
            checked={choice.fullAccess}
            aria-describedby="full-access-warning"
          />{" "}
          <strong>{FULL_ACCESS_LABEL}</strong>
        </label>
        <p class="notice warn small" id="full-access-warning">
          Warning: this grants every tool Plinth has, and every tool added later, wherever your role allows. When it is
          ticked the choices below do not limit it. Leave it unticked and choose per area unless you trust this fully.
        </p>
      </div>
    )}
    {offer.areas.map((o) => {
      const d = o.area.domain;
      const level = choice.levels.get(d) ?? "none";
      const radio = (value: Level) => (
        <label class="inline">
          <input type="radio" name={FIELD + d} value={value} checked={level === value} /> {LEVEL_LABELS[value]}
        </label>
      );
      return (
        <fieldset class="row area" aria-describedby={`area-${d}`}>
          <legend>{o.area.title}</legend>
          <span class="what muted small" id={`area-${d}`}>
            {capitalised(areaLine(o))}
          </span>
          <span class="levels">
            {radio("none")}
            {o.read && radio("read")}
            {o.write && radio("write")}
          </span>
        </fieldset>
      );
    })}
  </div>
);
