/**
 * Northwind Studio's work, seeded through the projects verbs themselves on a
 * clock that walks through the last five weeks, so every figure the tools
 * show is computed from real history: the Harbor Coffee website relaunch
 * (two closed sprints with carry-over, a running sprint half-way through,
 * a planned one, time logged day by day, comments, a checklist, relations, an
 * attachment) and an internal brand refresh run as a plain kanban with a WIP
 * limit and a weekly recurring status card.
 */
import { ManualClock } from "../../core/clock";
import { eq } from "drizzle-orm";
import { media } from "../cms/tables";
import { dateIn, dayStart } from "./access";
import type { DemoPart } from "../../mcp/define";

const TZ = "Europe/London";

export const seedProjects: DemoPart = async (world) => {
  const sim = new ManualClock(world.at(40));
  const company = { id: world.companies.northwind, name: "Northwind Studio" };
  const { demo, priya, leo } = world.users;
  const call = (name: string, args: Record<string, unknown>, userId = demo) =>
    world.runTool(name, args, { userId, company, role: userId === demo ? "owner" : "admin", clock: sim });
  const day = (daysAgo: number) => dateIn(TZ, world.at(daysAgo));
  /**
   * Moves the simulated clock to `hour` hours into the working day (from
   * 08:00 in the project's zone) of the date `daysAgo` days before today,
   * never past now. Anchored to the local date, not to now minus days: a
   * seed run late in the evening would otherwise put "the first hours" of a
   * sprint on the next local day, after the sprint's start date.
   */
  const now = world.at(0).getTime();
  const on = (daysAgo: number, hour = 0) =>
    sim.set(new Date(Math.min(dayStart(TZ, day(daysAgo)).getTime() + (8 + hour) * 3_600_000, now - 60_000)));

  // --- Internal: Northwind brand refresh --------------------------------------
  on(40);
  const nwb = await call("projects_create", {
    name: "Northwind brand refresh",
    key: "NWB",
    lead: demo,
    members: [demo, priya, leo],
    timeZone: TZ,
    description: "Our own site and pitch materials, refreshed.",
  });
  const doing = nwb.board.columns.find((c: { name: string }) => c.name === "In progress").id;
  await call("board_columns_update", { id: doing, wipLimit: 2 });
  await call("milestones_create", { projectId: "NWB", name: "Brand guidelines v2", targetDate: day(-14) });
  for (const [title, who, columnId] of [
    ["New case study: Harbor Coffee", priya, "In progress"],
    ["Refresh the pitch deck template", demo, "In progress"],
    ["Photograph the studio", leo, "To do"],
    ["Update the services page", demo, "Backlog"],
    ["Logo usage rules", priya, "Done"],
    ["Colour palette with contrast pairs", priya, "Done"],
    ["Podcast sponsorship idea", demo, "Cancelled"],
  ] as const) {
    on(39, 1);
    await call("cards_create", { projectId: "NWB", title, assignees: [who], columnId }, demo);
  }
  // --- Harbor Coffee website relaunch ----------------------------------------
  on(39, 2);
  await call("projects_create", {
    name: "Harbor Coffee website relaunch",
    key: "HCW",
    description:
      "Rebuild of harborcoffee.example on the headless stack: new design system, menu and shop pages fed by the store, locations map and blog migration. Weekly review with Maya every Thursday.",
    lead: priya,
    members: [demo, priya, leo],
    startDate: day(38),
    targetDate: day(-30),
    timeZone: TZ,
    health: "on_track",
  });
  for (const [name, color] of [
    ["Design", "#9333ea"],
    ["Frontend", "#2563eb"],
    ["Content", "#16a34a"],
    ["SEO", "#ca8a04"],
    ["Bug", "#dc2626"],
  ])
    await call("project_labels_create", { projectId: "HCW", name, color });
  await call("milestones_create", { projectId: "HCW", name: "Beta review with Maya", targetDate: day(-9) });
  await call("milestones_create", {
    projectId: "HCW",
    name: "Public launch",
    targetDate: day(-30),
    description: "DNS switch, redirects live, analytics verified.",
  });

  const cards: [title: string, estimate: number, label: string, who: number][] = [
    ["Audit the current site and analytics", 3, "SEO", priya], // 1
    ["Sitemap and content model", 5, "Content", leo], // 2
    ["Moodboard and type scale", 3, "Design", priya], // 3
    ["Homepage wireframes", 5, "Design", priya], // 4
    ["Set up the project and CI previews", 3, "Frontend", leo], // 5
    ["Migrate 34 blog posts", 8, "Content", leo], // 6
    ["Design system: buttons, forms, cards", 5, "Design", priya], // 7
    ["Build the homepage", 8, "Frontend", leo], // 8
    ["Menu page with prices from the store", 5, "Frontend", demo], // 9
    ["Locations map with opening hours", 3, "Frontend", leo], // 10
    ["Contact form spam protection", 2, "Bug", leo], // 11
    ["Checkout handoff to the shop", 8, "Frontend", leo], // 12
    ["Accessibility pass", 5, "Bug", priya], // 13
    ["Retouch product photography", 3, "Design", priya], // 14
    ["SEO metadata and redirects", 3, "SEO", demo], // 15
    ["Newsletter signup block", 2, "Frontend", leo], // 16
    ["Loyalty programme page", 5, "Content", priya], // 17
    ["Dark mode for the blog", 3, "Design", leo], // 18
    ["Wholesale enquiry form", 2, "Frontend", demo], // 19
  ];
  for (const [title, estimate, label, who] of cards)
    await call("cards_create", {
      projectId: "HCW",
      title,
      estimate,
      labels: [label],
      assignees: [who],
      priority: label === "Bug" ? 2 : 3,
    });
  await call("cards_update", {
    id: "HCW-13",
    description:
      "WCAG 2.2 AA across the templates. Start with the menu page (contrast) and the checkout handoff (focus order).",
  });
  await call("card_checklist_items_add", {
    cardId: "HCW-13",
    items: ["Keyboard navigation", "Colour contrast AA", "Alt text on every picture", "Screen reader pass"],
  });
  await call("cards_update", { id: "HCW-12", dueDate: day(-4), priority: 1 });

  const s1 = (
    await call("sprints_create", {
      projectId: "HCW",
      name: "Sprint 1: foundations",
      startDate: day(35),
      endDate: day(22),
      goal: "Agree the look and the content model",
    })
  ).id;
  const s2 = (
    await call("sprints_create", {
      projectId: "HCW",
      name: "Sprint 2: homepage",
      startDate: day(21),
      endDate: day(8),
      goal: "A homepage Maya can click through",
    })
  ).id;
  const s3 = (
    await call("sprints_create", {
      projectId: "HCW",
      name: "Sprint 3: shop and polish",
      startDate: day(7),
      endDate: day(-6),
      goal: "Checkout handoff and an accessible beta",
    })
  ).id;
  await call("sprints_create", { projectId: "HCW", name: "Sprint 4: launch", startDate: day(-7), endDate: day(-20) });

  const move = async (d: number, h: number, id: string, columnId: string, who = demo) => {
    on(d, h);
    await call("cards_move", { id, columnId }, who);
  };
  /** Time logged now (the simulated clock only moves forward, so the history stays in order). */
  const log = async (id: string, minutes: number, who: number, note: string, billable = true) =>
    call("time_logs_create", { cardId: id, minutes, note, billable, workedOn: dateIn(TZ, sim.now()) }, who);

  // Sprint 1
  on(36);
  await call("sprint_cards_add", { sprintId: s1, cardIds: ["HCW-1", "HCW-2", "HCW-3", "HCW-4", "HCW-5", "HCW-6"] });
  on(35, 1);
  await call("sprints_start", { id: s1 });
  await move(35, 2, "HCW-1", "In progress", priya);
  await log("HCW-1", 240, priya, "Analytics export and crawl");
  await move(34, 3, "HCW-5", "In progress", leo);
  await move(33, 5, "HCW-1", "Done", priya);
  await log("HCW-5", 180, leo, "Repo, preview deploys");
  await move(32, 6, "HCW-5", "Done", leo);
  await move(32, 7, "HCW-3", "In progress", priya);
  await log("HCW-3", 300, priya, "Moodboard, two type pairings");
  await move(31, 6, "HCW-3", "Done", priya);
  on(31, 7);
  await call("card_attachments_add", {
    cardId: "HCW-3",
    mediaId: (
      await world.tx.select({ id: media.id }).from(media).where(eq(media.siteId, world.sites.northwind)).limit(1)
    )[0]!.id,
  });
  await move(30, 2, "HCW-2", "In review", leo);
  await log("HCW-2", 360, leo, "Content types and fields");
  await move(30, 6, "HCW-2", "Done", leo);
  await move(29, 2, "HCW-4", "In progress", priya);
  await log("HCW-4", 420, priya, "Desktop and mobile wireframes");
  await move(27, 3, "HCW-6", "In progress", leo);
  await log("HCW-6", 240, leo, "Export and mapping script");
  await move(24, 5, "HCW-4", "Done", priya);
  await log("HCW-6", 180, leo, "First 12 posts");
  on(22, 7);
  await call("sprints_close", { id: s1 });

  // Sprint 2
  on(21, 1);
  await call("sprint_cards_add", { sprintId: s2, cardIds: ["HCW-7", "HCW-8", "HCW-9", "HCW-10", "HCW-11"] });
  await call("sprints_start", { id: s2 });
  await move(21, 2, "HCW-11", "In progress", leo);
  await log("HCW-11", 90, leo, "Honeypot and rate limit");
  await move(19, 4, "HCW-11", "Done", leo);
  await move(19, 5, "HCW-7", "In progress", priya);
  await log("HCW-6", 300, leo, "Remaining posts and images");
  await move(17, 3, "HCW-6", "Done", leo);
  await log("HCW-7", 360, priya, "Components in code and Figma");
  await move(15, 6, "HCW-7", "Done", priya);
  await move(15, 7, "HCW-8", "In progress", leo);
  await move(14, 1, "HCW-9", "In progress");
  await log("HCW-9", 240, demo, "Menu data from products_list");
  on(13, 3);
  await call(
    "card_comments_create",
    {
      cardId: "HCW-9",
      body: "@maya asked for the seasonal drinks to show first. @priya can you add a badge style to the design system?",
    },
    demo,
  );
  await move(12, 4, "HCW-9", "Done");
  await log("HCW-8", 420, leo, "Hero, sections, responsive");
  await move(10, 6, "HCW-8", "Done", leo);
  await move(10, 7, "HCW-10", "In progress", leo);
  await log("HCW-10", 150, leo, "Map embed and hours");
  await move(9, 6, "HCW-10", "In review", leo);
  on(8, 7);
  await call("sprints_close", { id: s2 });

  // Sprint 3, under way
  on(7, 1);
  await call("sprint_cards_add", { sprintId: s3, cardIds: ["HCW-12", "HCW-13", "HCW-14", "HCW-15", "HCW-16"] });
  await call("sprints_start", { id: s3 });
  await call("card_relations_add", { cardId: "HCW-12", kind: "blocked_by", otherCardId: "HCW-7" });
  await call("card_relations_add", { cardId: "HCW-17", kind: "relates", otherCardId: "HCW-9" });
  await move(6, 3, "HCW-10", "Done", leo);
  await move(6, 4, "HCW-15", "In progress");
  await log("HCW-15", 180, demo, "Redirect map from the old URLs");
  await move(5, 5, "HCW-15", "Done");
  await move(4, 2, "HCW-12", "In progress", leo);
  await log("HCW-12", 300, leo, "Cart link and return URL");
  await move(3, 2, "HCW-16", "In progress", leo);
  await log("HCW-16", 120, leo, "Block and double opt-in");
  await move(3, 6, "HCW-16", "Done", leo);
  on(3, 7);
  await call(
    "card_comments_create",
    {
      cardId: "HCW-12",
      body: "@leo the shop's checkout URL differs per site; read it from site config rather than hard-coding it.",
    },
    priya,
  );
  on(2, 1);
  const blurry = await call(
    "cards_create",
    {
      projectId: "HCW",
      title: "Header logo blurry on retina screens",
      estimate: 1,
      labels: ["Bug"],
      assignees: [priya],
      priority: 1,
      sprintId: "active",
    },
    priya,
  );
  await move(2, 2, "HCW-13", "In progress", priya);
  await log("HCW-13", 240, priya, "Keyboard and contrast fixes");
  const items = (await call("cards_get", { id: "HCW-13" })).checklist.items;
  for (const it of items.slice(0, 2)) await call("card_checklist_items_update", { id: it.id, done: true }, priya);
  await move(1, 3, "HCW-13", "In review", priya);
  await move(1, 4, blurry.key, "Done", priya);
  await log(blurry.key, 45, priya, "SVG logo instead of PNG");
  await move(1, 5, "HCW-14", "In progress", priya);
  await log("HCW-12", 210, leo, "Error states");
  await log("HCW-9", 60, demo, "Call with Maya about the menu", false);

  // --- A weekly status card for the client, from next Monday on ------------------
  on(0, -0.01);
  await call("card_recurrences_create", {
    projectId: "NWB",
    title: "Weekly client status to Harbor — {date}",
    description: "Summarise the sprint board for Maya: done, next, risks.",
    rule: "FREQ=WEEKLY;BYDAY=MO",
    time: "09:00",
    timeZone: TZ,
    assignees: [priya],
    dueInDays: 1,
    checklist: ["Burndown screenshot", "Risks", "Decisions needed"],
  });
};
