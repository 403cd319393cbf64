/**
 * Secrets Plinth must read back in the clear to use them (a DKIM private
 * key, a support mailbox's IMAP password, a CalDAV account's password) are
 * stored sealed: AES-256-GCM under a key that is never in the database, so
 * a copy of the database (a backup, a dump shared for support) does not
 * give them away. Secrets Plinth only compares (keys, tokens, passwords of
 * people) stay hashed as before; this is for the ones it cannot hash.
 *
 * The key is PLINTH_SECRET_KEY when set. Unset, it is <data-dir>/secret.key,
 * 32 random bytes written on first use with mode 0600: right for one
 * machine. Instances sharing a PostgreSQL database must share
 * PLINTH_SECRET_KEY, or each would seal with a key of its own; opening a
 * value sealed under another key fails with a message that says so.
 *
 * A sealed value names its purpose (`context`, e.g. "email_domain:12:dkim"),
 * bound in as GCM's additional data: a value copied into another row or
 * column does not open there.
 *
 * Format: `s1.<iv>.<ciphertext+tag>` (base64url), 12-byte random IV.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config";
import { AppError } from "./errors";

const PREFIX = "s1.";
const IV_BYTES = 12;
const TAG_BYTES = 16;

// One key per data dir for the life of the process (the file is read once).
const fileKeys = new Map<string, Uint8Array>();

function keyFile(dataDir: string): Uint8Array {
  const known = fileKeys.get(dataDir);
  if (known) return known;
  const path = join(dataDir, "secret.key");
  let key: Uint8Array;
  try {
    key = Uint8Array.from(Buffer.from(readFileSync(path, "utf8").trim(), "hex"));
  } catch (e: any) {
    if (e?.code !== "ENOENT") throw e;
    mkdirSync(dataDir, { recursive: true });
    // Written whole to a file of its own, then linked into place: link() fails when the name exists, so two
    // processes starting together never overwrite each other's key, and neither can read a half-written one
    // (a plain exclusive create let the loser read the winner's file before its bytes were in).
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(tmp, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    chmodSync(tmp, 0o600);
    try {
      linkSync(tmp, path);
    } catch (w: any) {
      if (w?.code !== "EEXIST") throw w;
    } finally {
      unlinkSync(tmp);
    }
    key = Uint8Array.from(Buffer.from(readFileSync(path, "utf8").trim(), "hex"));
  }
  if (key.length !== 32) throw new Error(`${path} must hold 64 hex characters (a 32-byte key)`);
  fileKeys.set(dataDir, key);
  return key;
}

function keyOf(config: Pick<Config, "secretKey" | "dataDir">): Uint8Array {
  return config.secretKey ?? keyFile(config.dataDir);
}

/** Seals a secret for storage; `context` names where it is kept and must be given again to open it. */
export function seal(config: Pick<Config, "secretKey" | "dataDir">, plain: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const c = createCipheriv("aes-256-gcm", keyOf(config), iv);
  c.setAAD(Buffer.from(context, "utf8"));
  const body = Buffer.concat([c.update(plain, "utf8"), c.final(), c.getAuthTag()]);
  return `${PREFIX}${iv.toString("base64url")}.${body.toString("base64url")}`;
}

/** Opens a sealed value; an AppError (internal, logged without the value) when it was sealed under another key or context, or altered. */
export function unseal(config: Pick<Config, "secretKey" | "dataDir">, sealed: string, context: string): string {
  const parts = sealed.startsWith(PREFIX) ? sealed.slice(PREFIX.length).split(".") : [];
  const iv = parts.length === 2 ? Buffer.from(parts[0]!, "base64url") : null;
  const body = parts.length === 2 ? Buffer.from(parts[1]!, "base64url") : null;
  if (!iv || !body || iv.length !== IV_BYTES || body.length < TAG_BYTES)
    throw new AppError("internal", `The stored secret for ${context} is not a sealed value.`);
  try {
    const d = createDecipheriv("aes-256-gcm", keyOf(config), iv);
    d.setAAD(Buffer.from(context, "utf8"));
    d.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([d.update(body.subarray(0, body.length - TAG_BYTES)), d.final()]).toString("utf8");
  } catch {
    throw new AppError(
      "internal",
      `The stored secret for ${context} does not open with this instance's key: every instance sharing the database needs the same PLINTH_SECRET_KEY.`,
    );
  }
}
