/** The demo's people part: profiles for the Northwind team, a pending invitation, and the demo user's inbox, as the tools and the portal show them. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { DEMO_EMAIL } from "../../db/seed/demo";
import { callTool, mcpClient } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { Browser, pageText } from "../oauth/helpers";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

test("the demo user's inbox, the Northwind team's profiles and a pending invitation", async () => {
  const c = await mcpClient(s.url, s.demo!.mcpKey);
  const northwind = s.demo!.companies.find((x) => x.name === "Northwind Studio")!.id;
  const harbor = s.demo!.companies.find((x) => x.name === "Harbor Coffee Roasters")!.id;
  const call = async (name: string, args: Record<string, unknown>) => JSON.parse((await callTool(c, name, args)).text);
  const nw = await call("notifications_list", { clientId: northwind, view: "all" });
  expect(nw.unreadCount).toBe(2);
  expect(nw.items.map((i: any) => i.read)).toEqual([false, false, true]);
  const hb = await call("notifications_list", { clientId: harbor, view: "all" });
  // Harbor's overdue invoice comes from the billing seed (db/seed/demo-billing.ts).
  expect(hb.items.map((i: any) => i.title)).toEqual([
    "Invoice INV-000003 is overdue",
    "Approved: Single-origin espresso guide",
    "Rejected: Holiday gift guide (draft)",
  ]);
  const team = await call("team_members_list", { clientId: northwind });
  const priya = team.items.find((m: any) => m.email === "priya@northwind.example");
  expect(priya).toMatchObject({ title: "Design lead", timeZone: "Europe/Berlin" });
  expect(priya.localTime).toMatch(/^\d\d:\d\d$/);
  const inv = await call("team_invitations_list", { clientId: northwind });
  expect(inv.items).toHaveLength(1);
  expect(inv.items[0]).toMatchObject({
    email: "nadia@northwind.example",
    role: "admin",
    status: "pending",
    invitedBy: "Priya Shah",
  });
  expect((await call("profile_get", {})).title).toBe("Founder & creative director");
  // The portal's header counts unread over both companies.
  const b = new Browser(s.url);
  expect((await b.signIn(DEMO_EMAIL, s.demo!.password)).status).toBe(303);
  const inbox = await pageText(await (await b.get("/inbox")).text());
  // Two from the people seed, and Harbor's overdue invoice (db/seed/demo-billing.ts).
  expect(inbox).toContain("3 unread.");
  expect(inbox).toMatch(/Invoice INV-\d{6} is overdue/);
  expect(inbox).toContain("Harbor's spring menu page is ready for your review");
});
