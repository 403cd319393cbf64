/**
 * Loopback stand-ins for the internet the hosting checks look at: a DNS
 * server (dns2) answering from a table the test edits, and an HTTPS server
 * with a certificate made for the test (selfsigned), answering each Host
 * with the status the test sets. TXT and MX answers serve the email
 * domain's sending-domain check (SPF, DKIM, DMARC, MX) and DKIM verifiers.
 */
import dns2 from "dns2";
import https from "node:https";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import selfsigned from "selfsigned";

const { Packet } = dns2;

export interface Zone {
  A?: string[];
  AAAA?: string[];
  CNAME?: string;
  /** TXT records, each one string (split into 255-byte character-strings on the wire). */
  TXT?: string[];
  MX?: { exchange: string; priority: number }[];
  /** Answer SERVFAIL. */
  fail?: boolean;
}

export async function startDns(zones: Map<string, Zone>) {
  const handle = (req: any, send: any) => {
    const res = Packet.createResponseFromRequest(req);
    const q = req.questions[0];
    const name = String(q.name).toLowerCase();
    const z = zones.get(name);
    const add = (type: number, n: string, data: Record<string, unknown>) =>
      res.answers.push({ name: n, type, class: Packet.CLASS.IN, ttl: 60, ...data });
    if (!z)
      res.header.rcode = 3; // NXDOMAIN
    else if (z.fail)
      res.header.rcode = 2; // SERVFAIL
    else if (z.CNAME) {
      add(Packet.TYPE.CNAME, name, { domain: z.CNAME });
      const t = zones.get(z.CNAME);
      if (q.type === Packet.TYPE.A) for (const a of t?.A ?? []) add(Packet.TYPE.A, z.CNAME, { address: a });
      if (q.type === Packet.TYPE.AAAA) for (const a of t?.AAAA ?? []) add(Packet.TYPE.AAAA, z.CNAME, { address: a });
    } else if (q.type === Packet.TYPE.A) for (const a of z.A ?? []) add(Packet.TYPE.A, name, { address: a });
    else if (q.type === Packet.TYPE.AAAA) for (const a of z.AAAA ?? []) add(Packet.TYPE.AAAA, name, { address: a });
    else if (q.type === Packet.TYPE.TXT)
      for (const t of z.TXT ?? []) add(Packet.TYPE.TXT, name, { data: t.match(/[\s\S]{1,255}/g) ?? [""] });
    else if (q.type === Packet.TYPE.MX) for (const m of z.MX ?? []) add(Packet.TYPE.MX, name, { ...m });
    send(res);
  };
  // An answer over 512 bytes (a DKIM key's TXT record) comes truncated over UDP and the resolver asks
  // again over TCP on the same port: a TCP server listens there too (another port is tried if it is taken).
  for (let attempt = 0; ; attempt++) {
    const udp = dns2.createServer({ udp: true, handle });
    await udp.listen({ udp: { port: 0, address: "127.0.0.1" } });
    const port = (udp.addresses() as any).udp.port as number;
    const tcp = dns2.createServer({ tcp: true, handle });
    const up = await new Promise<boolean>((resolve) => {
      tcp.once("error", () => resolve(false));
      tcp.listen({ tcp: { port, address: "127.0.0.1" } }).then(() => resolve(true));
    });
    if (up) return { server: `127.0.0.1:${port}`, close: () => Promise.all([udp.close(), tcp.close()]) };
    await udp.close();
    if (attempt >= 5) throw new Error("no port free for both UDP and TCP DNS");
  }
}

/** A certificate for `names`, valid over [from, to]; its PEM is also written to a file (to trust it as a CA). */
export async function makeCert(names: string[], from: Date, to: Date) {
  const pems = await selfsigned.generate(
    [
      { name: "commonName", value: names[0]! },
      { name: "organizationName", value: "Test CA" },
    ],
    {
      notBeforeDate: from,
      notAfterDate: to,
      keySize: 2048,
      algorithm: "sha256",
      extensions: [{ name: "subjectAltName", altNames: names.map((value) => ({ type: 2 as const, value })) }],
    } as any,
  );
  const dir = mkdtempSync(join(tmpdir(), "plinth-cert-"));
  const caFile = join(dir, "ca.pem");
  writeFileSync(caFile, pems.cert);
  return { key: pems.private as string, cert: pems.cert as string, caFile };
}

export async function startHttps(cert: { key: string; cert: string }, statusFor: (host: string) => number) {
  const hits: string[] = [];
  const server = https.createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    const host = String(req.headers.host ?? "").replace(/:\d+$/, "");
    hits.push(host);
    res.statusCode = statusFor(host);
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const port = (server.address() as { port: number }).port;
  return { port, hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}
