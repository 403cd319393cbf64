/**
 * The three network checks of a site domain, with nothing stored: DNS (are
 * the records a renderer needs there, pointing where they should), TLS (the
 * certificate served for the name: issuer, expiry, whether it is trusted)
 * and uptime (a GET of the public URL, timed).
 *
 * Every connection goes to an address our own resolver found (node:dns
 * Resolver on the configured servers), never through the system's lookup,
 * so the checks see what the configured DNS says and tests can point them
 * at a loopback DNS server. TLS and HTTP send the domain as SNI and Host.
 */
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import tls from "node:tls";
import type { Config } from "../../config";
import { dnsResolver as resolver, NO_RECORD } from "./resolver";
import type { DnsRecord } from "./tables";

export type HostingConfig = Config["hosting"];

const CONNECT_TIMEOUT_MS = 10_000;
/** A certificate expiring within this many days is reported as expiring. */
export const EXPIRING_DAYS = 14;

const caCache = new Map<string, string>();
function extraCa(cfg: HostingConfig): string[] | undefined {
  if (!cfg.caFile) return undefined;
  let pem = caCache.get(cfg.caFile);
  if (pem === undefined) {
    pem = readFileSync(cfg.caFile, "utf8");
    caCache.set(cfg.caFile, pem);
  }
  // The system's roots stay trusted: the extra file adds to them.
  return [...tls.rootCertificates, pem];
}

/** What the configured target says a domain must have: a CNAME for subdomains when a target host is set, else A/AAAA. */
export function requiredRecords(hostname: string, target: readonly string[]): DnsRecord[] {
  const hosts = target.filter((t) => isIP(t) === 0);
  const v4 = target.filter((t) => isIP(t) === 4);
  const v6 = target.filter((t) => isIP(t) === 6);
  // A name of three labels or more is taken as a subdomain, which may be a CNAME; an apex (example.com) may not.
  const apex = hostname.split(".").length <= 2;
  if (hosts.length && (!apex || (!v4.length && !v6.length)))
    return [{ type: "CNAME", name: hostname, value: hosts[0]! }];
  return [
    ...v4.map((value) => ({ type: "A" as const, name: hostname, value })),
    ...v6.map((value) => ({ type: "AAAA" as const, name: hostname, value })),
  ];
}

export interface DnsResult {
  status: "ok" | "misconfigured" | "missing" | "error";
  required: DnsRecord[];
  found: DnsRecord[];
  error: string | null;
}

async function lookup<T>(fn: () => Promise<T[]>): Promise<{ values: T[]; error: string | null }> {
  try {
    return { values: await fn(), error: null };
  } catch (e: any) {
    if (NO_RECORD.has(e?.code)) return { values: [], error: null };
    return { values: [], error: String(e?.code ?? e?.message ?? e) };
  }
}

export async function checkDns(cfg: HostingConfig, hostname: string): Promise<DnsResult> {
  const r = resolver(cfg);
  const required = requiredRecords(hostname, cfg.target);
  const [cname, a, aaaa] = await Promise.all([
    lookup(() => r.resolveCname(hostname)),
    lookup(() => r.resolve4(hostname)),
    lookup(() => r.resolve6(hostname)),
  ]);
  const found: DnsRecord[] = [
    ...cname.values.map((value) => ({
      type: "CNAME" as const,
      name: hostname,
      value: value.replace(/\.$/, "").toLowerCase(),
    })),
    ...a.values.map((value) => ({ type: "A" as const, name: hostname, value })),
    ...aaaa.values.map((value) => ({ type: "AAAA" as const, name: hostname, value })),
  ];
  const error = cname.error ?? a.error ?? aaaa.error;
  if (!found.length)
    return {
      status: error ? "error" : "missing",
      required,
      found,
      error: error ? `DNS lookup failed: ${error}` : "no A, AAAA or CNAME record",
    };
  if (!required.length) return { status: "ok", required, found, error: null };
  const want = required[0]!.type === "CNAME" ? required[0]!.value : null;
  let ok: boolean;
  if (want) ok = found.some((f) => f.type === "CNAME" && f.value === want);
  else {
    const ips = new Set(required.map((x) => x.value));
    const addrs = found.filter((f) => f.type !== "CNAME");
    // Every address must be ours: a stray A or AAAA sends some visitors elsewhere.
    ok =
      addrs.length > 0 &&
      addrs.every((f) => ips.has(f.value)) &&
      required.every((x) => addrs.some((f) => f.value === x.value));
  }
  return {
    status: ok ? "ok" : "misconfigured",
    required,
    found,
    error: ok ? null : "records do not point at the hosting target",
  };
}

/** The first address of a name through the configured servers (IPv4 first). */
export async function resolveAddress(cfg: HostingConfig, hostname: string): Promise<string> {
  const r = resolver(cfg);
  const v4 = await lookup(() => r.resolve4(hostname));
  if (v4.values.length) return v4.values[0]!;
  const v6 = await lookup(() => r.resolve6(hostname));
  if (v6.values.length) return v6.values[0]!;
  throw new Error(`DNS: ${v4.error ?? v6.error ?? "no address for " + hostname}`);
}

export interface TlsResult {
  status: "valid" | "expiring" | "expired" | "invalid" | "error";
  issuer: string | null;
  subject: string | null;
  altNames: string[];
  validFrom: Date | null;
  expiresAt: Date | null;
  error: string | null;
}

function nameOf(o: Record<string, unknown> | undefined): string | null {
  if (!o) return null;
  const v = (k: string) => (Array.isArray(o[k]) ? (o[k] as string[]).join(", ") : (o[k] as string | undefined));
  const parts = [v("O"), v("CN")].filter(Boolean);
  return parts.length ? [...new Set(parts)].join(" — ") : null;
}

export async function checkTls(cfg: HostingConfig, hostname: string, now: Date): Promise<TlsResult> {
  const empty = { issuer: null, subject: null, altNames: [], validFrom: null, expiresAt: null };
  let host: string;
  try {
    host = await resolveAddress(cfg, hostname);
  } catch (e) {
    return { status: "error", ...empty, error: (e as Error).message };
  }
  return new Promise<TlsResult>((resolve) => {
    let done = false;
    const finish = (r: TlsResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(r);
    };
    const sock = tls.connect({
      host,
      port: cfg.httpsPort,
      servername: hostname,
      ca: extraCa(cfg),
      rejectUnauthorized: false,
      ALPNProtocols: ["http/1.1"],
    });
    const timer = setTimeout(
      () => finish({ status: "error", ...empty, error: `no TLS handshake within ${CONNECT_TIMEOUT_MS / 1000} s` }),
      CONNECT_TIMEOUT_MS,
    );
    sock.once("error", (e: any) =>
      finish({ status: "error", ...empty, error: `TLS connection failed: ${e?.code ?? e?.message ?? e}` }),
    );
    sock.once("secureConnect", () => {
      const c = sock.getPeerCertificate();
      if (!c || !c.valid_to) return finish({ status: "error", ...empty, error: "the server sent no certificate" });
      const validFrom = new Date(c.valid_from);
      const expiresAt = new Date(c.valid_to);
      const altNames = (c.subjectaltname ?? "")
        .split(/,\s*/)
        .filter((s: string) => s.startsWith("DNS:"))
        .map((s: string) => s.slice(4));
      const base = {
        issuer: nameOf(c.issuer as any),
        subject: nameOf(c.subject as any),
        altNames,
        validFrom,
        expiresAt,
      };
      const mismatch = tls.checkServerIdentity(hostname, c);
      let status: TlsResult["status"];
      let error: string | null = null;
      if (expiresAt.getTime() <= now.getTime()) (status = "expired"), (error = `expired ${expiresAt.toISOString()}`);
      else if (validFrom.getTime() > now.getTime())
        (status = "invalid"), (error = `not valid before ${validFrom.toISOString()}`);
      else if (mismatch) (status = "invalid"), (error = `certificate is not for ${hostname}`);
      else if (!sock.authorized)
        (status = "invalid"), (error = `untrusted certificate: ${String(sock.authorizationError)}`);
      else if (expiresAt.getTime() - now.getTime() < EXPIRING_DAYS * 86_400_000) status = "expiring";
      else status = "valid";
      finish({ status, ...base, error });
    });
  });
}

export interface HttpResult {
  ok: boolean;
  statusCode: number | null;
  responseMs: number | null;
  error: string | null;
}

/** GET https://<hostname>/ (the configured port), redirects not followed; up means a 2xx or 3xx answer. */
export async function checkHttp(cfg: HostingConfig, hostname: string): Promise<HttpResult> {
  let ip: string;
  try {
    ip = await resolveAddress(cfg, hostname);
  } catch (e) {
    return { ok: false, statusCode: null, responseMs: null, error: (e as Error).message };
  }
  const hostPart = isIP(ip) === 6 ? `[${ip}]` : ip;
  const port = cfg.httpsPort === 443 ? "" : `:${cfg.httpsPort}`;
  const started = performance.now();
  try {
    const res = await fetch(`https://${hostPart}${port}/`, {
      method: "GET",
      redirect: "manual",
      headers: { Host: hostname, "User-Agent": "Plinth-Uptime/1.0" },
      signal: AbortSignal.timeout(CONNECT_TIMEOUT_MS),
      // Bun's fetch: SNI and certificate checks against the domain, not the address.
      tls: { serverName: hostname, ca: extraCa(cfg) },
    } as RequestInit);
    await res.body?.cancel().catch(() => {});
    const ms = Math.max(0, Math.round(performance.now() - started));
    const ok = res.status >= 200 && res.status < 400;
    return { ok, statusCode: res.status, responseMs: ms, error: ok ? null : `HTTP ${res.status}` };
  } catch (e: any) {
    const ms = Math.max(0, Math.round(performance.now() - started));
    const what =
      e?.name === "TimeoutError"
        ? `no answer within ${CONNECT_TIMEOUT_MS / 1000} s`
        : String(e?.code ?? e?.message ?? e);
    return { ok: false, statusCode: null, responseMs: ms, error: what.slice(0, 300) };
  }
}
