/** The demo user's inbox: read and unread notifications from both companies, and one preference. */
import type { DemoPart } from "../../mcp/define";
import { notificationPreferences, notifications } from "./tables";

export const demoNotifications: DemoPart = async ({ tx, users, companies, at, clock }) => {
  const now = clock.now();
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
