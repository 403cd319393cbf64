/**
 * `plinth keys create|revoke|list`: REST read keys. `create` prints only the
 * new key on stdout, so `KEY=$(plinth keys create --site 1)` works; notes go
 * to stderr. Nothing ever prints a secret other than the one just minted.
 */
import { catalog } from "../catalog";
import type { Deps } from "../core/context";
import { openDeps } from "../core/open";
import { createRestKey, listRestKeys, revokeRestKey } from "../domains/sites/rest-keys";
import type { Config } from "../config";
import { needFlag, UsageError, type Command } from "./command";

function positiveId(raw: string, what: string): number {
  if (!/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw)))
    throw new UsageError(`${what} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

/** Accepts an ISO 8601 date ("2030-01-31", read as midnight UTC) or date-time ("2030-01-31T12:00:00Z"). */
export function parseExpiry(raw: string): Date {
  const ok = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(raw);
  const d = new Date(raw);
  // Date rolls 2030-02-30 over to March; a calendar date must survive the round trip.
  const calendarOk = ok && !Number.isNaN(d.getTime()) && (raw.length > 10 || d.toISOString().slice(0, 10) === raw);
  if (!calendarOk)
    throw new UsageError(
      `--expires must be an ISO 8601 date or date-time with offset (e.g. 2030-01-31 or 2030-01-31T12:00:00Z), got "${raw}"`,
    );
  return d;
}

async function withDeps<T>(config: Config, fn: (deps: Deps) => T | Promise<T>): Promise<T> {
  const deps = await openDeps(config, catalog, { listen: false });
  try {
    return await fn(deps);
  } finally {
    await deps.close();
  }
}

export const restKeyCommands: Command[] = [
  {
    name: "keys create",
    flags: [
      { name: "site", value: "<id>", required: true, help: "the site the key reads" },
      { name: "name", value: "<text>", help: "a label shown in lists" },
      {
        name: "expires",
        value: "<date>",
        help: "ISO 8601 date or date-time with offset (2030-01-31, 2030-01-31T12:00:00Z); default never",
      },
    ],
    summary: "Issue a REST key for one site; prints only the key (shown once, stored hashed).",
    async run({ flags, config }) {
      const siteId = positiveId(needFlag(flags, "site"), "--site");
      const name = flags.name === undefined ? undefined : needFlag(flags, "name");
      const expiresAt = flags.expires === undefined ? undefined : parseExpiry(needFlag(flags, "expires"));
      const created = await withDeps(config, async (deps) => await createRestKey(deps, { siteId, name, expiresAt }));
      console.log(created.key);
      console.error(
        `Key ${created.id} "${created.name}" for site ${siteId}${created.expiresAt ? `, expires ${created.expiresAt}` : ""}. Store it now: only its hash is kept.`,
      );
    },
  },
  {
    name: "keys revoke",
    args: "<key-id>",
    summary: "Revoke a REST key at once.",
    async run({ rest, config }) {
      if (rest.length !== 1) throw new UsageError("give exactly one key id");
      const id = positiveId(rest[0]!, "key id");
      const k = await withDeps(config, async (deps) => await revokeRestKey(deps, id));
      console.log(`revoked key ${k.id} "${k.name}" (site ${k.siteId})`);
    },
  },
  {
    name: "keys list",
    flags: [{ name: "site", value: "<id>", required: true, help: "the site whose keys to list" }],
    summary: "List a site's REST keys (id, name, hint, created, last used, expires, revoked); never secrets.",
    async run({ flags, config }) {
      const siteId = positiveId(needFlag(flags, "site"), "--site");
      const keys = await withDeps(config, async (deps) => await listRestKeys(deps, siteId));
      const head = ["ID", "NAME", "HINT", "CREATED", "LAST USED", "EXPIRES", "REVOKED"];
      const rows = keys.map((k) => [
        String(k.id),
        k.name,
        `${k.hint}…`,
        k.createdAt,
        k.lastUsedAt ?? "-",
        k.expiresAt ?? "-",
        k.revokedAt ?? "-",
      ]);
      const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
      const line = (r: string[]) =>
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd();
      console.log([line(head), ...rows.map(line)].join("\n"));
      if (!keys.length) console.error(`site ${siteId} has no REST keys`);
    },
  },
];
