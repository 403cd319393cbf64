/**
 * Accounts for self-hosters: users, companies, memberships and MCP API keys.
 * `mcp-keys create` prints only the new key on stdout, so
 * `KEY=$(plinth mcp-keys create …)` works; notes go to stderr. No command
 * prints a stored secret: `mcp-keys list` shows the hint only.
 */
import { iso, systemClock } from "../core/clock";
import type { Deps } from "../core/context";
import { openDeps } from "../core/open";
import { isGrantable } from "../core/scopes";
import type { Config } from "../config";
import { ROLES } from "../domains/accounts/tables";
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
import { needFlag, UsageError, type Command } from "./command";
import { parseExpiry } from "./rest-keys";

function positiveId(raw: string, what: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw)))
    throw new UsageError(`${what} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

async function withDeps<T>(config: Config, fn: (deps: Deps) => T | Promise<T>): Promise<T> {
  const deps = await openDeps(config, { listen: false });
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
    usage: "plinth users create --email <email> --password <password> [--name <text>]",
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
    usage: "plinth companies create --name <text> --owner <email>",
    summary: "Create a company with that user as its owner.",
    async run({ flags, config }) {
      const name = needFlag(flags, "name");
      const owner = needFlag(flags, "owner");
      const c = await withDeps(config, async (deps) => await createCompany(deps, { name, ownerUserId: (await userByEmail(deps, owner)).id }));
      console.log(`created company ${c.id} "${c.name}" owned by ${owner.trim().toLowerCase()}`);
    },
  },
  {
    name: "members add",
    usage: "plinth members add --company <id> --email <email> --role owner|admin|viewer",
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
    usage: "plinth members remove --company <id> --email <email>",
    summary: "Remove a user from a company; their credentials lose that company at once.",
    async run({ flags, config }) {
      const companyId = positiveId(needFlag(flags, "company"), "--company");
      const email = needFlag(flags, "email");
      const removed = await withDeps(config, async (deps) => await removeMember(deps, companyId, (await userByEmail(deps, email)).id));
      if (!removed) {
        console.error(`plinth members remove: ${email.trim().toLowerCase()} is not a member of company ${companyId}`);
        return 1;
      }
      console.log(`removed ${email.trim().toLowerCase()} from company ${companyId}`);
    },
  },
  {
    name: "mcp-keys create",
    usage:
      'plinth mcp-keys create --email <email> --scopes "<space-separated scopes>" [--companies 1,2] [--require-cms-approval] [--expires <ISO date>] [--name <text>]',
    summary: "Issue an MCP API key (svc_mcp_…); prints only the key (shown once, stored hashed).",
    async run({ flags, config }) {
      const email = needFlag(flags, "email");
      const scopes = needFlag(flags, "scopes").split(/[\s,]+/).filter(Boolean);
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
      const created = await withDeps(config, async (deps) => {
        const user = await userByEmail(deps, email);
        const companyIds = companies ?? (await membershipsOf(deps, user.id)).map((m) => m.id);
        const k = await mintMcpKey(deps, {
                  userId: user.id,
                  scopes,
                  companyIds,
                  requireCmsApproval: flags["require-cms-approval"] === true,
                  expiresAt,
                  name,
                });
        return { ...k, companyIds };
      });
      console.log(created.key);
      console.error(
        `Key ${created.id} for ${email.trim().toLowerCase()}: scopes ${scopes.join(" ")}; companies ${
          created.companyIds.join(", ") || "(none)"
        }${expiresAt ? `; expires ${iso(expiresAt)}` : ""}. Store it now: only its hash is kept.`,
      );
    },
  },
  {
    name: "mcp-keys revoke",
    usage: "plinth mcp-keys revoke <key-id>",
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
    usage: "plinth mcp-keys list --email <email>",
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
