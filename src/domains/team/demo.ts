/** The demo's team: one invitation still waiting for an answer. */
import { DAY_MS } from "../../core/clock";
import { randomHex, sha256Hex } from "../../core/secrets";
import type { DemoPart } from "../../mcp/define";
import { invitations } from "./tables";

export const demoTeam: DemoPart = async ({ tx, users, companies, at }) => {
  // Nobody holds this link (only its hash is stored): it shows how a pending invitation looks on the team page and in team_invitations_list.
  await tx.insert(invitations).values({
    companyId: companies.northwind,
    email: "nadia@northwind.example",
    role: "admin",
    tokenHash: sha256Hex(randomHex(32)),
    status: "pending",
    openKey: "nadia@northwind.example",
    invitedByUserId: users.priya,
    message: "Welcome to the studio, Nadia! Your first project is the Harbor Coffee spring campaign.",
    expiresAt: new Date(at(2).getTime() + 7 * DAY_MS),
    ttlDays: 7,
    sendCount: 1,
    lastSentAt: at(2),
    createdAt: at(2),
  });
};
