/**
 * Semantic half of hybrid search. With PLINTH_EMBEDDINGS_URL set (any
 * OpenAI-compatible /v1/embeddings endpoint), every record write replaces
 * the record's chunks in the same transaction, as "pending"; the brain.embed
 * job sends pending chunks in batches and stores the vectors. The queue is
 * the table itself, so it survives restarts: while the endpoint is down,
 * each chunk's next attempt moves out with backoff (30 s doubling to an
 * hour), and full-text search keeps answering. Without the setting nothing
 * is chunked and search says it is full text only.
 *
 * Vectors are kept as JSON arrays with the chunk and compared in process
 * (cosine) over the company's chunks: no vector extension on either engine,
 * fine for knowledge bases of thousands of records (docs/brain.md).
 */
import { and, asc, eq, inArray, isNotNull, lte, notInArray } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { anyRow, type JobDef } from "../../core/jobs";
import { InsufficientCredits } from "../ai/credits";
import { affordableUnits, meter, starvedCompanies } from "../ai/meter";
import type { Q } from "./access";
import { brainChunks } from "./tables";

export const CHUNK_CHARS = 1200;
const BATCH = 32;
const MAX_ATTEMPTS = 12;
const TIMEOUT_MS = 10_000;
const QUERY_TIMEOUT_MS = 2_500;
/** Cosine below this is not a match by meaning (text-embedding-3 puts unrelated passages around 0.1–0.2). */
export const MIN_SIMILARITY = 0.3;
/** …nor is a passage far behind the best one. */
const RELATIVE_SIMILARITY = 0.6;

export function embeddingsOn(deps: Deps): boolean {
  return !!deps.config.embeddingsUrl;
}

function endpoint(deps: Deps): string {
  const u = deps.config.embeddingsUrl!.replace(/\/+$/, "");
  return /\/embeddings$/.test(u) ? u : /\/v1$/.test(u) ? `${u}/embeddings` : `${u}/v1/embeddings`;
}

/** Splits a record's text into passages: paragraphs packed up to CHUNK_CHARS, long paragraphs cut at sentence ends. */
export function chunkText(title: string, text: string): string[] {
  const paras = text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
  const pieces: string[] = [];
  for (const p of paras) {
    if (p.length <= CHUNK_CHARS) pieces.push(p);
    else {
      let rest = p;
      while (rest.length > CHUNK_CHARS) {
        const cut = Math.max(rest.lastIndexOf(". ", CHUNK_CHARS), rest.lastIndexOf("\n", CHUNK_CHARS), CHUNK_CHARS / 2);
        pieces.push(rest.slice(0, cut + 1).trim());
        rest = rest.slice(cut + 1);
      }
      if (rest.trim()) pieces.push(rest.trim());
    }
  }
  const chunks: string[] = [];
  let cur = "";
  for (const p of pieces) {
    if (cur && cur.length + p.length + 2 > CHUNK_CHARS) {
      chunks.push(cur);
      cur = p;
    } else cur = cur ? `${cur}\n\n${p}` : p;
  }
  if (cur) chunks.push(cur);
  // The title leads every chunk: a passage about "it" still carries what "it" is.
  return (chunks.length ? chunks : [""]).slice(0, 200).map((c) => (c ? `${title}\n\n${c}` : title));
}

/** Replaces a record's chunks with pending ones (in the record's transaction). */
export async function queueChunks(
  tx: Q,
  deps: Deps,
  companyId: number,
  recordId: number,
  title: string,
  text: string,
): Promise<void> {
  if (!embeddingsOn(deps)) return;
  await tx.delete(brainChunks).where(eq(brainChunks.recordId, recordId));
  const at = deps.clock.now();
  const chunks = chunkText(title, text);
  await tx.insert(brainChunks).values(
    chunks.map((t, i) => ({
      companyId,
      recordId,
      ordinal: i,
      text: t,
      state: "pending",
      attempts: 0,
      nextAttemptAt: at,
      createdAt: at,
    })),
  );
}

/** Calls the endpoint; throws with a short reason on any failure. */
export async function embed(deps: Deps, inputs: string[], timeoutMs = TIMEOUT_MS): Promise<number[][]> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (deps.config.embeddingsKey) headers.authorization = `Bearer ${deps.config.embeddingsKey}`;
  let res: Response;
  try {
    res = await fetch(endpoint(deps), {
      method: "POST",
      headers,
      body: JSON.stringify({ model: deps.config.embeddingsModel, input: inputs }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw new Error(`embeddings endpoint unreachable: ${(e as Error).message?.slice(0, 200) ?? e}`);
  }
  if (!res.ok) throw new Error(`embeddings endpoint answered ${res.status}`);
  const body = (await res.json().catch(() => null)) as { data?: { index?: number; embedding?: unknown }[] } | null;
  const data = body?.data;
  if (!Array.isArray(data) || data.length !== inputs.length)
    throw new Error("embeddings endpoint answered without one vector per input");
  const out: number[][] = new Array(inputs.length);
  data.forEach((d, i) => {
    const vec = d.embedding;
    if (
      !Array.isArray(vec) ||
      !vec.length ||
      vec.length > 8192 ||
      !vec.every((x) => typeof x === "number" && Number.isFinite(x))
    )
      throw new Error("embeddings endpoint answered a malformed vector");
    out[typeof d.index === "number" && d.index >= 0 && d.index < inputs.length ? d.index : i] = vec as number[];
  });
  if (out.some((x) => !x)) throw new Error("embeddings endpoint answered duplicate indexes");
  return out;
}

/** Marks (in last_error) a chunk that waits for its company's AI credits, not for the endpoint. */
export const CREDIT_WAIT = "Waiting for AI credits";
/** How long chunks wait when a hard budget (not the balance) stops them; a balance at zero is skipped until a grant, at once. */
const CREDIT_WAIT_MS = 60_000;

/** Chunks that cannot be paid for now wait, attempts untouched: nothing is lost, nothing counts as a failure. */
async function waitForCredits(deps: Deps, ids: number[], why: string) {
  if (!ids.length) return;
  const at = new Date(deps.clock.now().getTime() + CREDIT_WAIT_MS);
  await deps.db
    .update(brainChunks)
    .set({ lastError: `${CREDIT_WAIT}: ${why}`.slice(0, 500), nextAttemptAt: at })
    .where(and(inArray(brainChunks.id, ids), eq(brainChunks.state, "pending")));
}

/**
 * One run of the queue: due pending chunks in batches until none are due.
 * Metered companies pay per chunk embedded (docs/brain.md, "AI credits"), in
 * the transaction that stores the vectors; a company that cannot pay is
 * skipped, its chunks kept pending, until the agency grants credits.
 */
export async function drainEmbeddingQueue(
  deps: Deps,
  maxBatches = 20,
): Promise<{ embedded: number; failed: number; waiting: number }> {
  let embedded = 0;
  let failed = 0;
  let waiting = 0;
  if (!embeddingsOn(deps)) return { embedded, failed, waiting };
  for (let b = 0; b < maxBatches; b++) {
    const now = deps.clock.now();
    const starved = await starvedCompanies(deps.db, "embedding");
    const candidates = await deps.db
      .select({
        id: brainChunks.id,
        companyId: brainChunks.companyId,
        text: brainChunks.text,
        attempts: brainChunks.attempts,
      })
      .from(brainChunks)
      .where(
        and(
          eq(brainChunks.state, "pending"),
          lte(brainChunks.nextAttemptAt, now),
          starved.length ? notInArray(brainChunks.companyId, starved) : undefined,
        ),
      )
      .orderBy(asc(brainChunks.id))
      .limit(BATCH);
    if (!candidates.length) break;
    // Per company, only as many chunks as its credits (and hard budget) pay for go to the endpoint.
    const room = new Map<number, number>();
    const due: typeof candidates = [];
    const unpaid: typeof candidates = [];
    for (const c of candidates) {
      if (!room.has(c.companyId)) room.set(c.companyId, await affordableUnits(deps.db, deps, c.companyId, "embedding"));
      const left = room.get(c.companyId)!;
      if (left >= 1) {
        room.set(c.companyId, left - 1);
        due.push(c);
      } else unpaid.push(c);
    }
    /**
     * Chunks left unpaid whose company still has a balance are held by a hard
     * budget, which the query does not skip: they wait CREDIT_WAIT_MS rather
     * than take the batch's places again. The others (balance spent) are
     * skipped by the query from now until a grant.
     */
    const holdBudgetBound = async () => {
      if (!unpaid.length) return;
      const starvedNow = new Set(await starvedCompanies(deps.db, "embedding"));
      const held = unpaid.filter((c) => !starvedNow.has(c.companyId)).map((c) => c.id);
      await waitForCredits(deps, held, "the company's monthly AI credit budget is used up");
      waiting += held.length;
    };
    if (!due.length) {
      await holdBudgetBound();
      if (unpaid.length) continue;
      break;
    }
    let vectors: number[][] | null = null;
    let error: string | null = null;
    try {
      vectors = await embed(
        deps,
        due.map((c) => c.text),
      );
    } catch (e) {
      error = (e as Error).message;
    }
    let refused: number[] = [];
    let refusal = "";
    await deps.store.transaction(async (tx) => {
      if (vectors) {
        const byCompany = new Map<number, number[]>();
        due.forEach((c, i) => byCompany.set(c.companyId, [...(byCompany.get(c.companyId) ?? []), i]));
        for (const [companyId, idx] of byCompany) {
          // A chunk replaced meanwhile (its record was edited) is gone; updating it by id changes nothing, and it is not paid for.
          const stored: number[] = [];
          for (const i of idx) {
            const r = await tx
              .update(brainChunks)
              .set({ state: "done", embedding: vectors[i]!, model: deps.config.embeddingsModel, lastError: null })
              .where(and(eq(brainChunks.id, due[i]!.id), eq(brainChunks.state, "pending")))
              .returning({ id: brainChunks.id });
            stored.push(...r.map((x) => x.id));
          }
          if (!stored.length) continue;
          try {
            // A savepoint: a refusal (a race with another debit, a hard budget) undoes this company's chunks only.
            await tx.transaction(async (sp) => {
              await meter(
                sp,
                deps,
                companyId,
                "embedding",
                stored.length,
                `brain_chunks:${Math.min(...stored)}-${Math.max(...stored)}`,
              );
            });
          } catch (e) {
            if (!(e instanceof InsufficientCredits)) throw e;
            await tx
              .update(brainChunks)
              .set({ state: "pending", embedding: null, model: null })
              .where(inArray(brainChunks.id, stored));
            refused = [...refused, ...stored];
            refusal = e.message;
          }
        }
      } else {
        for (const c of due) {
          const attempts = c.attempts + 1;
          const delay = Math.min(30_000 * 2 ** (attempts - 1), 3_600_000);
          await tx
            .update(brainChunks)
            .set({
              attempts,
              lastError: error,
              nextAttemptAt: new Date(now.getTime() + delay),
              state: attempts >= MAX_ATTEMPTS ? "failed" : "pending",
            })
            .where(eq(brainChunks.id, c.id));
        }
      }
    });
    await holdBudgetBound();
    if (vectors) {
      embedded += due.length - refused.length;
      await waitForCredits(deps, refused, refusal);
      waiting += refused.length;
    } else {
      failed += due.length;
      break;
    }
  }
  return { embedded, failed, waiting };
}

export const embedJob: JobDef = {
  name: "brain.embed",
  description:
    "Embeds pending knowledge-base chunks through PLINTH_EMBEDDINGS_URL, retrying with backoff while it is down.",
  everyMs: 5_000,
  leaseMs: 5 * 60_000,
  // Wider than the drain's query (which also skips companies out of credits): never misses a chunk it would embed.
  pending: async (deps) =>
    embeddingsOn(deps) &&
    (await anyRow(
      deps.db
        .select({ id: brainChunks.id })
        .from(brainChunks)
        .where(and(eq(brainChunks.state, "pending"), lte(brainChunks.nextAttemptAt, deps.clock.now())))
        .limit(1),
    )),
  async run(deps) {
    await drainEmbeddingQueue(deps);
  },
};

function cosine(a: number[], b: number[]): number {
  if (a.length !== b.length) return -1;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : -1;
}

export interface VectorHit {
  recordId: number;
  score: number;
  text: string;
}

/** The company's records nearest to `query`, best chunk per record; throws when the endpoint cannot embed the query. */
export async function vectorSearch(
  deps: Deps,
  companyId: number,
  query: string,
  limit: number,
  recordIds?: readonly number[],
): Promise<VectorHit[]> {
  const [qv] = await embed(deps, [query.slice(0, 4000)], QUERY_TIMEOUT_MS);
  const rows = await deps.db
    .select({ recordId: brainChunks.recordId, text: brainChunks.text, embedding: brainChunks.embedding })
    .from(brainChunks)
    .where(
      and(
        eq(brainChunks.companyId, companyId),
        eq(brainChunks.state, "done"),
        isNotNull(brainChunks.embedding),
        recordIds ? inArray(brainChunks.recordId, [...recordIds]) : undefined,
      ),
    );
  const best = new Map<number, VectorHit>();
  for (const r of rows) {
    const score = cosine(qv!, r.embedding!);
    const cur = best.get(r.recordId);
    if (!cur || score > cur.score) best.set(r.recordId, { recordId: r.recordId, score, text: r.text });
  }
  // Every vector is "nearest" to something: only passages close in absolute terms and to the best match count as matches.
  const top = Math.max(0, ...[...best.values()].map((h) => h.score));
  return [...best.values()]
    .filter((h) => h.score >= MIN_SIMILARITY && h.score >= top * RELATIVE_SIMILARITY)
    .sort((a, b) => b.score - a.score || a.recordId - b.recordId)
    .slice(0, limit);
}

export const creditPauseNote = (n: number) =>
  `Semantic search is paused for want of AI credits: ${n} passage${n === 1 ? "" : "s"} wait to be embedded until the agency grants more; what changed since is found by full text only.`;

/** Chunks of the company that wait for AI credits (its balance cannot pay for one, or a hard budget stopped them). */
export async function chunksWaitingForCredits(deps: Deps, companyId: number): Promise<number> {
  if (!embeddingsOn(deps)) return 0;
  const starved = (await affordableUnits(deps.db, deps, companyId, "embedding")) < 1;
  const rows = await deps.db
    .select({ lastError: brainChunks.lastError })
    .from(brainChunks)
    .where(and(eq(brainChunks.companyId, companyId), eq(brainChunks.state, "pending")));
  return starved ? rows.length : rows.filter((r) => r.lastError?.startsWith(CREDIT_WAIT)).length;
}

export async function embeddingStatus(deps: Deps, companyId: number) {
  const rows = await deps.db
    .select({ state: brainChunks.state, lastError: brainChunks.lastError, nextAttemptAt: brainChunks.nextAttemptAt })
    .from(brainChunks)
    .where(eq(brainChunks.companyId, companyId));
  const counts = { pending: 0, done: 0, failed: 0 };
  let lastError: string | null = null;
  let nextAttemptAt: Date | null = null;
  for (const r of rows) {
    counts[r.state as keyof typeof counts] = (counts[r.state as keyof typeof counts] ?? 0) + 1;
    if (r.state === "pending" && r.lastError) {
      lastError = r.lastError;
      if (!nextAttemptAt || r.nextAttemptAt < nextAttemptAt) nextAttemptAt = r.nextAttemptAt;
    }
  }
  const waitingForCredits = await chunksWaitingForCredits(deps, companyId);
  return {
    configured: embeddingsOn(deps),
    model: embeddingsOn(deps) ? deps.config.embeddingsModel : null,
    chunks: counts,
    lastError,
    nextAttemptAt: nextAttemptAt?.toISOString() ?? null,
    ...(waitingForCredits ? { waitingForCredits, note: creditPauseNote(waitingForCredits) } : {}),
  };
}
