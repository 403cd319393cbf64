/**
 * A real server for the projects pages: Acme (owner Olga, viewer Vic) with
 * project WEB — a board with a WIP limit, cards with labels, assignees and
 * estimates, two closed sprints and a running one whose history was made
 * day by day on the server's clock, time logs, a checklist, comments and a
 * relation — and Rival (owner Rita) with project RIV. Everything is made
 * over MCP with a real SDK client, as an agent would; people sign in to
 * the portal with passwords.
 */
import type { Client } from "@modelcontextprotocol/client";
import { ManualClock } from "../../src/core/clock";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

export const PASSWORD = "a long passphrase for tests";
export const XSS_TITLE = `<script>alert(1)</script> "><img src=x onerror=alert(2)>`;
const DAY = 86_400_000;

export interface ProjectsWorld {
  s: TestServer;
  olga: Client;
  rita: Client;
  sprints: { first: number; second: number; running: number; rival: number };
  hostileKey: string;
}

export async function projectsWorld(): Promise<ProjectsWorld> {
  const now = Date.now();
  const clock = new ManualClock(now - 21 * DAY);
  const s = await startTestServer({ seed: false, clock, config: { rateLimit: 100_000 } });
  const mk = (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const olga = await mk("olga@acme.test", "Olga Owner");
  const vic = await mk("vic@acme.test", "Vic Viewer");
  const sam = await mk("sam@acme.test", "Sam Designer");
  const rita = await mk("rita@rival.test", "Rita Rival");
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: olga.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: rita.id });
  await addMember(s.deps, acme.id, vic.id, "viewer");
  await addMember(s.deps, acme.id, sam.id, "admin");
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [companyId] })).key;
  const o = await mcpClient(s.url, await key(olga.id, acme.id));
  const r = await mcpClient(s.url, await key(rita.id, rival.id));
  const call = (name: string, args: Record<string, unknown>, c = o) => toolOk(c, name, args);
  const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const at = (daysAgo: number, hour = 10) => {
    const d = new Date(now - daysAgo * DAY);
    d.setUTCHours(hour, 0, 0, 0);
    clock.set(new Date(Math.min(d.getTime(), now - 60_000)));
  };

  at(21, 8);
  const web = await call("projects_create", {
    name: "Website relaunch",
    key: "WEB",
    lead: olga.id,
    members: [olga.id, sam.id],
    description: "The new marketing site.",
  });
  const doing = web.board.columns.find((c: { name: string }) => c.name === "In progress").id;
  await call("board_columns_update", { id: doing, wipLimit: 2 });
  for (const [name, color] of [
    ["design", "#a34fc4"],
    ["frontend", "#3b6fe0"],
    ["content", "#2e9e6b"],
  ])
    await call("project_labels_create", { projectId: "WEB", name, color });
  const cards: [string, number, string[], number][] = [
    ["Audit the current site", 3, ["content"], olga.id],
    ["Wireframes for home and services", 5, ["design"], sam.id],
    ["Pick the type pairing", 2, ["design"], sam.id],
    ["Set up the repository and previews", 3, ["frontend"], olga.id],
    ["Build the header and navigation", 5, ["frontend"], olga.id],
    ["Write the services copy", 3, ["content"], sam.id],
    ["Home page hero", 8, ["frontend", "design"], sam.id],
    ["Case study template", 5, ["design"], sam.id],
    ["Contact form with spam protection", 3, ["frontend"], olga.id],
    ["Redirect map from the old URLs", 2, ["content"], olga.id],
    ["Accessibility pass", 5, ["frontend"], sam.id],
  ];
  for (const [title, estimate, labels, who] of cards)
    await call("cards_create", { projectId: "WEB", title, estimate, labels, assignees: [who] });
  const hostile = await call("cards_create", {
    projectId: "WEB",
    title: XSS_TITLE,
    description: `Planted: <img src=x onerror=alert(3)> and <script>alert(4)</script>`,
    labels: ["content"],
  });
  await call("card_checklist_items_add", {
    cardId: "WEB-2",
    items: ["Home", "Services", `Case study <b>bold</b>`],
  });
  await call("card_relations_add", { cardId: "WEB-7", kind: "blocked_by", otherCardId: "WEB-2" });

  const sprint = async (name: string, from: number, to: number) =>
    (
      await call("sprints_create", {
        projectId: "WEB",
        name,
        startDate: date(now - from * DAY),
        endDate: date(now - to * DAY),
      })
    ).id as number;
  const move = async (daysAgo: number, id: string, column: string) => {
    at(daysAgo, 14);
    await call("cards_move", { id, columnId: column });
  };
  const log = async (id: string, minutes: number, note: string) =>
    call("time_logs_create", { cardId: id, minutes, note, workedOn: date(clock.now().getTime()) });

  // Sprint 1: five days ago two weeks back, most of it done.
  at(21, 9);
  const first = await sprint("Sprint 1: groundwork", 21, 15);
  await call("sprint_cards_add", { sprintId: first, cardIds: ["WEB-1", "WEB-2", "WEB-3", "WEB-4"] });
  await call("sprints_start", { id: first });
  await move(20, "WEB-1", "In progress");
  await log("WEB-1", 180, "Crawl and analytics export");
  await move(19, "WEB-1", "Done");
  await move(19, "WEB-4", "In progress");
  await log("WEB-4", 120, "Repo and preview deploys");
  await move(18, "WEB-4", "Done");
  await move(17, "WEB-2", "In progress");
  await log("WEB-2", 300, "Desktop wireframes");
  await move(16, "WEB-3", "Done");
  at(15, 17);
  await call("sprints_close", { id: first, carryOverTo: "backlog" });

  // Sprint 2.
  at(14, 9);
  const second = await sprint("Sprint 2: pages", 14, 8);
  await call("sprint_cards_add", { sprintId: second, cardIds: ["WEB-2", "WEB-5", "WEB-6", "WEB-10"] });
  await call("sprints_start", { id: second });
  await move(13, "WEB-2", "Done");
  await move(12, "WEB-5", "In progress");
  await log("WEB-5", 240, "Header, mobile menu");
  await move(11, "WEB-6", "In progress");
  await log("WEB-6", 150, "Services copy, first draft");
  await move(10, "WEB-5", "Done");
  await move(9, "WEB-6", "Done");
  at(8, 17);
  await call("sprints_close", { id: second, carryOverTo: "backlog" });

  // Sprint 3, running: three days in.
  at(4, 9);
  const running = await sprint("Sprint 3: launch prep", 4, -3);
  await call("sprint_cards_add", { sprintId: running, cardIds: ["WEB-7", "WEB-8", "WEB-9", "WEB-10", "WEB-11"] });
  await call("sprints_start", { id: running });
  await move(3, "WEB-10", "In progress");
  await log("WEB-10", 90, "Old URL export");
  await move(2, "WEB-10", "Done");
  await move(2, "WEB-7", "In progress");
  await log("WEB-7", 210, "Hero layout and art direction");
  await move(1, "WEB-9", "In progress");
  await log("WEB-9", 120, "Form and honeypot");
  await move(0, "WEB-8", "In review");
  at(0, 9);
  await call("card_comments_create", { cardId: "WEB-7", body: "Blocked until the wireframes are signed off." });
  await call("card_comments_create", { cardId: hostile.key, body: `<script>alert(5)</script> **not markup**` });
  clock.set(new Date(now));

  // A second Acme project: a sprint of WEB under its path is not a page.
  await call("projects_create", { name: "Internal", key: "INT" });
  await call("projects_create", { name: "Rival secret", key: "RIV" }, r);
  await call("cards_create", { projectId: "RIV", title: "Rival card" }, r);
  const rivalSprint = (
    await call(
      "sprints_create",
      { projectId: "RIV", name: "Rival sprint", startDate: date(now), endDate: date(now + 7 * DAY) },
      r,
    )
  ).id as number;
  return { s, olga: o, rita: r, sprints: { first, second, running, rival: rivalSprint }, hostileKey: hostile.key };
}
