/**
 * Hybrid search against a deterministic embeddings endpoint on loopback:
 * chunks queued with the record's write and embedded by the brain.embed job;
 * a record found by meaning when no word matches; the endpoint down (full
 * text still answers, the queue backs off and catches up when it is back);
 * a malformed answer; reindexing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rows } from "../harness";
import { startEmbeddingsServer, type EmbeddingsServer } from "./embeddings-server";
import { makeWorld, type World } from "./world";

let w: World;
let es: EmbeddingsServer;
beforeAll(async () => {
  es = startEmbeddingsServer();
  w = await makeWorld({ config: { embeddingsUrl: es.url, embeddingsKey: "sk-test", embeddingsModel: "test-embed" } });
});
afterAll(async () => {
  await w.close();
  es.stop();
});

const chunkStates = async () =>
  (
    await rows<{ state: string; n: number }>(
      w.deps,
      "SELECT state, count(*) AS n FROM brain_chunks GROUP BY state ORDER BY state",
    )
  ).map((r) => [r.state, Number(r.n)]);

async function runJob() {
  const jobs = await w.jobs();
  w.clock.advance(6_000);
  return await jobs.runDue();
}

describe("hybrid search", () => {
  test("writes queue chunks in their transaction; the job embeds them", async () => {
    await w.call("brain_documents_create", {
      title: "Company car policy",
      body: "Staff may book the car for client visits. Fuel is reimbursed.",
    });
    await w.call("brain_notes_create", { title: "Vacation rules", body: "Ask two weeks ahead for vacation." });
    await w.call("brain_notes_create", { title: "Espresso", body: "The machine is descaled on Fridays." });
    expect(await chunkStates()).toEqual([["pending", 3]]);
    expect(await runJob()).toEqual([{ name: "brain.embed", ok: true }]);
    expect(await chunkStates()).toEqual([["done", 3]]);
    expect(es.lastAuth).toBe("Bearer sk-test");
    expect((await w.call("brain_embeddings_status", {})).chunks).toEqual({ pending: 0, done: 3, failed: 0 });
  });

  test("a record no word of the query matches is found by meaning, and marked so", async () => {
    expect((await w.call("brain_search", { query: "automobile", mode: "text" })).total).toBe(0);
    const r = await w.call("brain_search", { query: "automobile" });
    expect(r.mode).toBe("hybrid");
    expect(r.items[0]).toMatchObject({ title: "Company car policy", matchedBy: ["meaning"] });
    expect(r.note).toBeUndefined();
  });

  test("a record matching both by words and by meaning ranks above one matching by meaning only", async () => {
    await w.call("brain_notes_create", { title: "Car wash", body: "The car is washed monthly." });
    await runJob();
    const r = await w.call("brain_search", { query: "car" });
    expect(r.items[0].matchedBy).toEqual(["text", "meaning"]);
    expect(
      r.items
        .map((i: { title: string }) => i.title)
        .slice(0, 2)
        .sort(),
    ).toEqual(["Car wash", "Company car policy"]);
  });

  test("filters apply to meaning matches too, and other companies' vectors never match", async () => {
    expect(
      (await w.call("brain_search", { query: "automobile", kinds: ["note"] })).items.map(
        (i: { title: string }) => i.title,
      ),
    ).toEqual(["Car wash"]);
    await w.call("brain_notes_create", { title: "Rival fleet", body: "Our car fleet." }, w.ctx({ company: "other" }));
    await runJob();
    expect(
      (await w.call("brain_search", { query: "automobile", limit: 50 })).items.map((i: { title: string }) => i.title),
    ).not.toContain("Rival fleet");
  });

  test("brain_context uses meaning too", async () => {
    const r = await w.call("brain_context", { question: "Can I take the automobile to a client?" });
    expect(r.mode).toBe("hybrid");
    expect(r.passages[0].title).toBe("Company car policy");
  });
});

describe("the endpoint down", () => {
  test("search falls back to full text and says so; the queue backs off and catches up", async () => {
    es.mode = "error";
    await w.call("brain_notes_create", {
      title: "Holiday calendar",
      body: "The office closes between Christmas and New Year.",
    });
    const r = await w.call("brain_search", { query: "christmas" });
    expect(r.mode).toBe("text");
    expect(r.items.map((i: { title: string }) => i.title)).toEqual(["Holiday calendar"]);
    expect(r.note).toContain("Semantic search is unavailable right now (embeddings endpoint answered 503)");
    await runJob();
    const [c] = await rows<{ attempts: number; state: string; last_error: string }>(
      w.deps,
      "SELECT attempts, state, last_error FROM brain_chunks WHERE state <> 'done'",
    );
    expect(c).toMatchObject({ state: "pending", last_error: "embeddings endpoint answered 503" });
    expect(Number(c!.attempts)).toBe(1);
    const status = await w.call("brain_embeddings_status", {});
    expect(status.lastError).toBe("embeddings endpoint answered 503");
    // Not due again before its backoff (30 s): a run now sends nothing.
    es.mode = "up";
    const calls = es.calls;
    await runJob();
    expect(es.calls).toBe(calls);
    w.clock.advance(30_000);
    await runJob();
    expect(await chunkStates()).toEqual([["done", 6]]);
    const back = await w.call("brain_search", { query: "office closes christmas" });
    expect(back.mode).toBe("hybrid");
    expect(back.items[0]).toMatchObject({ title: "Holiday calendar", matchedBy: ["text", "meaning"] });
  });

  test("a malformed answer counts as a failure, nothing stored", async () => {
    es.mode = "garbage";
    await w.call("brain_notes_create", { title: "Parking", body: "Visitors park at the back." });
    await runJob();
    const [c] = await rows<{ state: string; last_error: string; embedding: unknown }>(
      w.deps,
      "SELECT state, last_error, embedding FROM brain_chunks WHERE state <> 'done'",
    );
    expect(c).toMatchObject({
      state: "pending",
      last_error: "embeddings endpoint answered a malformed vector",
      embedding: null,
    });
    es.mode = "up";
  });

  test("an unreachable endpoint: the same, with its own reason", async () => {
    const dead = await makeWorld({ config: { embeddingsUrl: "http://127.0.0.1:9/v1" } });
    try {
      await dead.call("brain_notes_create", { title: "Offline", body: "Written while the endpoint is unreachable." });
      const r = await dead.call("brain_search", { query: "offline" });
      expect(r.mode).toBe("text");
      expect(r.items).toHaveLength(1);
      expect(r.note).toContain("unreachable");
    } finally {
      await dead.close();
    }
  });
});

describe("reindex", () => {
  test("queues every record of the company again", async () => {
    const before = es.inputs;
    const out = await w.call("brain_embeddings_reindex", {});
    expect(out.queued).toBe(6);
    expect((await w.call("brain_embeddings_status", {})).chunks.pending).toBe(6);
    w.clock.advance(60_000);
    await runJob();
    expect(es.inputs - before).toBe(6);
    expect((await w.call("brain_embeddings_status", {})).chunks).toEqual({ pending: 0, done: 6, failed: 0 });
  });
});
