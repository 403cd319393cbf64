/**
 * Every domain of this build. Adding a domain means adding its folder and
 * one line here; nothing else changes (README "Adding a domain"). Only
 * src/catalog.ts imports this list: it collects what the domains declare
 * into the catalog every other part reads.
 */
import type { Domain } from "../mcp/define";
import { accountsDomain } from "./accounts/tools";
import { aiDomain } from "./ai/tools";
import { integrationsDomain } from "./integrations/tools";
import { approvalsDomain } from "./approvals/tools";
import { automationDomains } from "./automations/tools";
import { bookingsDomain } from "./bookings/tools";
import { chatDomain } from "./chat/tools";
import { brainDomain } from "./brain/tools";
import { brandingDomain } from "./branding/tools";
import { cmsDomain } from "./cms/tools";
import { crmDomain } from "./crm/tools";
import { notificationsDomain } from "./notifications/tools";
import { profileDomain } from "./profile/tools";
import { decksDomain } from "./decks/tools";
import { emailDomain } from "./email/tools";
import { workDomains } from "./projects/tools";
import { servicesDomain } from "./services/tools";
import { storeDomain } from "./store/tools";
import { ticketsDomain } from "./tickets/tools";
import { teamDomain } from "./team/tools";
import { surveysDomain } from "./surveys/tools";
import { hostingDomain } from "./hosting/tools";
import { billingDomain } from "./billing/tools";

export const domains: Domain[] = [
  accountsDomain,
  cmsDomain,
  approvalsDomain,
  storeDomain,
  brandingDomain,
  servicesDomain,
  ticketsDomain,
  teamDomain,
  profileDomain,
  notificationsDomain,
  bookingsDomain,
  decksDomain,
  surveysDomain,
  crmDomain,
  emailDomain,
  ...workDomains,
  hostingDomain,
  billingDomain,
  chatDomain,
  aiDomain,
  integrationsDomain,
  brainDomain,
  ...automationDomains,
];
