export {};
/**
 * The widgets of bench/chat.ts, in a process of their own so the server's
 * work does not delay their reads: reads {base, after, tokens} as JSON on
 * stdin, opens one SSE stream per token resuming after message `after` as
 * the widget's frame does (with `status=1`: the hub then also reads status
 * changes for them), prints "ready" once all are open, then one line per
 * message received: `<body>\t<epoch ms, sub-millisecond>` (status records are not messages).
 */
const input = JSON.parse(await new Response(Bun.stdin.stream()).text()) as {
  base: string;
  after: number;
  tokens: string[];
};
const now = () => performance.timeOrigin + performance.now();
let opened = 0;
const out: string[] = [];
let flushing = false;
function emit(line: string) {
  out.push(line);
  if (flushing) return;
  flushing = true;
  queueMicrotask(() => {
    process.stdout.write(out.splice(0).join(""));
    flushing = false;
  });
}
await Promise.all(
  input.tokens.map(async (token) => {
    const r = await fetch(`${input.base}/stream?status=1&after=${input.after}`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (r.status !== 200) throw new Error(`stream ${r.status}`);
    opened++;
    const rd = r.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    void (async () => {
      for (;;) {
        const x = await rd.read();
        if (x.done) break;
        const at = now();
        buf += dec.decode(x.value, { stream: true });
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const ev = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const lines = ev.split("\n");
          if (!lines.includes("event: message")) continue;
          for (const l of lines) if (l.startsWith("data: ")) emit(`${JSON.parse(l.slice(6)).body}\t${at}\n`);
        }
      }
    })();
  }),
);
emit(`ready ${opened}\n`);
await new Promise(() => {});
