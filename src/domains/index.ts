/**
 * Every domain of the MCP registry. Adding a domain means adding its folder
 * and one line here; nothing in src/mcp changes.
 */
import type { Domain } from "../mcp/define";
import { accountsDomain } from "./accounts/tools";
import { approvalsDomain } from "./approvals/tools";
import { brandingDomain } from "./branding/tools";
import { cmsDomain } from "./cms/tools";
import { workDomains } from "./projects/tools";
import { servicesDomain } from "./services/tools";
import { storeDomain } from "./store/tools";

export const domains: Domain[] = [
  accountsDomain,
  cmsDomain,
  approvalsDomain,
  storeDomain,
  brandingDomain,
  servicesDomain,
  ...workDomains,
];
