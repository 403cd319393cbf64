/**
 * The demo's CRMs, seeded through the crm verbs on a clock that walks
 * through the last seven weeks, so stage histories, activities, scores
 * and forecasts are real history:
 *
 * - Northwind Studio (the agency): its clients and prospects, a "New
 *   business" pipeline and a "Retainer renewals" pipeline with deals in
 *   every stage, custom fields, a saved view, scoring rules, a merged
 *   duplicate (undoable), tasks due, and Anna of Lumen Bakery, whose
 *   support tickets show on her timeline.
 * - Harbor Coffee: wholesale accounts (cafés, offices, a hotel) in a
 *   "Wholesale" pipeline with deals in every stage.
 */
import { ManualClock } from "../../core/clock";
import type { DemoPart, DemoWorld } from "../../mcp/define";

export const demoCrm: DemoPart = async (world) => {
  await northwind(world);
  await harbor(world);
};

async function northwind(world: DemoWorld) {
  const sim = new ManualClock(world.at(49));
  const company = { id: world.companies.northwind, name: "Northwind Studio" };
  const { demo, priya, leo } = world.users;
  const call = (name: string, args: Record<string, unknown>, userId = demo) =>
    world.runTool(name, args, { userId, company, clock: sim });
  const on = (daysAgo: number, hour = 0) => sim.set(new Date(world.at(daysAgo).getTime() + hour * 3_600_000));

  on(49);
  await call("crm_fields_create", {
    object: "company",
    key: "services",
    label: "Services",
    type: "multi_select",
    options: ["web", "brand", "seo", "content", "hosting"],
  });
  await call("crm_fields_create", {
    object: "contact",
    key: "source",
    label: "Lead source",
    type: "select",
    options: ["referral", "website", "event", "outbound"],
  });
  await call("crm_fields_create", { object: "deal", key: "proposalUrl", label: "Proposal", type: "url" });
  await call("crm_fields_create", {
    object: "contact",
    key: "newsletter",
    label: "Newsletter opt-in",
    type: "boolean",
  });
  const nb = await call("pipelines_create", { name: "New business" });
  const rr = await call("pipelines_create", {
    name: "Retainer renewals",
    stages: [
      { name: "Up for renewal", probability: 60 },
      { name: "Proposal sent", probability: 80 },
      { name: "Renewed", kind: "won" },
      { name: "Churned", kind: "lost" },
    ],
  });
  await call("scoring_rules_create", {
    name: "Decision maker",
    field: "jobTitle",
    op: "contains",
    value: "founder",
    points: 15,
  });
  await call("scoring_rules_create", {
    name: "Head of",
    field: "jobTitle",
    op: "contains",
    value: "head of",
    points: 10,
  });
  await call("scoring_rules_create", { name: "Referral", field: "custom.source", value: "referral", points: 20 });
  await call("scoring_rules_create", { name: "Recent meeting", activityKind: "meeting", points: 15, decayDays: 30 });
  await call("scoring_rules_create", { name: "Recent call", activityKind: "call", points: 5, decayDays: 14 });

  const companies: [string, string, string, string, string[]][] = [
    ["Lumen Bakery", "lumenbakery.example", "11-50", "Food & drink", ["web", "hosting"]],
    ["Fjord Outdoor", "fjordoutdoor.example", "201-1000", "Retail", ["web", "seo", "content"]],
    ["Kestrel Bikes", "kestrelbikes.example", "51-200", "Manufacturing", ["brand"]],
    ["Harrow & Co Law", "harrowlaw.example", "11-50", "Legal", ["web"]],
    ["Greenleaf Yoga", "greenleafyoga.example", "1-10", "Health & fitness", ["content", "seo"]],
    ["Moss & Stone", "mossandstone.example", "1-10", "Interiors", ["brand", "web"]],
    ["Tidewater Museum", "tidewater.example", "51-200", "Culture", []],
    ["Quill Analytics", "quill.example", "11-50", "Software", []],
  ];
  const co: Record<string, number> = {};
  for (const [name, domain, size, industry, services] of companies) {
    on(48, 1);
    co[domain] = (
      await call("crm_companies_create", {
        name,
        domain,
        size,
        industry,
        ownerId: name < "M" ? demo : priya,
        custom: services.length ? { services } : {},
      })
    ).id;
  }
  const people: [string, string, string, string, string, number][] = [
    ["Anna", "Lindqvist", "anna@lumenbakery.example", "Founder", "referral", demo],
    ["Marcus", "Lindqvist", "accounts@lumenbakery.example", "Finance", "referral", demo],
    ["Henrik", "Dahl", "it@fjordoutdoor.example", "Head of IT", "event", priya],
    ["Sofie", "Berg", "sofie.berg@fjordoutdoor.example", "Head of Marketing", "event", priya],
    ["Tomás", "Reyes", "dev@kestrelbikes.example", "Product Lead", "website", leo],
    ["Eleanor", "Harrow", "office@harrowlaw.example", "Managing Partner", "referral", demo],
    ["Priyanka", "Shah", "marketing@greenleafyoga.example", "Founder", "website", priya],
    ["Isla", "Moss", "hello@mossandstone.example", "Co-founder", "outbound", leo],
    ["Dr. Ruth", "Okonkwo", "ruth.okonkwo@tidewater.example", "Head of Digital", "event", priya],
    ["Jonas", "Weber", "jonas@quill.example", "CEO", "outbound", demo],
    ["Chloé", "Dubois", "chloe.dubois@quill.example", "Head of Growth", "outbound", demo],
  ];
  const ct: Record<string, number> = {};
  for (const [firstName, lastName, email, jobTitle, source, owner] of people) {
    on(47, 2);
    ct[email] = (
      await call("contacts_create", {
        firstName,
        lastName,
        emails: [email],
        jobTitle,
        ownerId: owner,
        lifecycleStage: "lead",
        custom: { source, newsletter: source !== "outbound" },
      })
    ).id;
  }
  await call("contacts_update", {
    id: ct["anna@lumenbakery.example"],
    phones: ["mobile: +44 7700 900123"],
    lifecycleStage: "customer",
    addTags: ["vip"],
  });
  await call("contacts_update", { id: ct["it@fjordoutdoor.example"], lifecycleStage: "customer" });
  await call("contacts_update", { id: ct["office@harrowlaw.example"], lifecycleStage: "customer" });
  // A duplicate that came in through the website form, merged into Jonas (undoable for 30 days).
  on(10, 3);
  const dupe = await call("contacts_create", {
    firstName: "J.",
    lastName: "Weber",
    emails: ["j.weber@gmail.com"],
    phones: ["+49 30 901820"],
    custom: { source: "website" },
  });
  await call("contacts_merge", { id: ct["jonas@quill.example"], mergeId: dupe.id });

  // New business: every stage, moved there over the weeks.
  const deal = async (d: {
    name: string;
    cents: number;
    contact: string;
    company: string;
    path: string[];
    close: number;
    owner?: number;
    lost?: string;
    pipelineId?: number;
    url?: string;
  }) => {
    on(45, 4);
    const r = await call(
      "deals_create",
      {
        name: d.name,
        amountCents: d.cents,
        currency: "GBP",
        pipelineId: d.pipelineId ?? nb.id,
        contactIds: [d.contact],
        companyId: d.company,
        expectedClose: new Date(world.at(-d.close).getTime()).toISOString().slice(0, 10),
        ownerId: d.owner ?? demo,
        ...(d.url && { custom: { proposalUrl: d.url } }),
      },
      d.owner ?? demo,
    );
    let day = 44;
    for (const stage of d.path) {
      day -= 5;
      on(Math.max(day, 1), 5);
      await call(
        "deals_move_stage",
        {
          id: r.id,
          stage,
          ...(stage === "Lost" || stage === "Churned" ? { lostReason: d.lost ?? "No budget this year" } : {}),
        },
        d.owner ?? demo,
      );
    }
    return r.id as number;
  };
  await deal({
    name: "Tidewater Museum – exhibition microsite",
    cents: 1_800_000,
    contact: "ruth.okonkwo@tidewater.example",
    company: "tidewater.example",
    path: [],
    close: 60,
    owner: priya,
  });
  await deal({
    name: "Quill Analytics – marketing site",
    cents: 2_400_000,
    contact: "jonas@quill.example",
    company: "quill.example",
    path: ["Qualified"],
    close: 45,
  });
  await deal({
    name: "Moss & Stone – brand identity",
    cents: 950_000,
    contact: "hello@mossandstone.example",
    company: "mossandstone.example",
    path: ["Qualified", "Proposal"],
    close: 20,
    owner: leo,
    url: "https://northwind.example/proposals/moss-stone",
  });
  await deal({
    name: "Kestrel Bikes – product configurator",
    cents: 3_600_000,
    contact: "dev@kestrelbikes.example",
    company: "kestrelbikes.example",
    path: ["Qualified", "Proposal", "Negotiation"],
    close: 10,
    owner: leo,
  });
  await deal({
    name: "Fjord Outdoor – SEO programme",
    cents: 1_200_000,
    contact: "sofie.berg@fjordoutdoor.example",
    company: "fjordoutdoor.example",
    path: ["Qualified", "Proposal", "Negotiation", "Won"],
    close: -5,
    owner: priya,
  });
  await deal({
    name: "Greenleaf Yoga – booking app",
    cents: 2_000_000,
    contact: "marketing@greenleafyoga.example",
    company: "greenleafyoga.example",
    path: ["Qualified", "Proposal", "Lost"],
    close: -10,
    owner: priya,
    lost: "Chose a template platform",
  });
  await deal({
    name: "Quill Analytics – content retainer",
    cents: 600_000,
    contact: "chloe.dubois@quill.example",
    company: "quill.example",
    path: [],
    close: 75,
  });
  // Retainer renewals.
  await deal({
    name: "Lumen Bakery – hosting & care 2026",
    cents: 480_000,
    contact: "anna@lumenbakery.example",
    company: "lumenbakery.example",
    path: [],
    close: 30,
    pipelineId: rr.id,
  });
  await deal({
    name: "Harrow & Co – website care",
    cents: 360_000,
    contact: "office@harrowlaw.example",
    company: "harrowlaw.example",
    path: ["Proposal sent"],
    close: 14,
    pipelineId: rr.id,
  });
  await deal({
    name: "Fjord Outdoor – content retainer",
    cents: 1_440_000,
    contact: "it@fjordoutdoor.example",
    company: "fjordoutdoor.example",
    path: ["Proposal sent", "Renewed"],
    close: -20,
    pipelineId: rr.id,
    owner: priya,
  });
  await deal({
    name: "Kestrel Bikes – brand support",
    cents: 240_000,
    contact: "dev@kestrelbikes.example",
    company: "kestrelbikes.example",
    path: ["Churned"],
    close: -15,
    pipelineId: rr.id,
    owner: leo,
    lost: "Brought brand work in-house",
  });

  // Activities over the last weeks; two open tasks, one overdue.
  const acts: [number, number, Record<string, unknown>][] = [
    [
      30,
      demo,
      {
        kind: "meeting",
        subject: "Discovery workshop",
        contactId: "jonas@quill.example",
        companyId: "quill.example",
        durationMinutes: 90,
        body: "Wants a site that explains the product in one screen.",
      },
    ],
    [
      21,
      leo,
      { kind: "call", subject: "Configurator scope", contactId: "dev@kestrelbikes.example", durationMinutes: 30 },
    ],
    [
      12,
      priya,
      { kind: "meeting", subject: "SEO kickoff", contactId: "sofie.berg@fjordoutdoor.example", durationMinutes: 60 },
    ],
    [
      6,
      demo,
      {
        kind: "note",
        contactId: "anna@lumenbakery.example",
        body: "Happy with the new site; asked about a loyalty app next spring.",
      },
    ],
    [
      4,
      leo,
      {
        kind: "call",
        subject: "Negotiation: payment terms",
        contactId: "dev@kestrelbikes.example",
        durationMinutes: 20,
      },
    ],
    [
      2,
      priya,
      {
        kind: "meeting",
        subject: "Exhibition site walkthrough",
        contactId: "ruth.okonkwo@tidewater.example",
        durationMinutes: 45,
      },
    ],
  ];
  for (const [daysAgo, who, a] of acts) {
    on(daysAgo, 3);
    await call("crm_activities_create", a, who);
  }
  on(3, 2);
  await call(
    "crm_activities_create",
    {
      kind: "task",
      subject: "Send Kestrel the revised SOW",
      contactId: "dev@kestrelbikes.example",
      dueAt: world.at(1).toISOString(),
      ownerId: leo,
    },
    leo,
  );
  await call("crm_activities_create", {
    kind: "task",
    subject: "Book Quill content planning call",
    contactId: "chloe.dubois@quill.example",
    dueAt: world.at(-3).toISOString(),
  });
  await call("crm_activities_create", {
    kind: "task",
    subject: "Renewal check-in with Anna",
    contactId: "anna@lumenbakery.example",
    dueAt: world.at(-10).toISOString(),
    completed: false,
  });
  await call("crm_views_create", {
    object: "deal",
    name: "Closing this month",
    filters: { status: "open", sort: "close", closeTo: new Date(world.at(-30).getTime()).toISOString().slice(0, 10) },
    columns: ["name", "stage", "amountCents", "expectedClose", "owner"],
  });
  await call("crm_views_create", {
    object: "contact",
    name: "Referral leads",
    filters: { custom: { source: "referral" }, sort: "score" },
    columns: ["name", "email", "company", "score"],
  });
  sim.set(world.at(0));
  await call("scoring_rules_recompute", {});
}

async function harbor(world: DemoWorld) {
  const sim = new ManualClock(world.at(35));
  const company = { id: world.companies.harbor, name: "Harbor Coffee" };
  const { maya, demo } = world.users;
  const call = (name: string, args: Record<string, unknown>, userId = maya) =>
    world.runTool(name, args, { userId, company, clock: sim });
  const on = (daysAgo: number) => sim.set(world.at(daysAgo));
  const p = await call("pipelines_create", {
    name: "Wholesale",
    stages: [
      { name: "Inquiry", probability: 10 },
      { name: "Tasting booked", probability: 30 },
      { name: "Samples sent", probability: 50 },
      { name: "Terms agreed", probability: 80 },
      { name: "Signed", kind: "won" },
      { name: "Passed", kind: "lost" },
    ],
  });
  const accounts: [string, string, string, string, string, string[], number][] = [
    [
      "Blue Door Café",
      "bluedoorcafe.example",
      "Rosa Delgado",
      "owner@bluedoorcafe.example",
      "Owner",
      ["Inquiry"],
      240_000,
    ],
    [
      "Pier 9 Hotel",
      "pier9hotel.example",
      "Daniel Kim",
      "fnb@pier9hotel.example",
      "F&B Manager",
      ["Inquiry", "Tasting booked"],
      1_150_000,
    ],
    [
      "Cowork Marina",
      "coworkmarina.example",
      "Lena Park",
      "lena@coworkmarina.example",
      "Office Manager",
      ["Inquiry", "Tasting booked", "Samples sent"],
      380_000,
    ],
    [
      "Saltwater Books",
      "saltwaterbooks.example",
      "Omar Haddad",
      "omar@saltwaterbooks.example",
      "Owner",
      ["Inquiry", "Tasting booked", "Samples sent", "Terms agreed"],
      150_000,
    ],
    [
      "Lighthouse Bakery",
      "lighthousebakery.example",
      "Grace Liu",
      "grace@lighthousebakery.example",
      "Head Baker",
      ["Inquiry", "Tasting booked", "Samples sent", "Terms agreed", "Signed"],
      520_000,
    ],
    [
      "Surfside Gym",
      "surfsidegym.example",
      "Ben Carter",
      "ben@surfsidegym.example",
      "Manager",
      ["Inquiry", "Tasting booked", "Passed"],
      90_000,
    ],
  ];
  for (const [name, domain, person, email, title, path, cents] of accounts) {
    on(34);
    await call("crm_companies_create", { name, domain, industry: "Hospitality", size: "1-10" });
    const [firstName, lastName] = person.split(" ");
    await call("contacts_create", {
      firstName,
      lastName,
      emails: [email],
      jobTitle: title,
      ownerId: maya,
      lifecycleStage: path.includes("Signed") ? "customer" : "opportunity",
    });
    const d = await call("deals_create", {
      name: `${name} – wholesale beans`,
      amountCents: cents,
      currency: "USD",
      pipelineId: p.id,
      stage: "Inquiry",
      contactIds: [email],
      companyId: domain,
      expectedClose: world.at(-21).toISOString().slice(0, 10),
    });
    let day = 33;
    for (const stage of path.slice(1)) {
      day -= 6;
      on(day);
      await call(
        "deals_move_stage",
        { id: d.id, stage, ...(stage === "Passed" && { lostReason: "Prefers a local roaster on price" }) },
        stage === "Signed" ? demo : maya,
      );
    }
    on(day - 1);
    await call("crm_activities_create", {
      kind: path.length > 2 ? "meeting" : "call",
      subject: `${path.at(-1)}: ${name}`,
      contactId: email,
      durationMinutes: 30,
    });
  }
  on(1);
  await call("crm_activities_create", {
    kind: "task",
    subject: "Ship second sample box to Cowork Marina",
    contactId: "lena@coworkmarina.example",
    dueAt: world.at(-2).toISOString(),
  });
}
