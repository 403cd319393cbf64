/**
 * The demo's people: profiles for the Northwind team (titles, time zones
 * across three countries, working hours), one invitation still waiting for
 * an answer, and an inbox for the demo user with read and unread
 * notifications from both companies.
 */
import { notificationPreferences, notifications } from "../../src/domains/notifications/tables";
import { userProfiles } from "../../src/domains/profile/tables";
import { invitations } from "../../src/domains/team/tables";
import { DAY_MS } from "../../src/core/clock";
import { randomHex, sha256Hex } from "../../src/core/secrets";
import type { DemoPart } from "./parts";

const weekdays = (ranges: { start: string; end: string }[]) =>
  Object.fromEntries(["mon", "tue", "wed", "thu", "fri"].map((d) => [d, ranges]));

export const demoPeople: DemoPart = async ({ tx, users, companies, at, clock }) => {
  const now = clock.now();
  await tx.insert(userProfiles).values([
    {
      userId: users.demo,
      title: "Founder & creative director",
      timeZone: "Europe/London",
      workingHours: weekdays([{ start: "09:00", end: "17:30" }]),
      updatedAt: at(300),
    },
    {
      userId: users.priya,
      title: "Design lead",
      timeZone: "Europe/Berlin",
      workingHours: {
        ...weekdays([
          { start: "09:00", end: "12:30" },
          { start: "13:30", end: "18:00" },
        ]),
        fri: [{ start: "09:00", end: "14:00" }],
      },
      updatedAt: at(200),
    },
    {
      userId: users.leo,
      title: "Front-end developer",
      timeZone: "America/New_York",
      workingHours: weekdays([{ start: "10:00", end: "18:00" }]),
      updatedAt: at(120),
    },
    {
      userId: users.viewer,
      title: "Client reviewer",
      timeZone: "Europe/Lisbon",
      workingHours: null,
      updatedAt: at(90),
    },
    {
      userId: users.maya,
      title: "Owner, Harbor Coffee Roasters",
      timeZone: "America/Los_Angeles",
      workingHours: null,
      updatedAt: at(400),
    },
  ]);

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

  type Row = typeof notifications.$inferInsert;
  const n = (
    o: Omit<Row, "userId" | "sortAt" | "readAt" | "snoozedUntil" | "archivedAt" | "emailState"> & {
      read?: boolean;
      emailed?: boolean;
    },
  ): Row => {
    const { read, emailed, ...rest } = o;
    return {
      ...rest,
      userId: users.demo,
      readAt: read ? new Date(o.createdAt!.getTime() + 3600_000) : null,
      snoozedUntil: null,
      archivedAt: null,
      sortAt: o.createdAt!,
      emailState: emailed ? "sent" : null,
    };
  };
  await tx.insert(notifications).values([
    n({
      companyId: companies.northwind,
      type: "message",
      title: "Harbor's spring menu page is ready for your review",
      body: "The draft is waiting in Approvals; Maya wants it live before Friday.",
      link: "/approvals",
      actorUserId: users.leo,
      createdAt: at(0, 2),
    }),
    n({
      companyId: companies.northwind,
      type: "invitation.accepted",
      title: "Priya Shah joined Northwind Studio as admin",
      body: "priya@northwind.example accepted your invitation.",
      link: "/team",
      entityType: "invitation",
      actorUserId: users.priya,
      createdAt: at(0, 5),
    }),
    n({
      companyId: companies.harbor,
      type: "approval.decided",
      title: "Approved: Single-origin espresso guide",
      body: "Maya Ortiz approved it; the change is live.\n“Lovely photos. Ship it.”",
      link: "/approvals",
      entityType: "approval",
      actorUserId: users.maya,
      createdAt: at(1, 3),
      read: true,
      emailed: true,
    }),
    n({
      companyId: companies.harbor,
      type: "approval.decided",
      title: "Rejected: Holiday gift guide (draft)",
      body: "Maya Ortiz rejected it; nothing was changed.\n“Too early for holiday content. Let's wait until November.”",
      link: "/approvals",
      entityType: "approval",
      actorUserId: users.maya,
      createdAt: at(3, 1),
      read: true,
      emailed: true,
    }),
    n({
      companyId: companies.northwind,
      type: "message",
      title: "Weekly report: 12 posts published, 3 awaiting approval",
      body: null,
      link: "/approvals",
      actorUserId: null,
      createdAt: at(6),
      read: true,
    }),
  ]);

  // The demo user keeps invitation notices out of their email; everything else follows the defaults.
  await tx
    .insert(notificationPreferences)
    .values({ userId: users.demo, type: "invitation.accepted", inApp: true, email: false, updatedAt: now });
};
