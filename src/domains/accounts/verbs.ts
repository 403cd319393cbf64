/**
 * People, companies, memberships and MCP API keys: the verbs the CLI, the
 * portal and the test fixtures share. These run as the operator (CLI) or
 * the signed-in user (portal), not through a tool call, so they take Deps,
 * not an ActorContext; the caller decides who may run them.
 *
 * @public Serves team (invitations normalise email addresses as accounts does).
 */
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { isGrantable } from "../../core/scopes";
import { KEY_PREFIX, mintSecret } from "../../core/secrets";
import { companies, mcpKeys, memberships, ROLES, users, type Role } from "./tables";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (e.length > 254 || !EMAIL.test(e)) throw invalid(`Not an email address: "${email}".`);
  return e;
}

export function isRole(r: string): r is Role {
  return (ROLES as readonly string[]).includes(r);
}

export async function createUser(
  deps: Deps,
  input: { email: string; password?: string; name?: string },
): Promise<{ id: number; email: string }> {
  const email = normaliseEmail(input.email);
  if (input.password !== undefined && input.password.length < 8)
    throw invalid("The password must be at least 8 characters long.");
  const existing = (await deps.db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1))[0];
  if (existing) throw conflict(`A user with email ${email} already exists.`);
  const passwordHash =
    input.password === undefined ? null : await Bun.password.hash(input.password, { algorithm: "argon2id" });
  const row = (
    await deps.db
      .insert(users)
      .values({ email, name: input.name ?? null, passwordHash, createdAt: deps.clock.now() })
      .returning({ id: users.id, email: users.email })
  )[0];
  return row;
}

/** Checked when the email is unknown, so a failed sign-in takes as long either way (no account discovery by timing). */
let timingDummy: Promise<string> | undefined;

export async function verifyPassword(deps: Deps, email: string, password: string): Promise<number | null> {
  const row = (
    await deps.db
      .select({ id: users.id, hash: users.passwordHash })
      .from(users)
      .where(eq(users.email, email.trim().toLowerCase()))
      .limit(1)
  )[0];
  if (!row?.hash) {
    await Bun.password.verify(
      password,
      await (timingDummy ??= Bun.password.hash("plinth timing dummy", { algorithm: "argon2id" })),
    );
    return null;
  }
  return (await Bun.password.verify(password, row.hash)) ? row.id : null;
}

export async function userByEmail(deps: Deps, email: string) {
  const row = (
    await deps.db
      .select()
      .from(users)
      .where(eq(users.email, normaliseEmail(email)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`No user with email ${email.trim().toLowerCase()}.`);
  return row;
}

export async function createCompany(
  deps: Deps,
  input: { name: string; ownerUserId?: number },
): Promise<{ id: number; name: string }> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw invalid("A company name must be 1 to 200 characters.");
  return deps.db.transaction(async (tx) => {
    const row = (
      await tx
        .insert(companies)
        .values({ name, createdAt: deps.clock.now() })
        .returning({ id: companies.id, name: companies.name })
    )[0];
    if (input.ownerUserId !== undefined) {
      const u = (await tx.select({ id: users.id }).from(users).where(eq(users.id, input.ownerUserId)).limit(1))[0];
      if (!u) throw notFound(`No user with id ${input.ownerUserId}.`);
      await tx
        .insert(memberships)
        .values({ companyId: row.id, userId: input.ownerUserId, role: "owner", createdAt: deps.clock.now() });
    }
    return row;
  });
}

/** Adds the user to the company, or changes their role when already a member. */
export async function addMember(deps: Deps, companyId: number, userId: number, role: Role) {
  if (!isRole(role)) throw invalid(`Role must be one of ${ROLES.join(", ")}.`);
  const c = (await deps.db.select({ id: companies.id }).from(companies).where(eq(companies.id, companyId)).limit(1))[0];
  if (!c) throw notFound(`No company with id ${companyId}.`);
  const u = (await deps.db.select({ id: users.id }).from(users).where(eq(users.id, userId)).limit(1))[0];
  if (!u) throw notFound(`No user with id ${userId}.`);
  await deps.db
    .insert(memberships)
    .values({ companyId, userId, role, createdAt: deps.clock.now() })
    .onConflictDoUpdate({ target: [memberships.companyId, memberships.userId], set: { role } });
}

/** Removing a member takes effect on that user's very next MCP request. */
export async function removeMember(deps: Deps, companyId: number, userId: number): Promise<boolean> {
  const where = and(eq(memberships.companyId, companyId), eq(memberships.userId, userId));
  const found = (await deps.db.select({ u: memberships.userId }).from(memberships).where(where).limit(1))[0];
  if (found) await deps.db.delete(memberships).where(where);
  return !!found;
}

export async function membershipsOf(deps: Deps, userId: number) {
  return await deps.db
    .select({ id: companies.id, name: companies.name, role: memberships.role })
    .from(memberships)
    .innerJoin(companies, eq(companies.id, memberships.companyId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(companies.id));
}

export interface MintKeyInput {
  userId: number;
  scopes: string[];
  /** Companies the key may reach; must be companies the user belongs to now. */
  companyIds: number[];
  requireCmsApproval?: boolean;
  /** MCP listing mode, already checked by the caller (parseListingMode, src/mcp/listing.ts); absent: automatic. */
  listingMode?: string | null;
  expiresAt?: Date;
  name?: string;
}

/** Mints a portal API key. The secret is returned once; only its SHA-256 is stored. */
export async function mintMcpKey(deps: Deps, input: MintKeyInput): Promise<{ id: number; key: string }> {
  const scopes = [...new Set(input.scopes.map((s) => s.trim()).filter(Boolean))];
  if (scopes.length === 0) throw invalid("A key needs at least one scope.");
  const bad = scopes.filter((s) => !isGrantable(s));
  if (bad.length) throw invalid(`Unknown scope${bad.length > 1 ? "s" : ""}: ${bad.join(", ")}.`);
  const companyIds = [...new Set(input.companyIds)].sort((a, b) => a - b);
  for (const id of companyIds) if (!Number.isSafeInteger(id) || id <= 0) throw invalid(`Not a company id: ${id}.`);
  if (companyIds.length) {
    const mine = new Set(
      (
        await deps.db
          .select({ id: memberships.companyId })
          .from(memberships)
          .where(and(eq(memberships.userId, input.userId), inArray(memberships.companyId, companyIds)))
      ).map((r) => r.id),
    );
    const foreign = companyIds.filter((id) => !mine.has(id));
    if (foreign.length) throw invalid(`The user is not a member of company ${foreign.join(", ")}.`);
  }
  if (input.expiresAt && input.expiresAt.getTime() <= deps.clock.ms()) throw invalid("The expiry date is in the past.");
  const name = (input.name ?? "MCP key").trim().slice(0, 200) || "MCP key";
  const { secret, hash, hint } = mintSecret(KEY_PREFIX.mcp);
  const row = (
    await deps.db
      .insert(mcpKeys)
      .values({
        userId: input.userId,
        name,
        hint,
        secretHash: hash,
        scopes,
        companyIds,
        requireCmsApproval: input.requireCmsApproval ?? false,
        listingMode: input.listingMode ?? null,
        expiresAt: input.expiresAt ?? null,
        createdAt: deps.clock.now(),
      })
      .returning({ id: mcpKeys.id })
  )[0];
  return { id: row.id, key: secret };
}

/** Revokes a key (keeping the first revocation time); false when no such key exists. */
export async function revokeMcpKey(deps: Deps, id: number): Promise<boolean> {
  const found = (await deps.db.select({ id: mcpKeys.id }).from(mcpKeys).where(eq(mcpKeys.id, id)).limit(1))[0];
  if (!found) return false;
  await deps.db
    .update(mcpKeys)
    .set({ revokedAt: deps.clock.now() })
    .where(and(eq(mcpKeys.id, id), isNull(mcpKeys.revokedAt)));
  return true;
}

/** Changes a key's MCP listing mode (already checked by the caller); its next request uses it. */
export async function setMcpKeyListing(deps: Deps, id: number, listingMode: string | null): Promise<void> {
  await deps.db.update(mcpKeys).set({ listingMode }).where(eq(mcpKeys.id, id));
}

/** Keys of a user, without secrets (only the stored hint). */
export async function listMcpKeys(deps: Deps, userId: number) {
  return await deps.db
    .select({
      id: mcpKeys.id,
      name: mcpKeys.name,
      hint: mcpKeys.hint,
      scopes: mcpKeys.scopes,
      companyIds: mcpKeys.companyIds,
      requireCmsApproval: mcpKeys.requireCmsApproval,
      listingMode: mcpKeys.listingMode,
      expiresAt: mcpKeys.expiresAt,
      revokedAt: mcpKeys.revokedAt,
      lastUsedAt: mcpKeys.lastUsedAt,
      createdAt: mcpKeys.createdAt,
    })
    .from(mcpKeys)
    .where(eq(mcpKeys.userId, userId))
    .orderBy(asc(mcpKeys.id));
}
