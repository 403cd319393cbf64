/**
 * Outgoing webhooks' and automation calls' SSRF guard switch. Declared on
 * the webhooks Domain; Config gains `webhooksAllowPrivate` from here.
 */
import type { DomainSettings } from "../../config";

declare module "../../config" {
  interface Config {
    /** Let outgoing webhooks and automation calls reach loopback and private addresses (off: SSRF guard). */
    webhooksAllowPrivate: boolean;
  }
}

export const webhookSettings: DomainSettings = {
  key: "webhooksAllowPrivate",
  settings: [
    {
      flag: "webhooks-allow-private",
      env: "PLINTH_WEBHOOKS_ALLOW_PRIVATE",
      value: "1|0",
      group: "server",
      help: "let outgoing webhooks reach loopback and private addresses (default 0)",
    },
  ],
  read: (raw) => raw("PLINTH_WEBHOOKS_ALLOW_PRIVATE") === "1",
};
