/**
 * A small OpenAI-compatible /v1/embeddings endpoint on loopback for tests:
 * deterministic vectors (a bag of words hashed into 64 dimensions, with a
 * few synonyms sharing a dimension, so "automobile" is near "car" though no
 * word is shared), and a switch that makes it fail like an endpoint that is down.
 */
const DIM = 64;
const SYNONYMS: Record<string, string> = {
  automobile: "car",
  vehicle: "car",
  cars: "car",
  holiday: "vacation",
  leave: "vacation",
  pto: "vacation",
};

function hash(s: string): number {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.codePointAt(0)!, 16777619) >>> 0;
  return h % DIM;
}

export function vectorOf(text: string): number[] {
  const v = new Array(DIM).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const w = SYNONYMS[raw] ?? raw;
    if (w.length < 3) continue;
    v[hash(w)] += 1;
  }
  return v;
}

export interface EmbeddingsServer {
  url: string;
  calls: number;
  inputs: number;
  /** "up" answers; "error" answers 503; "garbage" answers a malformed body. */
  mode: "up" | "error" | "garbage";
  lastAuth: string | null;
  stop(): void;
}

export function startEmbeddingsServer(): EmbeddingsServer {
  const state: EmbeddingsServer = {
    url: "",
    calls: 0,
    inputs: 0,
    mode: "up",
    lastAuth: null,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      if (req.method !== "POST" || url.pathname !== "/v1/embeddings") return new Response("not found", { status: 404 });
      state.calls++;
      state.lastAuth = req.headers.get("authorization");
      if (state.mode === "error")
        return new Response(JSON.stringify({ error: { message: "overloaded" } }), { status: 503 });
      const body = (await req.json()) as { input: string[]; model: string };
      state.inputs += body.input.length;
      if (state.mode === "garbage") return Response.json({ data: [{ embedding: ["x"] }] });
      return Response.json({
        object: "list",
        model: body.model,
        data: body.input.map((t, index) => ({ object: "embedding", index, embedding: vectorOf(t) })),
      });
    },
  });
  state.url = `http://127.0.0.1:${server.port}`;
  return state;
}
