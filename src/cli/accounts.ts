/**
 * Accounts for self-hosters: users, companies, memberships, sites and MCP
 * API keys. A new site's brand profile starts from its company's default.
 * `mcp-keys create` prints only the new key on stdout, so
 * `KEY=$(plinth mcp-keys create …)` works; notes go to stderr. No command
 * prints a stored secret: `mcp-keys list` shows the hint only.
 * `mcp-keys create --help` lists the scopes this build grants.
 */
import { catalog } from "../catalog";
import { iso, systemClock } from "../core/clock";
import type { Deps } from "../core/context";
import { openDeps } from "../core/open";
import { isGrantable } from "../core/scopes";
import type { Config } from "../config";
import { ROLES } from "../core/roles";
import {
  addMember,
  createCompany,
  createUser,
  isRole,
  listMcpKeys,
  membershipsOf,
  mintMcpKey,
  removeMember,
  revokeMcpKey,
  userByEmail,
} from "../domains/accounts/verbs";
import { createSite } from "../domains/sites/verbs";
import { wrap } from "./args";
import { needFlag, UsageError, type Command } from "./command";
import { parseExpiry } from "./rest-keys";
import { parseListingMode } from "../mcp/listing";

function positiveId(raw: string, what: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw)))
    throw new UsageError(`${what} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

async function withDeps<T>(config: Config, fn: (deps: Deps) => T | Promise<T>): Promise<T> {
  const deps = await openDeps(config, catalog, { listen: false });
  try {
    return await fn(deps);
  } finally {
    await deps.close();
  }
}

function role(raw: string) {
  if (!isRole(raw)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}, got "${raw}"`);
  return raw;
}

export const accountCommands: Command[] = [
  {
    name: "users create",
    flags: [
      { name: "email", value: "<email>", required: true, help: "sign-in address (stored lower-cased)" },
      { name: "password", value: "<password>", required: true, help: "portal password (stored as argon2id)" },
      { name: "name", value: "<text>", help: "display name" },
    ],
    summary: "Create a portal user (password stored as argon2id).",
    async run({ flags, config }) {
      const email = needFlag(flags, "email");
      const password = needFlag(flags, "password");
      const name = flags.name === undefined ? undefined : needFlag(flags, "name");
      const u = await withDeps(config, (deps) => createUser(deps, { email, password, name }));
      console.log(`created user ${u.id} ${u.email}`);
    },
  },
  {
    name: "companies create",
    flags: [
      { name: "name", value: "<text>", required: true, help: "the company's name" },
      { name: "owner", value: "<email>", required: true, help: "an existing user who becomes its owner" },
    ],
    summary: "Create a company with that user as its owner.",
    async run({ flags, config }) {
      const name = needFlag(flags, "name");
      const owner = needFlag(flags, "owner");
      const c = await withDeps(
        config,
        async (deps) => await createCompany(deps, { name, ownerUserId: (await userByEmail(deps, owner)).id }),
      );
      console.log(`created company ${c.id} "${c.name}" owned by ${owner.trim().toLowerCase()}`);
    },
  },
  {
    name: "sites create",
    flags: [
      { name: "company", value: "<id>", required: true, help: "the company the site belongs to" },
      { name: "name", value: "<text>", required: true, help: "the site's name" },
      { name: "description", value: "<text>", help: "a line about the site" },
    ],
    summary: "Create a site; its brand profile starts from the company's default profile.",
    async run({ flags, config }) {
      const companyId = positiveId(needFlag(flags, "company"), "--company");
      const name = needFlag(flags, "name");
      const description = flags.description === undefined ? undefined : needFlag(flags, "description");
      const s = await withDeps(config, async (deps) => await createSite(deps, { companyId, name, description }));
      console.log(
        `created site ${s.id} "${s.name}" of company ${s.companyId}${s.brandFields.length ? `, branded from the company default (${s.brandFields.join(", ")})` : ""}`,
      );
    },
  },
  {
    name: "members add",
    flags: [
      { name: "company", value: "<id>", required: true, help: "the company" },
      { name: "email", value: "<email>", required: true, help: "an existing user" },
      { name: "role", value: "owner|admin|viewer", required: true, help: "their role there" },
    ],
    summary: "Add a user to a company, or change their role there.",
    async run({ flags, config }) {
      const companyId = positiveId(needFlag(flags, "company"), "--company");
      const email = needFlag(flags, "email");
      const r = role(needFlag(flags, "role"));
      await withDeps(config, async (deps) => await addMember(deps, companyId, (await userByEmail(deps, email)).id, r));
      console.log(`${email.trim().toLowerCase()} is ${r} of company ${companyId}`);
    },
  },
  {
    name: "members remove",
    flags: [
      { name: "company", value: "<id>", required: true, help: "the company" },
      { name: "email", value: "<email>", required: true, help: "the member to remove" },
    ],
    summary: "Remove a user from a company; their credentials lose that company at once.",
    async run({ flags, config }) {
      const companyId = positiveId(needFlag(flags, "company"), "--company");
      const email = needFlag(flags, "email");
      const removed = await withDeps(
        config,
        async (deps) => await removeMember(deps, companyId, (await userByEmail(deps, email)).id),
      );
      if (!removed) {
        console.error(`plinth members remove: ${email.trim().toLowerCase()} is not a member of company ${companyId}`);
        return 1;
      }
      console.log(`removed ${email.trim().toLowerCase()} from company ${companyId}`);
    },
  },
  {
    name: "mcp-keys create",
    flags: [
      { name: "email", value: "<email>", required: true, help: "the user the key acts as" },
      {
        name: "scopes",
        value: '"<scopes>"',
        required: true,
        help: 'space- or comma-separated scopes, e.g. "sites:* store:read" or "*"',
      },
      {
        name: "companies",
        value: "<id,id>",
        help: "companies the key may reach (default: all the user's memberships)",
      },
      {
        name: "require-cms-approval",
        help: "stage every change the public would see for approval (docs/approvals.md)",
      },
      {
        name: "expires",
        value: "<date>",
        help: "ISO 8601 date or date-time with offset (2030-01-31, 2030-01-31T12:00:00Z); default never",
      },
      { name: "name", value: "<text>", help: "a label shown in lists" },
      {
        name: "listing",
        value: "<mode>",
        help: "tools/list mode: auto (default: full up to 128 tools, else discovery), full, discovery, toolsets:<a>,<b>",
      },
    ],
    summary: "Issue an MCP API key (svc_mcp_…); prints only the key (shown once, stored hashed).",
    // The scopes this build grants, one line per area, from the domains' declarations (the catalog).
    notes: () => [
      'Scopes (also "<area>:*" for a whole area, "*" for every scope):',
      ...catalog.scopeAreas.flatMap((a) => wrap(Object.keys(a.words).join(" "), `  ${a.area.padEnd(14)} `, 17)),
    ],
    async run({ flags, config }) {
      const email = needFlag(flags, "email");
      const scopes = needFlag(flags, "scopes")
        .split(/[\s,]+/)
        .filter(Boolean);
      const bad = scopes.filter((s) => !isGrantable(s));
      if (bad.length) throw new UsageError(`unknown scope${bad.length > 1 ? "s" : ""}: ${bad.join(", ")}`);
      if (!scopes.length) throw new UsageError("--scopes needs at least one scope");
      let companies: number[] | undefined;
      if (flags.companies !== undefined)
        companies = needFlag(flags, "companies")
          .split(",")
          .map((s) => positiveId(s.trim(), "--companies"));
      const expiresAt = flags.expires === undefined ? undefined : parseExpiry(needFlag(flags, "expires"));
      const name = flags.name === undefined ? undefined : needFlag(flags, "name");
      if (flags["require-cms-approval"] !== undefined && flags["require-cms-approval"] !== true)
        throw new UsageError("--require-cms-approval takes no value");
      let listingMode: string | null = null;
      if (flags.listing !== undefined)
        try {
          // Loaded only when asked for: the registry is the whole catalog of tools.
          const { registry } = await import("../mcp/routes");
          listingMode = parseListingMode(needFlag(flags, "listing"), registry());
        } catch (e) {
          throw new UsageError(`--listing: ${(e as Error).message}`);
        }
      const created = await withDeps(config, async (deps) => {
        const user = await userByEmail(deps, email);
        const companyIds = companies ?? (await membershipsOf(deps, user.id)).map((m) => m.id);
        const k = await mintMcpKey(deps, {
          userId: user.id,
          scopes,
          companyIds,
          requireCmsApproval: flags["require-cms-approval"] === true,
          listingMode,
          expiresAt,
          name,
        });
        return { ...k, companyIds };
      });
      console.log(created.key);
      console.error(
        `Key ${created.id} for ${email.trim().toLowerCase()}: scopes ${scopes.join(" ")}; companies ${
          created.companyIds.join(", ") || "(none)"
        }${listingMode ? `; listing ${listingMode}` : ""}${expiresAt ? `; expires ${iso(expiresAt)}` : ""}. Store it now: only its hash is kept.`,
      );
    },
  },
  {
    name: "mcp-keys revoke",
    args: "<key-id>",
    summary: "Revoke an MCP API key at once.",
    async run({ rest, config }) {
      if (rest.length !== 1) throw new UsageError("give exactly one key id");
      const id = positiveId(rest[0]!, "key id");
      const ok = await withDeps(config, async (deps) => await revokeMcpKey(deps, id));
      if (!ok) {
        console.error(`plinth mcp-keys revoke: no MCP key with id ${id}`);
        return 1;
      }
      console.log(`revoked MCP key ${id}`);
    },
  },
  {
    name: "mcp-keys list",
    flags: [{ name: "email", value: "<email>", required: true, help: "the user whose keys to list" }],
    summary: "List a user's MCP API keys (no secrets).",
    async run({ flags, config }) {
      const email = needFlag(flags, "email");
      const keys = await withDeps(config, async (deps) => await listMcpKeys(deps, (await userByEmail(deps, email)).id));
      if (!keys.length) {
        console.log("no MCP keys");
        return;
      }
      for (const k of keys) {
        const state = k.revokedAt
          ? `revoked ${iso(k.revokedAt)}`
          : k.expiresAt && k.expiresAt.getTime() <= systemClock.ms()
            ? `expired ${iso(k.expiresAt)}`
            : k.expiresAt
              ? `expires ${iso(k.expiresAt)}`
              : "active";
        console.log(
          [
            k.id,
            JSON.stringify(k.name),
            `${k.hint}…`,
            `scopes=${k.scopes.join(" ")}`,
            `companies=${k.companyIds.join(",") || "-"}`,
            k.requireCmsApproval ? "cms-approval" : "",
            `listing=${k.listingMode ?? "auto"}`,
            state,
            `last-used=${iso(k.lastUsedAt) ?? "never"}`,
          ]
            .filter(Boolean)
            .join("  "),
        );
      }
    },
  },
];
