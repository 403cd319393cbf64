/**
 * The hosting domain's DNS resolver: node:dns Resolver on the configured
 * servers (PLINTH_DNS_SERVERS), never the system's lookup, so whatever
 * checks DNS sees what the configured servers say and tests can point it
 * at a loopback DNS server. The site checks (probes.ts) use it, and so
 * does every other check of published records.
 *
 * @public Serves email (the sending-domain check reads SPF, DKIM, DMARC
 * and MX records through the same servers).
 */
import { Resolver } from "node:dns/promises";
import type { Config } from "../../config";

const DNS_TIMEOUT_MS = 3000;

/** Error codes that mean "no such record" rather than "the lookup failed". */
export const NO_RECORD = new Set(["ENODATA", "ENOTFOUND", "NXDOMAIN", "ENONAME"]);

export function dnsResolver(cfg: Pick<Config["hosting"], "dnsServers">): Resolver {
  const r = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
  if (cfg.dnsServers.length) r.setServers(cfg.dnsServers);
  return r;
}
