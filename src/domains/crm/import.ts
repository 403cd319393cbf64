/**
 * Contacts from CSV (inline, or a media item of the company's sites),
 * parsed by papaparse. Every data line is answered: created, updated,
 * skipped or refused with the reason.
 *
 * The dry run runs the very same code in a transaction that is rolled
 * back, so its report is exactly what the real import would do. A real
 * import runs in one transaction; each line in a savepoint of its own, so
 * a refused line changes nothing and the others still land.
 *
 * Hostile cells: a cell starting with = + - @ (or a tab or carriage
 * return) is a spreadsheet formula waiting to run when someone exports it
 * and opens the file. It is stored as written (the CRM keeps what people
 * typed: a name is not rewritten) with a warning, and neutralised where it
 * could run, in CSV exports; a name cell that looks like one is kept whole
 * rather than split at its spaces. Phones and emails must match their shape
 * anyway. Cells over 2,000
 * characters, NUL characters and undecodable bytes (U+FFFD after decoding)
 * refuse their line. Existing contacts (same email) are updated by filling
 * empty fields and adding phones and tags (onDuplicate "update"), or left
 * alone ("skip").
 */
import { and, eq, isNull } from "drizzle-orm";
import Papa from "papaparse";
import * as v from "valibot";
import { audit } from "../../core/audit";
import { bodyBytes } from "../../core/blobs-common";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { AppError, invalid, isAppError, notFound } from "../../core/errors";
import { mediaOfCompany } from "../cms/media-facts";
import { crmWrite, fold, normaliseDomain } from "./access";
import { createCompany } from "./companies";
import { contactByEmails, insertContact, updateContact } from "./contacts";
import { contactCreateInput, contactUpdateInput, IMPORT_TARGETS, type importInput } from "./schemas";
import { contacts, crmCompanies, fieldDefs } from "./tables";

export const MAX_IMPORT_ROWS = 10_000;
const MAX_CELL = 2000;
const REPORT_LINES = 500;

const ALIASES: Record<string, string> = {
  firstname: "firstName",
  first: "firstName",
  givenname: "firstName",
  vorname: "firstName",
  lastname: "lastName",
  last: "lastName",
  surname: "lastName",
  familyname: "lastName",
  nachname: "lastName",
  name: "name",
  fullname: "name",
  contactname: "name",
  email: "emails",
  emails: "emails",
  emailaddress: "emails",
  mail: "emails",
  email1: "emails",
  email2: "emails",
  workemail: "emails",
  phone: "phones",
  phones: "phones",
  phonenumber: "phones",
  mobile: "phones",
  telephone: "phones",
  tel: "phones",
  mobilephone: "phones",
  jobtitle: "jobTitle",
  title: "jobTitle",
  position: "jobTitle",
  role: "jobTitle",
  company: "company",
  companyname: "company",
  organization: "company",
  organisation: "company",
  account: "company",
  companydomain: "companyDomain",
  domain: "companyDomain",
  website: "companyDomain",
  tags: "tags",
  tag: "tags",
  labels: "tags",
  lifecyclestage: "lifecycleStage",
  lifecycle: "lifecycleStage",
  stage: "lifecycleStage",
  owner: "ownerId",
  owneremail: "ownerId",
};
const TARGETS: ReadonlySet<string> = new Set(IMPORT_TARGETS);
const TEXT_TARGETS = new Set(["firstName", "lastName", "name", "jobTitle", "company"]);

type Line = {
  line: number;
  action: "create" | "update" | "skip" | "refuse";
  id?: number;
  email?: string | null;
  reason?: string;
  warnings?: string[];
};

async function csvText(ctx: ActorContext, input: v.InferOutput<typeof importInput>): Promise<string> {
  if ((input.csv === undefined) === (input.mediaId === undefined))
    throw invalid("Give csv (the text) or mediaId (an uploaded .csv), one of them.");
  if (input.csv !== undefined) return input.csv;
  const m = (await mediaOfCompany(ctx.deps.db, ctx.company.id, [input.mediaId!]))[0];
  if (!m || !m.storageKey)
    throw notFound(
      `Media ${input.mediaId} not found in ${ctx.company.name}'s sites (upload the CSV with media_upload first).`,
    );
  if ((m.sizeBytes ?? 0) > 20 * 1024 * 1024)
    throw new AppError("payload_too_large", "The CSV is over 20 MB; split it.");
  const body = await ctx.deps.blobs.read(m.storageKey);
  if (!body) throw notFound(`Media ${input.mediaId}'s file is missing from storage.`);
  const bytes = await bodyBytes(body);
  // Not fatal: undecodable bytes become U+FFFD and refuse only their line.
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes).replace(/^\uFEFF/, "");
}

const split = (s: string) =>
  s
    .split(/[;,|]/)
    .map((x) => x.trim())
    .filter(Boolean);

class Rollback extends Error {}

export async function importContacts(ctx: ActorContext, input: v.InferOutput<typeof importInput>) {
  crmWrite(ctx);
  const text = await csvText(ctx, input);
  const parsed = Papa.parse<string[]>(text, { header: false, skipEmptyLines: "greedy" });
  const rows = parsed.data;
  if (!rows.length) throw invalid("The CSV is empty.");
  if (rows.length - 1 > MAX_IMPORT_ROWS)
    throw invalid(`At most ${MAX_IMPORT_ROWS} lines per import; this file has ${rows.length - 1}. Split it.`);
  const header = rows[0]!.map((h) => String(h ?? "").trim());
  const defs = await ctx.deps.db
    .select()
    .from(fieldDefs)
    .where(and(eq(fieldDefs.companyId, ctx.company.id), eq(fieldDefs.object, "contact")));
  const columns: string[] = [];
  const ignored: string[] = [];
  for (const h of header) {
    const explicit = input.mapping?.[h];
    let target = explicit ?? ALIASES[fold(h).replace(/[^a-z0-9]/g, "")];
    if (!target) {
      const key = h.startsWith("custom.") ? h.slice(7) : null;
      const d = defs.find((f) => f.key === key || f.key === h || fold(f.label) === fold(h));
      if (d) target = `custom.${d.key}`;
    }
    if (
      explicit &&
      !TARGETS.has(explicit) &&
      !(explicit.startsWith("custom.") && defs.some((d) => `custom.${d.key}` === explicit))
    )
      throw invalid(
        `mapping.${h}: ${explicit} is not a contact field; use ${[...TARGETS].join(", ")} or custom.<key>.`,
      );
    if (!target || target === "ignore") ignored.push(h);
    columns.push(target ?? "ignore");
  }
  if (!columns.some((c) => c === "emails" || c === "firstName" || c === "lastName" || c === "name"))
    throw invalid(
      `No column reads as a name or an email (headers: ${header.slice(0, 20).join(", ")}); pass mapping, e.g. {"E-Mail": "emails"}.`,
    );

  const report: Line[] = [];
  const counts = { create: 0, update: 0, skip: 0, refuse: 0 };
  const seen = new Map<string, number>();
  const companiesMade = new Map<string, number>();
  const run = async () => {
    for (let i = 1; i < rows.length; i++) {
      const line = i + 1;
      const r = await oneLine(ctx, rows[i]!, columns, header, line, input.onDuplicate, seen, companiesMade);
      counts[r.action]++;
      report.push(r);
    }
  };
  const tx = ctx.deps.db;
  try {
    await tx.transaction(async () => {
      await run();
      if (input.dryRun) throw new Rollback();
      await audit(tx, ctx, "crm.contacts_import", { detail: { ...counts, lines: rows.length - 1 } });
    });
  } catch (e) {
    if (!(e instanceof Rollback)) throw e;
  }
  // A dry run wrote nothing: the ids its created lines got were rolled back and would be someone else's later.
  if (input.dryRun) for (const l of report) if (l.action === "create") delete l.id;
  const shown = report
    .filter((l) => l.action === "refuse" || l.warnings)
    .concat(report.filter((l) => l.action !== "refuse" && !l.warnings));
  return {
    dryRun: input.dryRun,
    lines: rows.length - 1,
    created: counts.create,
    updated: counts.update,
    skipped: counts.skip,
    refused: counts.refuse,
    companiesCreated: companiesMade.size,
    columns: Object.fromEntries(header.map((h, i) => [h, columns[i]])),
    ...(ignored.length && { ignoredColumns: ignored }),
    report: shown.slice(0, REPORT_LINES).sort((a, b) => a.line - b.line),
    ...(report.length > REPORT_LINES && {
      note: `Report shows ${REPORT_LINES} of ${report.length} lines: refused and warned lines first.`,
    }),
    ...(input.dryRun && { next: "Nothing was written. Run again with dryRun: false to import." }),
  };
}

async function oneLine(
  ctx: ActorContext,
  cells: string[],
  columns: string[],
  header: string[],
  line: number,
  onDuplicate: "update" | "skip",
  seen: Map<string, number>,
  companiesMade: Map<string, number>,
): Promise<Line> {
  const warnings: string[] = [];
  const data: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  const emails: string[] = [];
  const phones: string[] = [];
  const tags: string[] = [];
  let company: string | null = null;
  let companyDomain: string | null = null;
  for (let c = 0; c < columns.length; c++) {
    const target = columns[c]!;
    let cell = String(cells[c] ?? "");
    if (target === "ignore") continue;
    if (cell.includes("\uFFFD") || cell.includes("\u0000"))
      return { line, action: "refuse", reason: `${header[c]}: bad encoding (save the file as UTF-8).` };
    if (cell.length > MAX_CELL)
      return { line, action: "refuse", reason: `${header[c]}: ${cell.length} characters, at most ${MAX_CELL}.` };
    cell = cell.trim();
    if (!cell) continue;
    let formula = false;
    if (/^[=+\-@\t\r]/.test(cell) && (TEXT_TARGETS.has(target) || target.startsWith("custom."))) {
      if (!(target.startsWith("custom.") && /^-?\d/.test(cell))) {
        formula = true;
        warnings.push(
          `${header[c]}: starts like a spreadsheet formula; stored as written, neutralised in CSV exports.`,
        );
      }
    }
    if (target === "emails") emails.push(...split(cell).map((e) => e.toLowerCase()));
    else if (target === "phones")
      phones.push(
        ...cell
          .split(/[;|]/)
          .map((x) => x.trim())
          .filter(Boolean),
      );
    else if (target === "tags") tags.push(...split(cell).map((t) => t.toLowerCase()));
    else if (target === "company") company = cell;
    else if (target === "companyDomain") companyDomain = normaliseDomain(cell);
    else if (target === "name" && formula) data.firstName = cell;
    else if (target === "name") {
      const parts = cell.split(/\s+/);
      data.lastName = parts.length > 1 ? parts.pop() : undefined;
      data.firstName = parts.join(" ");
    } else if (target.startsWith("custom.")) custom[target.slice(7)] = cell;
    else data[target] = cell;
  }
  const key = emails[0];
  if (key && seen.has(key))
    return { line, action: "refuse", email: key, reason: `${key} is also on line ${seen.get(key)} of this file.` };
  if (key) seen.set(key, line);
  const defs = await ctx.deps.db
    .select()
    .from(fieldDefs)
    .where(and(eq(fieldDefs.companyId, ctx.company.id), eq(fieldDefs.object, "contact")));
  for (const [k, raw] of Object.entries(custom)) {
    const d = defs.find((f) => f.key === k)!;
    const s = String(raw);
    custom[k] =
      d.type === "number"
        ? Number.isFinite(Number(s))
          ? Number(s)
          : s
        : d.type === "boolean"
          ? /^(true|yes|1|x)$/i.test(s)
            ? true
            : /^(false|no|0)$/i.test(s)
              ? false
              : s
          : d.type === "multi_select"
            ? split(s)
            : s;
  }
  const candidate = {
    ...data,
    ...(emails.length && { emails: [...new Set(emails)] }),
    ...(phones.length && { phones }),
    ...(tags.length && { tags: [...new Set(tags)] }),
    ...(Object.keys(custom).length && { custom }),
  };
  const parsedIn = v.safeParse(contactCreateInput, candidate);
  if (!parsedIn.success)
    return {
      line,
      action: "refuse",
      email: key ?? null,
      reason: parsedIn.issues
        .slice(0, 3)
        .map((i) => `${v.getDotPath(i) ?? ""}: ${i.message}`)
        .join("; "),
    };
  const input = parsedIn.output;
  if (!input.firstName && !input.lastName && !input.emails?.length)
    return { line, action: "refuse", reason: "No name and no email." };
  // Companies made by this line count only once the line has landed (a refused line rolls its savepoint back).
  const madeHere = new Map<string, number>();
  try {
    const result = await ctx.deps.db.transaction(async (tx: Db) => {
      const companyId = await companyFor(tx, ctx, company, companyDomain, madeHere);
      const existing = await contactByEmails(tx, ctx.company.id, input.emails ?? []);
      if (existing) {
        if (onDuplicate === "skip")
          return {
            line,
            action: "skip" as const,
            id: existing.contactId,
            email: existing.email,
            reason: "Contact exists (onDuplicate: skip).",
          };
        const cur = (await tx.select().from(contacts).where(eq(contacts.id, existing.contactId)))[0]!;
        const patch = v.parse(contactUpdateInput, {
          id: cur.id,
          ...(!cur.firstName && input.firstName && { firstName: input.firstName }),
          ...(!cur.lastName && input.lastName && { lastName: input.lastName }),
          ...(!cur.jobTitle && input.jobTitle && { jobTitle: input.jobTitle }),
          ...(cur.crmCompanyId === null && companyId !== null && { companyId }),
          ...(input.lifecycleStage && { lifecycleStage: input.lifecycleStage }),
          addEmails: (input.emails ?? []).filter((e) => !cur.emails.includes(e)),
          ...(input.phones && {
            phones: [
              ...cur.phones,
              ...input.phones.filter(
                (p) => !cur.phones.some((q) => q.number.replace(/\D/g, "") === p.number.replace(/\D/g, "")),
              ),
            ].map((p) => (p.label ? `${p.label}: ${p.number}` : p.number)),
          }),
          ...(input.tags && { addTags: input.tags }),
          ...(input.custom && { custom: input.custom }),
          ...(input.ownerId !== undefined && { ownerId: input.ownerId }),
        });
        const u = await updateContact(ctx, patch);
        return {
          line,
          action: "update" as const,
          id: cur.id,
          email: existing.email,
          ...(u.changed.length ? {} : { reason: "Nothing new." }),
          ...(warnings.length && { warnings }),
        };
      }
      const row = await insertContact(tx, ctx, { ...input, ...(companyId !== null && { companyId }) }, "import");
      return {
        line,
        action: "create" as const,
        id: row.id,
        email: row.emails[0] ?? null,
        ...(warnings.length && { warnings }),
      };
    });
    for (const [k, id] of madeHere) companiesMade.set(k, id);
    return result;
  } catch (e) {
    if (isAppError(e) && e.code !== "internal" && e.code !== "forbidden")
      return { line, action: "refuse", email: key ?? null, reason: e.message };
    throw e;
  }
}

/** The CRM company a line names: by domain, then by name (folded); made when new. */
async function companyFor(
  tx: Db,
  ctx: ActorContext,
  name: string | null,
  domain: string | null,
  made: Map<string, number>,
): Promise<number | null> {
  if (!name && !domain) return null;
  const live = and(eq(crmCompanies.companyId, ctx.company.id), isNull(crmCompanies.mergedIntoId));
  if (domain) {
    const hit = (
      await tx
        .select({ id: crmCompanies.id })
        .from(crmCompanies)
        .where(and(live, eq(crmCompanies.domain, domain)))
        .limit(1)
    )[0];
    if (hit) return hit.id;
  }
  if (name) {
    const hit = (
      await tx
        .select({ id: crmCompanies.id })
        .from(crmCompanies)
        .where(and(live, eq(crmCompanies.search, fold([name, domain].filter(Boolean).join(" ")))))
        .limit(1)
    )[0];
    if (hit) return hit.id;
    const byName = (
      await tx.select({ id: crmCompanies.id, name: crmCompanies.name }).from(crmCompanies).where(live)
    ).find((c) => fold(c.name) === fold(name));
    if (byName) return byName.id;
  }
  const r = await createCompany(ctx, { name: name ?? domain!, ...(domain && { domain }) });
  made.set(fold(name ?? domain!), r.id);
  return r.id;
}
