/**
 * The approval workflow's view of the domains: every approvable kind,
 * staged-change target, tool and support answer, collected from the domain
 * list (src/domains/index.ts). Nothing here names a domain: a domain adds
 * an approvable type in its own folder (`approvalKinds` on its Domain)
 * and is listed once in src/domains/index.ts.
 *
 * The list is handed over by src/domains/index.ts when it has loaded
 * (useDomains), not imported from it: the domains' modules import the
 * approvals module themselves (links, staging), and importing the list here
 * would close a cycle in which a domain is read before it exists.
 * Collected on first use.
 */
import type { Domain, ToolDef } from "../../mcp/define";
import type { ApprovalKind, ApprovalSupport, StagedTarget } from "./kinds";
import type { Tx } from "./links";

interface Collected {
  kinds: Map<string, ApprovalKind>;
  targets: Map<string, StagedTarget>;
  tools: Map<string, ToolDef>;
  support: Required<ApprovalSupport>;
}

let collected: Collected | null = null;
let domains: readonly Domain[] | null = null;

/** Called once by src/domains/index.ts with every domain. */
export function useDomains(list: readonly Domain[]): void {
  domains = list;
  collected = null;
}

function collect(): Collected {
  const kinds = new Map<string, ApprovalKind>();
  const targets = new Map<string, StagedTarget>();
  const tools = new Map<string, ToolDef>();
  const single: { [K in "site" | "credentialRevoked"]?: { domain: string; fn: NonNullable<ApprovalSupport[K]> } } = {};
  const css: NonNullable<ApprovalSupport["previewCss"]>[] = [];
  if (!domains) throw new Error("the approvals registry has no domain list yet: import src/domains (index.ts) first");
  for (const d of domains) {
    for (const t of d.tools) tools.set(t.name, t);
    for (const k of d.approvalKinds ?? []) {
      if (kinds.has(k.entityType))
        throw new Error(`Two approval kinds for ${k.entityType} (again in domain ${d.name})`);
      kinds.set(k.entityType, k);
    }
    for (const t of d.stagedTargets ?? [])
      for (const name of t.tools) {
        if (targets.has(name)) throw new Error(`Two staged targets for ${name} (again in domain ${d.name})`);
        targets.set(name, t);
      }
    const s = d.approvalSupport ?? {};
    for (const key of ["site", "credentialRevoked"] as const) {
      const fn = s[key];
      if (!fn) continue;
      if (single[key]) throw new Error(`Approval support ${key} is given by both ${single[key]!.domain} and ${d.name}`);
      (single as Record<string, unknown>)[key] = { domain: d.name, fn };
    }
    if (s.previewCss) css.push(s.previewCss);
  }
  return {
    kinds,
    targets,
    tools,
    support: {
      // Without a provider: no site is known (approvals_list's siteId finds nothing), no credential is revoked.
      site: single.site?.fn ?? (async () => null),
      credentialRevoked: single.credentialRevoked?.fn ?? (async () => false),
      previewCss: async (db: Tx, siteId: number | null) => {
        const parts: string[] = [];
        for (const f of css) parts.push(await f(db, siteId));
        return parts.join("\n");
      },
    },
  };
}

function contributions(): Collected {
  collected ??= collect();
  return collected;
}

export function approvalKind(entityType: string): ApprovalKind | undefined {
  return contributions().kinds.get(entityType);
}

export function approvalKindTypes(): string[] {
  return [...contributions().kinds.keys()];
}

export function stagedTarget(toolName: string): StagedTarget | undefined {
  return contributions().targets.get(toolName);
}

export function toolByName(name: string): ToolDef | undefined {
  return contributions().tools.get(name);
}

/** The domains' answers to what approval pages ask (site names, preview styles, revoked credentials). */
export function approvalSupport(): Required<ApprovalSupport> {
  return contributions().support;
}
