export {};
/**
 * The baseline: a bare Bun.serve that returns the very same bytes (and
 * content type) as the endpoint it stands beside. Usage: bun bench/bare.ts PORT BODYFILE CONTENT_TYPE
 */
const [port, file, type] = process.argv.slice(2);
const body = new Uint8Array(await Bun.file(file!).arrayBuffer());
Bun.serve({
  port: Number(port),
  hostname: "127.0.0.1",
  fetch: () => new Response(body, { headers: { "content-type": type! } }),
});
console.log("ready");
