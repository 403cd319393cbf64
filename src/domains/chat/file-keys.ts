/**
 * The chat's share of the company's file budget: files on chat messages
 * and files on tickets are held to one limit (tickets/files.ts), so the
 * tickets domain, which keeps the limit, counts chat files here without
 * reaching into the chat's tables.
 *
 * @public Serves tickets (the company file budget and the removal of
 * files no row holds any more).
 */
import { eq, inArray, max } from "drizzle-orm";
import type { Db } from "../../core/db";
import { chatAttachments } from "./tables";

type Q = Pick<Db, "select">;

/** The company's chat files as one row per stored key with its size: a subquery to union with ticket files. */
export const chatFileSizes = (q: Q, companyId: number) =>
  q
    .select({ key: chatAttachments.storageKey, size: max(chatAttachments.sizeBytes).as("size") })
    .from(chatAttachments)
    .where(eq(chatAttachments.companyId, companyId))
    .groupBy(chatAttachments.storageKey);

/** Which of `keys` a chat file still holds. */
export async function chatHeldKeys(q: Q, keys: string[]): Promise<string[]> {
  if (!keys.length) return [];
  const r = await q
    .select({ key: chatAttachments.storageKey })
    .from(chatAttachments)
    .where(inArray(chatAttachments.storageKey, keys))
    .groupBy(chatAttachments.storageKey);
  return r.map((x) => x.key);
}
