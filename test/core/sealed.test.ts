/**
 * Sealed secrets (src/core/sealed.ts): what is sealed opens only with the
 * same key and the same context, altered values never open, the data dir's
 * key file is made once with mode 0600 and reused, two processes starting
 * together agree on one key, and PLINTH_SECRET_KEY is checked when read.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config";
import { seal, unseal } from "../../src/core/sealed";

const dirs: string[] = [];
const dir = () => {
  const d = mkdtempSync(join(tmpdir(), "plinth-sealed-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const hexKey = (b: number) => Uint8Array.from({ length: 32 }, () => b);

test("a sealed value opens with the same key and context, and shows nothing of the secret", () => {
  const cfg = { secretKey: hexKey(7), dataDir: dir() };
  const secret = "imap-p@ss wörd";
  const a = seal(cfg, secret, "mailbox:1:password");
  const b = seal(cfg, secret, "mailbox:1:password");
  expect(a).toStartWith("s1.");
  expect(a).not.toBe(b); // a fresh IV each time
  expect(a).not.toContain(Buffer.from(secret).toString("base64url").slice(0, 8));
  expect(unseal(cfg, a, "mailbox:1:password")).toBe(secret);
  expect(unseal(cfg, seal(cfg, "", "empty"), "empty")).toBe("");
});

test("another key, another context, an altered or malformed value: refused with a message that names the cause", () => {
  const cfg = { secretKey: hexKey(7), dataDir: dir() };
  const v = seal(cfg, "dkim private key", "email_domain:3:dkim");
  expect(() => unseal({ ...cfg, secretKey: hexKey(8) }, v, "email_domain:3:dkim")).toThrow("PLINTH_SECRET_KEY");
  expect(() => unseal(cfg, v, "email_domain:4:dkim")).toThrow("does not open");
  const [iv, body] = v.slice(3).split(".");
  const flipped = Buffer.from(body!, "base64url");
  flipped[0]! ^= 1;
  expect(() => unseal(cfg, `s1.${iv}.${flipped.toString("base64url")}`, "email_domain:3:dkim")).toThrow(
    "does not open",
  );
  for (const bad of ["", "plain text", "s1.", "s1.abc", `s1.${iv}.AAAA`])
    expect(() => unseal(cfg, bad, "x")).toThrow("not a sealed value");
});

test("without PLINTH_SECRET_KEY: one key file per data dir, mode 0600, made once and reused", () => {
  const d = dir();
  const v = seal({ secretKey: null, dataDir: d }, "s", "ctx");
  const file = join(d, "secret.key");
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const key = readFileSync(file, "utf8").trim();
  expect(key).toMatch(/^[0-9a-f]{64}$/);
  expect(unseal({ secretKey: null, dataDir: d }, v, "ctx")).toBe("s");
  // The same key given as PLINTH_SECRET_KEY opens it; the file of another data dir does not.
  expect(unseal({ secretKey: Uint8Array.from(Buffer.from(key, "hex")), dataDir: dir() }, v, "ctx")).toBe("s");
  expect(() => unseal({ secretKey: null, dataDir: dir() }, v, "ctx")).toThrow("PLINTH_SECRET_KEY");
});

test("two processes sealing at once in a new data dir agree on one key", async () => {
  const d = dir();
  const script = `import { seal } from ${JSON.stringify(join(import.meta.dir, "../../src/core/sealed.ts"))}; console.log(seal({ secretKey: null, dataDir: ${JSON.stringify(d)} }, "x", "race"));`;
  // Four at once, a few rounds: a loser that could read the winner's file before its bytes were in failed here.
  for (let round = 0; round < 3; round++) {
    const d2 = round === 0 ? d : dir();
    const s2 = script.replace(JSON.stringify(d), JSON.stringify(d2));
    const procs = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, "-e", s2], { stdout: "pipe", stderr: "pipe" }),
    );
    const out = await Promise.all(procs.map((p) => new Response(p.stdout).text()));
    for (const o of out) expect(unseal({ secretKey: null, dataDir: d2 }, o.trim(), "race")).toBe("x");
    expect(readdirSync(d2)).toEqual(["secret.key"]);
  }
});

test("PLINTH_SECRET_KEY is 64 hex characters, or the start is refused naming the variable", () => {
  const good = "ab".repeat(32);
  expect(loadConfig({}, { PLINTH_SECRET_KEY: good }).secretKey).toEqual(Uint8Array.from(Buffer.from(good, "hex")));
  expect(loadConfig({}, {}).secretKey).toBeNull();
  for (const bad of ["short", "zz".repeat(32), "ab".repeat(33)])
    expect(() => loadConfig({}, { PLINTH_SECRET_KEY: bad })).toThrow(ConfigError);
});
