/**
 * Retried creates must not make duplicates. Every create tool accepts an
 * optional `idempotencyKey`: the first call runs and its result is kept with
 * the key (for a day) in the same transaction as the tool's own writes; a
 * repeat with the same key and the same arguments gets that result again,
 * marked `replayed: true`, and writes nothing; the same key with other
 * arguments is refused. Two racing repeats cannot both run: the key is
 * unique, so the loser's transaction is retried and finds the winner's.
 *
 * Keys belong to (company, user, tool). An approval token in a kept result is
 * dropped, as tokens are never stored in clear: a replay says where to get a
 * fresh link instead.
 */
import { and, eq, lt } from "drizzle-orm";
import type { ActorContext } from "../core/context";
import { conflict } from "../core/errors";
import { sha256Hex } from "../core/secrets";
import { idempotencyKeys } from "../core/tables";
import { stableJson } from "../domains/approvals/staging";

const KEEP_MS = 24 * 60 * 60 * 1000;

/** Whether a tool takes idempotencyKey: every create, plus writes declared so. */
export function takesIdempotencyKey(t: { name: string; readOnly: boolean; idempotencyKey?: boolean }): boolean {
  return !t.readOnly && (t.idempotencyKey ?? /_create$/.test(t.name));
}

/** A result as kept: without the approval token and the URLs that carry it. */
function storable(result: unknown): unknown {
  if (!result || typeof result !== "object" || !("approval" in result)) return result;
  const { approval, ...rest } = result as { approval: Record<string, unknown> };
  const { token: _t, url: _u, previewUrl: _p, ...safe } = approval;
  return {
    ...rest,
    approval: {
      ...safe,
      note: "The approval link was in the first answer only; call the matching update tool with no changes for a fresh one.",
    },
  };
}

export async function withIdempotency(
  ctx: ActorContext,
  tool: string,
  key: string,
  args: unknown,
  run: () => Promise<unknown>,
): Promise<unknown> {
  const hash = sha256Hex(stableJson({ tool, args }));
  const deps = ctx.deps;
  return deps.store.transaction(async (tx) => {
    const where = and(
      eq(idempotencyKeys.companyId, ctx.company.id),
      eq(idempotencyKeys.userId, ctx.principal.userId),
      eq(idempotencyKeys.tool, tool),
      eq(idempotencyKeys.key, key),
    );
    const now = deps.clock.now();
    const seen = (await tx.select().from(idempotencyKeys).where(where).limit(1))[0];
    if (seen && seen.createdAt.getTime() > now.getTime() - KEEP_MS) {
      if (seen.requestHash !== hash)
        throw conflict(
          `idempotencyKey "${key.slice(0, 60)}" was already used with other arguments for ${tool}; use a new key for a new ${tool.replace(/_create$/, "")}.`,
        );
      return { ...(seen.result as object), replayed: true };
    }
    if (seen) await tx.delete(idempotencyKeys).where(eq(idempotencyKeys.id, seen.id));
    const result = await run();
    await tx.insert(idempotencyKeys).values({
      companyId: ctx.company.id,
      userId: ctx.principal.userId,
      tool,
      key,
      requestHash: hash,
      result: storable(result) ?? null,
      createdAt: now,
    });
    // Keys older than a day go as new ones come: the table holds one day of creates.
    await tx
      .delete(idempotencyKeys)
      .where(
        and(
          eq(idempotencyKeys.companyId, ctx.company.id),
          lt(idempotencyKeys.createdAt, new Date(now.getTime() - KEEP_MS)),
        ),
      );
    return result;
  });
}
