/**
 * The demo seed's parts beyond the core (people, sites, CMS, store,
 * branding): each domain adds its own file `db/seed/demo-<domain>.ts`
 * exporting one DemoPart, and one line here. Parts run in order, inside the
 * seed's one transaction, after the core's rows exist.
 */
import type { Clock } from "../../src/core/clock";
import type { Deps } from "../../src/core/context";
import { demoTickets } from "./demo-tickets";
import { demoPeople } from "./demo-people";
import { demoBookings } from "./demo-bookings";
import { demoDecks } from "./demo-decks";
import { demoSurveys } from "./demo-surveys";
import { seedProjects } from "./demo-projects";
import { demoCrm } from "./demo-crm";
import { demoHosting } from "./demo-hosting";
import { demoBilling } from "./demo-billing";
import { demoChat } from "./demo-chat";
import { demoAi } from "./demo-ai";
import { demoBrain } from "./demo-brain";
import { demoAutomations } from "./demo-automations";
import { demoEmail } from "./demo-email";

type Tx = Parameters<Parameters<Deps["db"]["transaction"]>[0]>[0];

/** What the core seed made, for parts to hang their rows from. */
export interface DemoWorld {
  deps: Deps;
  tx: Tx;
  clock: Clock;
  /** A date `daysAgo` days (and `hoursAgo` hours) before the clock's now: the demo always looks recent. */
  at(daysAgo: number, hoursAgo?: number): Date;
  companies: { harbor: number; northwind: number };
  /**
   * People: demo (owner of Northwind, admin of Harbor), viewer (Sam Rivera, viewer of both),
   * maya (owner of Harbor), priya and leo (admins of Northwind; no password).
   */
  users: { demo: number; viewer: number; maya: number; priya: number; leo: number };
  sites: { harbor: number; northwind: number; retired: number; events: number };
}

export type DemoPart = (world: DemoWorld) => Promise<void>;

export const DEMO_PARTS: DemoPart[] = [
  demoTickets,
  demoPeople,
  demoBookings,
  demoDecks,
  demoSurveys,
  seedProjects,
  demoCrm,
  demoHosting,
  demoBilling,
  demoChat,
  demoAi,
  demoBrain,
  demoAutomations,
  demoEmail,
];
