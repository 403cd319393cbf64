/**
 * The demo's people, as the profile domain holds them: titles, time zones
 * across three countries and working hours for the Northwind team.
 */
import type { DemoPart } from "../../mcp/define";
import { userProfiles } from "./tables";

const weekdays = (ranges: { start: string; end: string }[]) =>
  Object.fromEntries(["mon", "tue", "wed", "thu", "fri"].map((d) => [d, ranges]));

export const demoProfiles: DemoPart = async ({ tx, users, at }) => {
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
};
