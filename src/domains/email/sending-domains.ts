/**
 * Sending domains: a DKIM key per domain a company sends from, and a check
 * of the records receivers judge that mail by (docs/email.md, "Sending
 * domains").
 *
 * email_domains_add makes an RSA-2048 key pair with node:crypto (DKIM
 * needs nothing more: the signing itself is nodemailer's `dkim` option,
 * delivery.ts) and answers with the records to publish: the DKIM TXT
 * record under a fresh selector, an SPF and a DMARC suggestion. The private
 * key is stored sealed under the instance's key (src/core/sealed.ts) and
 * is never returned by any tool. email_domains_check resolves SPF, DKIM,
 * DMARC and MX through the hosting domain's resolver (the configured DNS
 * servers, PLINTH_HOSTING_DNS), says per record ok / missing / mismatch
 * (or error, when DNS did not answer) with a next step in plain words, and
 * keeps the result: campaigns warn before sending from a domain without a
 * key or whose last check failed (sendingWarnings), without blocking.
 *
 * Selectors are `plinth<yyyymm>-<4 hex>`: two companies (or one, after a
 * delete and add) sending from one domain never need the same DNS name.
 *
 * Rotation (email_domains_rotate) never breaks signatures: the next key is
 * kept beside the current one, mail stays signed with the current key, and
 * the check that first finds the next key's record published makes it the
 * current one (the old record can then be removed).
 */
import { and, asc, count, eq, isNull } from "drizzle-orm";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Db, Tx } from "../../core/db";
import { conflict, invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { seal, unseal } from "../../core/sealed";
import { dnsResolver, NO_RECORD } from "../hosting/resolver";
import { emailSendingDomains } from "./tables";

type DomainRow = typeof emailSendingDomains.$inferSelect;

export type RecordName = "spf" | "dkim" | "dmarc" | "mx";
export type RecordStatus = "ok" | "missing" | "mismatch" | "error";
export interface RecordCheck {
  record: RecordName;
  name: string;
  status: RecordStatus;
  found: string[];
  /** What the record says (DMARC policy), or what is wrong, in plain words. */
  note: string | null;
  /** What to do about it; null when nothing needs doing. */
  next: string | null;
}
export interface DomainCheck {
  ok: boolean;
  checkedAt: string;
  records: RecordCheck[];
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A domain as stored (lower case, no trailing dot), or a validation error saying what a domain looks like. */
export function normalDomain(raw: string, path = "domain"): string {
  const d = raw.trim().toLowerCase().replace(/\.$/, "");
  const labels = d.split(".");
  const bad = (why: string) =>
    invalid(`"${raw.slice(0, 100)}" is not a domain name you can send from: ${why}.`, { path });
  if (d.includes("@")) throw bad("give the part after the @ (example.com), not an address");
  if (d.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)))
    throw bad("use letters, digits and hyphens in dot-separated labels, e.g. mail.example.com (punycode for IDNs)");
  if (/^\d+$/.test(labels[labels.length - 1]!)) throw bad("an IP address has no DNS records to sign with");
  return d;
}

/** The domain of a From value (`"Name" <a@b.c>` or `a@b.c`), lower case; undefined without one. */
export function domainOfFrom(from: string | null | undefined): string | undefined {
  const m = from ? /@([^\s>@]+)>?\s*$/.exec(from) : null;
  return m?.[1]?.toLowerCase().replace(/\.$/, "");
}

export const dkimContext = (id: number) => `email_domain:${id}:dkim`;
const nextContext = (id: number) => `email_domain:${id}:dkim:next`;
export const dkimName = (r: Pick<DomainRow, "selector" | "domain">) => `${r.selector}._domainkey.${r.domain}`;
export const dkimValue = (publicKey: string) => `v=DKIM1; k=rsa; p=${publicKey}`;

export function newKey(now: Date): { selector: string; privatePem: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const month = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
  return {
    selector: `plinth${month}-${randomBytes(2).toString("hex")}`,
    privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKey: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
  };
}

/** The records to publish for a domain: DKIM exactly, SPF and DMARC as suggestions to adapt. */
function recordsToPublish(r: DomainRow) {
  return [
    { record: "dkim", type: "TXT", name: dkimName(r), value: dkimValue(r.publicKey), required: true },
    {
      record: "spf",
      type: "TXT",
      name: r.domain,
      value: "v=spf1 mx a ~all",
      required: false,
      note: "One SPF record per domain: if one exists, add your SMTP relay's include: (or ip4:) to it instead of adding a second; end it with ~all or -all.",
    },
    {
      record: "dmarc",
      type: "TXT",
      name: `_dmarc.${r.domain}`,
      value: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${r.domain}`,
      required: false,
      note: "Start with p=none and read the reports; move to quarantine or reject once SPF and DKIM pass.",
    },
  ];
}

/** The rotation under way, with the record to publish for the next key; null without one. */
function rotationOf(r: DomainRow) {
  if (!r.nextSelector || !r.nextPublicKey) return null;
  const name = dkimName({ selector: r.nextSelector, domain: r.domain });
  return { selector: r.nextSelector, record: { type: "TXT", name, value: dkimValue(r.nextPublicKey) } };
}

function shape(r: DomainRow, full = false) {
  const last = (r.lastCheck as DomainCheck | null) ?? null;
  const rotation = rotationOf(r);
  return {
    id: r.id,
    domain: r.domain,
    selector: r.selector,
    signing: true,
    lastCheck: last ? (full ? last : { ok: last.ok, checkedAt: last.checkedAt }) : null,
    ...(full ? { records: recordsToPublish(r) } : {}),
    ...(rotation ? { rotation: full ? rotation : { selector: rotation.selector } } : {}),
    createdAt: iso(r.createdAt),
  };
}

async function domainIn(
  db: Pick<Db, "select">,
  ctx: ActorContext,
  ref: { id?: number; domain?: string },
): Promise<DomainRow> {
  if (ref.id === undefined && ref.domain === undefined)
    throw invalid("Name the sending domain with id or domain.", { path: "id" });
  const where =
    ref.id !== undefined
      ? and(eq(emailSendingDomains.id, ref.id), eq(emailSendingDomains.companyId, ctx.company.id))
      : and(
          eq(emailSendingDomains.domain, normalDomain(ref.domain!)),
          eq(emailSendingDomains.companyId, ctx.company.id),
        );
  const r = (await db.select().from(emailSendingDomains).where(where).limit(1))[0];
  if (!r)
    throw notFound(
      ref.id !== undefined
        ? `Sending domain ${ref.id} not found in ${ctx.company.name}.`
        : `No sending domain ${ref.domain!.slice(0, 120)} in ${ctx.company.name}: add it with email_domains_add.`,
    );
  return r;
}

/** email_domains_add: a key for a domain and the records to publish. */
export async function addSendingDomain(ctx: ActorContext, i: { domain: string }) {
  authorize(ctx, "email:write", { write: true });
  const domain = normalDomain(i.domain);
  const deps = ctx.deps;
  const now = deps.clock.now();
  const k = newKey(now);
  return deps.db.transaction(async (tx) => {
    const hit = (
      await tx
        .select({ id: emailSendingDomains.id })
        .from(emailSendingDomains)
        .where(and(eq(emailSendingDomains.companyId, ctx.company.id), eq(emailSendingDomains.domain, domain)))
        .limit(1)
    )[0];
    if (hit)
      throw conflict(`${domain} is already a sending domain (id ${hit.id}); email_domains_get shows its records.`, {
        path: "domain",
        existingId: hit.id,
      });
    // The id is part of the sealing context, so the row is written first and its key sealed under its id.
    const row = (
      await tx
        .insert(emailSendingDomains)
        .values({
          companyId: ctx.company.id,
          domain,
          selector: k.selector,
          privateKeySealed: "",
          publicKey: k.publicKey,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    const sealed = seal(deps.config, k.privatePem, dkimContext(row.id));
    await tx.update(emailSendingDomains).set({ privateKeySealed: sealed }).where(eq(emailSendingDomains.id, row.id));
    await audit(tx, ctx, "email.domain.add", {
      type: "email_sending_domain",
      id: row.id,
      detail: { domain, selector: k.selector },
    });
    return {
      ...shape({ ...row, privateKeySealed: sealed }, true),
      next: `Publish the DKIM record exactly as given (and SPF and DMARC as suggested), then run email_domains_check. Mail from @${domain} is signed from now on.`,
    };
  });
}

export async function listSendingDomains(ctx: ActorContext, i: { limit: number; offset: number }) {
  authorize(ctx, "email:read", { write: false });
  const db = ctx.deps.db;
  const where = eq(emailSendingDomains.companyId, ctx.company.id);
  const total = (await db.select({ n: count() }).from(emailSendingDomains).where(where))[0]!.n;
  const rows = await db
    .select()
    .from(emailSendingDomains)
    .where(where)
    .orderBy(asc(emailSendingDomains.domain))
    .limit(i.limit)
    .offset(i.offset);
  return page(
    rows.map((r) => shape(r)),
    total,
    i.limit,
    i.offset,
  );
}

export async function getSendingDomain(ctx: ActorContext, i: { id?: number; domain?: string }) {
  authorize(ctx, "email:read", { write: false });
  return shape(await domainIn(ctx.deps.db, ctx, i), true);
}

/** email_domains_rotate: a next key beside the current one; a later check that finds it published makes it current. */
export async function rotateSendingDomain(ctx: ActorContext, i: { id?: number; domain?: string }) {
  authorize(ctx, "email:write", { write: true });
  const deps = ctx.deps;
  const k = newKey(deps.clock.now());
  return deps.db.transaction(async (tx) => {
    const r = await domainIn(tx, ctx, i);
    const now = deps.clock.now();
    const next = {
      nextSelector: k.selector,
      nextPrivateKeySealed: seal(deps.config, k.privatePem, nextContext(r.id)),
      nextPublicKey: k.publicKey,
      updatedAt: now,
    };
    await tx.update(emailSendingDomains).set(next).where(eq(emailSendingDomains.id, r.id));
    await audit(tx, ctx, "email.domain.rotate", {
      type: "email_sending_domain",
      id: r.id,
      detail: { domain: r.domain, from: r.selector, to: k.selector, replacedPending: r.nextSelector },
    });
    const row = { ...r, ...next };
    return {
      ...shape(row, true),
      ...(r.nextSelector ? { replacedPending: r.nextSelector } : {}),
      next: `Publish the rotation's record (keep the current one), then run email_domains_check: once it finds the record, mail is signed with the new key and ${dkimName(r)} can be removed. Until then mail stays signed with the current key.`,
    };
  });
}

export async function deleteSendingDomain(ctx: ActorContext, i: { id?: number; domain?: string }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const r = await domainIn(tx, ctx, i);
    await tx.delete(emailSendingDomains).where(eq(emailSendingDomains.id, r.id));
    await audit(tx, ctx, "email.domain.delete", {
      type: "email_sending_domain",
      id: r.id,
      detail: { domain: r.domain, selector: r.selector },
    });
    return {
      deleted: true,
      id: r.id,
      domain: r.domain,
      next: `Mail from @${r.domain} goes out unsigned now; remove the TXT record ${dkimName(r)}${r.nextSelector ? ` and ${dkimName({ selector: r.nextSelector, domain: r.domain })}` : ""} from DNS.`,
    };
  });
}

// ------------------------------------------------------------------ check

/**
 * The TXT records at a name, each joined from its character-strings; the
 * error code when DNS did not answer. A 2048-bit DKIM key is longer than
 * one character-string (255 bytes), and Bun's resolveTxt hands back each
 * string of a record as a record of its own: a piece of exactly 255
 * characters is therefore joined with the one after it (a whole record of
 * exactly 255 characters followed by another is the rare case this would
 * join wrongly; node's resolveTxt already joins and is unaffected).
 */
export async function txt(
  deps: Pick<Deps, "config">,
  name: string,
): Promise<{ values: string[]; error: string | null }> {
  try {
    const values: string[] = [];
    let carry = "";
    for (const strings of await dnsResolver(deps.config.hosting).resolveTxt(name)) {
      const last = strings[strings.length - 1] ?? "";
      carry += strings.join("");
      if (last.length === 255) continue;
      values.push(carry);
      carry = "";
    }
    if (carry) values.push(carry);
    return { values, error: null };
  } catch (e: any) {
    if (NO_RECORD.has(e?.code)) return { values: [], error: null };
    return { values: [], error: String(e?.code ?? e?.message ?? e) };
  }
}

/** DKIM/DMARC tag=value pairs (`v=DKIM1; k=rsa; p=…`), names lower-cased, whitespace removed from values. */
function tags(record: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of record.split(";")) {
    const eqAt = part.indexOf("=");
    if (eqAt < 0) continue;
    out.set(part.slice(0, eqAt).trim().toLowerCase(), part.slice(eqAt + 1).replace(/\s+/g, ""));
  }
  return out;
}

const dnsFailed = (record: RecordName, name: string, error: string): RecordCheck => ({
  record,
  name,
  status: "error",
  found: [],
  note: `DNS did not answer (${error}).`,
  next: "Check again later; if it persists, check the domain's name servers answer for this name.",
});

async function checkSpf(deps: Deps, domain: string): Promise<RecordCheck> {
  const r = await txt(deps, domain);
  if (r.error) return dnsFailed("spf", domain, r.error);
  const spf = r.values.filter((v) => /^v=spf1(\s|$)/i.test(v.trim()));
  const base = { record: "spf" as const, name: domain, found: spf };
  if (spf.length === 0)
    return {
      ...base,
      status: "missing",
      note: null,
      next: `Publish a TXT record at ${domain}: v=spf1 mx a ~all, adding your SMTP relay's include: (or ip4:) before ~all.`,
    };
  if (spf.length > 1)
    return {
      ...base,
      status: "mismatch",
      note: `${spf.length} SPF records: receivers treat that as an error (permerror).`,
      next: "Merge them into one v=spf1 record.",
    };
  const all = /\s([~-])all\s*$/i.exec(spf[0]!);
  if (!all)
    return {
      ...base,
      status: "mismatch",
      note: "The SPF record does not end in ~all or -all, so it does not say which servers may not send.",
      next: "End the SPF record with ~all (or -all once you are sure of every sender).",
    };
  return { ...base, status: "ok", note: all[1] === "-" ? "hard fail (-all)" : "soft fail (~all)", next: null };
}

async function checkDkim(deps: Deps, row: DomainRow): Promise<RecordCheck> {
  const name = dkimName(row);
  const r = await txt(deps, name);
  if (r.error) return dnsFailed("dkim", name, r.error);
  const dkim = r.values.filter((v) => /(^|;)\s*p\s*=/i.test(v));
  const base = { record: "dkim" as const, name, found: dkim };
  const publish = `Publish a TXT record at ${name}: ${dkimValue(row.publicKey)}`;
  if (dkim.length === 0) return { ...base, status: "missing", note: null, next: publish };
  if (dkim.some((v) => tags(v).get("p") === row.publicKey)) return { ...base, status: "ok", note: null, next: null };
  return {
    ...base,
    status: "mismatch",
    note: "The published key is not this domain's key: receivers will reject the signatures.",
    next: `Replace the record: ${publish.slice("Publish a ".length)}`,
  };
}

async function checkDmarc(deps: Deps, domain: string): Promise<RecordCheck> {
  const name = `_dmarc.${domain}`;
  const r = await txt(deps, name);
  if (r.error) return dnsFailed("dmarc", name, r.error);
  const dmarc = r.values.filter((v) => /^v=DMARC1\s*(;|$)/i.test(v.trim()));
  const base = { record: "dmarc" as const, name, found: dmarc };
  const suggest = `v=DMARC1; p=none; rua=mailto:dmarc-reports@${domain}`;
  if (dmarc.length === 0)
    return { ...base, status: "missing", note: null, next: `Publish a TXT record at ${name}: ${suggest}` };
  if (dmarc.length > 1)
    return {
      ...base,
      status: "mismatch",
      note: `${dmarc.length} DMARC records: receivers ignore them all.`,
      next: "Keep exactly one.",
    };
  const p = tags(dmarc[0]!).get("p")?.toLowerCase();
  if (p !== "none" && p !== "quarantine" && p !== "reject")
    return {
      ...base,
      status: "mismatch",
      note: "The DMARC record has no valid policy (p=none, quarantine or reject).",
      next: `Fix it, e.g. ${suggest}`,
    };
  return { ...base, status: "ok", note: `policy ${p}`, next: null };
}

async function checkMx(deps: Deps, domain: string): Promise<RecordCheck> {
  const base = { record: "mx" as const, name: domain };
  try {
    const mx = (await dnsResolver(deps.config.hosting).resolveMx(domain)).sort((a, b) => a.priority - b.priority);
    if (mx.length)
      return { ...base, status: "ok", found: mx.map((m) => `${m.priority} ${m.exchange}`), note: null, next: null };
  } catch (e: any) {
    if (!NO_RECORD.has(e?.code)) return dnsFailed("mx", domain, String(e?.code ?? e?.message ?? e));
  }
  return {
    ...base,
    status: "missing",
    found: [],
    note: "Without MX, replies and bounces to this domain cannot be delivered and some receivers refuse its mail.",
    next: `Publish an MX record at ${domain} naming the server that receives its mail.`,
  };
}

/** email_domains_check: resolves the four records now, keeps the result as the domain's last check. */
export async function checkSendingDomain(ctx: ActorContext, i: { id?: number; domain?: string }) {
  authorize(ctx, "email:write", { write: true });
  const deps = ctx.deps;
  const row = await domainIn(deps.db, ctx, i);
  const records = await Promise.all([
    checkSpf(deps, row.domain),
    checkDkim(deps, row),
    checkDmarc(deps, row.domain),
    checkMx(deps, row.domain),
  ]);
  // A rotation under way: when the next key's record is published, the next key becomes the current one.
  let rotated: { from: string; to: string; removeRecord: string } | null = null;
  let rotation: { selector: string; status: RecordStatus; next: string | null } | null = null;
  if (row.nextSelector && row.nextPublicKey && row.nextPrivateKeySealed) {
    const nextRow = { ...row, selector: row.nextSelector, publicKey: row.nextPublicKey };
    const n = await checkDkim(deps, nextRow);
    if (n.status === "ok") {
      rotated = { from: row.selector, to: row.nextSelector, removeRecord: dkimName(row) };
      records[1] = n;
    } else rotation = { selector: row.nextSelector, status: n.status, next: n.next };
  }
  const now = deps.clock.now();
  const result: DomainCheck = { ok: records.every((r) => r.status === "ok"), checkedAt: iso(now)!, records };
  const promoted = await deps.db.transaction(async (tx) => {
    const set: Partial<DomainRow> = {
      lastCheck: result as unknown as Record<string, unknown>,
      lastCheckedAt: now,
      updatedAt: now,
    };
    if (rotated)
      Object.assign(set, {
        selector: row.nextSelector!,
        publicKey: row.nextPublicKey!,
        privateKeySealed: seal(
          deps.config,
          unseal(deps.config, row.nextPrivateKeySealed!, nextContext(row.id)),
          dkimContext(row.id),
        ),
        nextSelector: null,
        nextPublicKey: null,
        nextPrivateKeySealed: null,
      });
    // Conditional on the rotation checked: a rotate that ran meanwhile is not overwritten by a stale promotion.
    const won = await tx
      .update(emailSendingDomains)
      .set(set)
      .where(
        and(
          eq(emailSendingDomains.id, row.id),
          eq(emailSendingDomains.companyId, ctx.company.id),
          row.nextSelector
            ? eq(emailSendingDomains.nextSelector, row.nextSelector)
            : isNull(emailSendingDomains.nextSelector),
        ),
      )
      .returning({ id: emailSendingDomains.id });
    if (rotated && won.length === 0) return false;
    if (rotated)
      await audit(tx, ctx, "email.domain.rotated", {
        type: "email_sending_domain",
        id: row.id,
        detail: { domain: row.domain, ...rotated },
      });
    return true;
  });
  if (rotated && !promoted)
    throw conflict("The sending domain was rotated again while it was checked; run email_domains_check again.");
  return {
    id: row.id,
    domain: row.domain,
    selector: rotated ? rotated.to : row.selector,
    ...result,
    ...(rotated
      ? {
          rotated: {
            ...rotated,
            next: `Mail is signed with the new key now; remove the old record ${rotated.removeRecord}.`,
          },
        }
      : {}),
    ...(rotation ? { rotation } : {}),
  };
}

// ---------------------------------------------------------------- signing

export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/** The key mail from `from` is signed with for this company, or undefined when its domain has none. */
export async function dkimFor(deps: Deps, companyId: number, from: string): Promise<DkimKey | undefined> {
  const domain = domainOfFrom(from);
  if (!domain) return undefined;
  const r = (
    await deps.db
      .select()
      .from(emailSendingDomains)
      .where(and(eq(emailSendingDomains.companyId, companyId), eq(emailSendingDomains.domain, domain)))
      .limit(1)
  )[0];
  if (!r) return undefined;
  return {
    domainName: r.domain,
    keySelector: r.selector,
    privateKey: unseal(deps.config, r.privateKeySealed, dkimContext(r.id)),
  };
}

// --------------------------------------------------------------- warnings

/**
 * What a campaign's sender should hear before it sends from `fromEmail`
 * (or the server's PLINTH_MAIL_FROM): no key for the domain, never
 * checked, or records the last check found wrong. The server's own From
 * without a key is the operator's (their relay may sign it): no warning.
 */
export async function sendingWarnings(
  db: Pick<Tx, "select">,
  deps: Pick<Deps, "config">,
  companyId: number,
  fromEmail: string | null,
): Promise<string[]> {
  const domain = domainOfFrom(fromEmail ?? deps.config.mailFrom);
  if (!domain) return [];
  const r = (
    await db
      .select()
      .from(emailSendingDomains)
      .where(and(eq(emailSendingDomains.companyId, companyId), eq(emailSendingDomains.domain, domain)))
      .limit(1)
  )[0];
  if (!r)
    return fromEmail
      ? [
          `Mail from ${domain} goes out without a DKIM signature: add the domain with email_domains_add, publish its records, then email_domains_check.`,
        ]
      : [];
  const last = r.lastCheck as DomainCheck | null;
  if (!last)
    return [
      `The DNS records of ${domain} were never checked: run email_domains_check before sending, or receivers may reject its mail.`,
    ];
  if (last.ok) return [];
  return last.records
    .filter((x) => x.status !== "ok")
    .map((x) => `${domain}: ${x.record.toUpperCase()} ${x.status} at the last check. ${x.next ?? ""}`.trim());
}
