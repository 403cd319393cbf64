/**
 * The hosting checks' settings: the DNS servers asked, what a site domain
 * must point at, the HTTPS port probed, extra CAs, the uptime interval.
 * Declared on the hosting Domain; Config gains `hosting` from here.
 */
import { type DomainSettings, int, list } from "../../config";

declare module "../../config" {
  interface Config {
    /**
     * Hosting checks of site domains (src/domains/hosting): the DNS servers
     * asked (host[:port]; empty: the system's), what a domain must point at
     * (a hostname for CNAMEs and/or IP addresses), the HTTPS port probed, an
     * extra CA file trusted besides the system's, and the uptime interval.
     */
    hosting: { dnsServers: string[]; target: string[]; httpsPort: number; caFile: string | null; intervalSec: number };
  }
}

export const hostingSettings: DomainSettings = {
  key: "hosting",
  settings: [
    {
      flag: "hosting-dns",
      env: "PLINTH_HOSTING_DNS",
      value: "<a,b>",
      group: "server",
      help: "DNS servers (host[:port]) the hosting checks ask (default: the system's)",
    },
    {
      flag: "hosting-target",
      env: "PLINTH_HOSTING_TARGET",
      value: "<a,b>",
      group: "server",
      help: "what site domains must point at: a CNAME target host and/or IP addresses",
    },
    {
      flag: "hosting-port",
      env: "PLINTH_HOSTING_PORT",
      value: "<n>",
      group: "server",
      help: "HTTPS port the uptime and certificate checks connect to (default 443)",
    },
    {
      flag: "hosting-ca-file",
      env: "PLINTH_HOSTING_CA_FILE",
      value: "<path>",
      group: "server",
      help: "PEM file of extra CAs the certificate and uptime checks trust",
    },
    {
      flag: "hosting-interval",
      env: "PLINTH_HOSTING_INTERVAL",
      value: "<s>",
      group: "server",
      help: "seconds between uptime checks of each site domain (default 60)",
    },
  ],
  read(raw) {
    const port = raw("PLINTH_HOSTING_PORT");
    const interval = raw("PLINTH_HOSTING_INTERVAL");
    return {
      dnsServers: list(raw("PLINTH_HOSTING_DNS")),
      target: list(raw("PLINTH_HOSTING_TARGET")),
      httpsPort: port === undefined || port === "" ? 443 : int("PLINTH_HOSTING_PORT", port, 1, 65535),
      caFile: raw("PLINTH_HOSTING_CA_FILE") || null,
      intervalSec:
        interval === undefined || interval === "" ? 60 : int("PLINTH_HOSTING_INTERVAL", interval, 10, 86_400),
    };
  },
};
