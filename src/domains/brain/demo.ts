/**
 * A knowledge base for each demo company, written through the brain tools
 * themselves on a clock that walks through the last weeks, so history,
 * backlinks, relations and the search index are what real use would leave:
 * Northwind Studio's agency handbook (team and org chart, pricing, playbooks,
 * weekly Harbor reviews whose action items became tasks, goals) and Harbor
 * Coffee's roastery knowledge (sourcing, wholesale, subscriptions).
 */
import { ManualClock } from "../../core/clock";
import type { DemoPart, DemoWorld } from "../../mcp/define";

function caller(world: DemoWorld, companyId: number, name: string) {
  const sim = new ManualClock(world.at(30));
  const company = { id: companyId, name };
  const call = (tool: string, args: Record<string, unknown>, userId = world.users.demo) =>
    world.runTool(tool, args, { userId, company, clock: sim });
  const on = (daysAgo: number, hour = 0) => sim.set(new Date(world.at(daysAgo).getTime() + hour * 3_600_000));
  return {
    call,
    on,
    iso: (daysAgo: number, hour: number) => new Date(world.at(daysAgo).getTime() + hour * 3_600_000).toISOString(),
  };
}

async function northwind(world: DemoWorld) {
  const { call, on, iso } = caller(world, world.companies.northwind, "Northwind Studio");
  const { priya, leo } = world.users;
  on(30);
  await call("brain_org_units_create", {
    title: "Northwind Studio",
    body: "The whole agency: four people, one studio in Bristol.",
  });
  await call("brain_org_units_create", { title: "Design", parent: "Northwind Studio" });
  await call("brain_org_units_create", { title: "Development", parent: "Northwind Studio" });
  await call("brain_people_create", {
    title: "Priya Shah",
    email: "priya@northwind.example",
    jobTitle: "Design lead",
    internal: true,
    orgUnits: ["Design"],
  });
  await call("brain_people_create", {
    title: "Leo Martin",
    email: "leo@northwind.example",
    jobTitle: "Developer",
    internal: true,
    orgUnits: ["Development"],
  });
  await call("brain_people_create", {
    title: "Demo User",
    email: "demo@plinth.dev",
    jobTitle: "Founder",
    internal: true,
    orgUnits: ["Northwind Studio"],
  });
  await call("brain_people_create", {
    title: "Maya Ortiz",
    email: "maya@harborcoffee.example",
    jobTitle: "Owner",
    organization: "Harbor Coffee Roasters",
    internal: false,
  });
  await call("brain_people_create", {
    title: "Jonas Weber",
    email: "jonas@harborcoffee.example",
    jobTitle: "Marketing",
    organization: "Harbor Coffee Roasters",
    internal: false,
  });
  // A prospect the CRM knows (demo-crm.ts seeds first): linked, not copied; brain_records_get shows her contact and deal live.
  await call("brain_people_create", {
    title: "Ruth Okonkwo",
    crmContact: "ruth.okonkwo@tidewater.example",
    jobTitle: "Head of Digital",
    organization: "Tidewater Museum",
    internal: false,
  });

  on(29, 1);
  for (const [title, body, synonyms] of [
    [
      "Retainer",
      "A monthly fee for a fixed bank of hours; unused hours roll over one month.",
      ["monthly retainer", "hours bank"],
    ],
    [
      "Discovery sprint",
      "A fixed-price two-week engagement before a build: interviews, audit, sitemap and estimate.",
      ["discovery phase"],
    ],
    [
      "Design system",
      "The shared tokens, components and rules a client's sites are built from.",
      ["component library"],
    ],
    ["Staging", "The password-protected copy of a site where clients review work before launch.", ["preview site"]],
  ] as const)
    await call("brain_glossary_create", { title, body, synonyms: [...synonyms], topics: ["Process"] });

  on(28, 2);
  await call("brain_documents_create", {
    title: "Pricing policy",
    topics: ["Pricing"],
    body:
      "# Pricing policy\n\nWe quote builds at a fixed price after a [[Discovery sprint]]. Ongoing work is sold as a [[Retainer]].\n\n" +
      "Discounts above 10% need the founder's approval. Non-profits get 15% off retainers.\n\n" +
      "Invoices are due in 14 days; enterprise clients may ask for net 30.",
  });
  await call("brain_documents_create", {
    title: "Brand voice guide",
    topics: ["Writing"],
    body: "We write plainly: short sentences, no jargon, British spelling. We say *we*, not *the agency*. Headlines promise one thing.\n\nCase studies lead with the client's result, then how we got there.",
  });
  await call("brain_documents_create", {
    title: "Proposal template",
    topics: ["Pricing", "Writing"],
    body: "## The problem\n\n## What we will do\n\n## Timeline\n\n## Price\n\nSee [[Pricing policy]] for discounts and payment terms. Follow the [[Brand voice guide]].",
  });
  on(27, 1);
  await call("brain_playbooks_create", {
    title: "Client onboarding",
    topics: ["Process"],
    body: "What every new client gets in their first week.",
    steps: [
      { title: "Kickoff call", detail: "Agree goals, contacts and the weekly review slot." },
      { title: "Shared drive and portal access", detail: "Within two working days of signing." },
      { title: "Brand assets collected", detail: "Logos, fonts, photography; ask for the brand guidelines." },
      { title: "Staging set up", detail: "Password-protected, shared with the client's contacts." },
    ],
  });
  await call("brain_playbooks_create", {
    title: "Website launch checklist",
    topics: ["Process", "SEO"],
    steps: [
      { title: "Redirects from every old URL", detail: "Export the old sitemap; test each redirect." },
      { title: "Analytics verified on the live domain" },
      { title: "Search console sitemap submitted" },
      { title: "Client sign-off recorded" },
    ],
  });

  on(26, 3);
  const goal = await call("brain_goals_create", {
    title: "Retainers are 60% of revenue",
    owner: "demo@plinth.dev",
    targetDate: "2026-12-31",
    status: "on_track",
    progress: 45,
    body: "Steadier months and fewer pitches.",
  });
  await call("brain_initiatives_create", {
    title: "Productised SEO audits",
    owner: "Priya Shah",
    goals: [goal.id],
    status: "on_track",
    progress: 30,
    body: "A fixed-price audit that leads into an SEO retainer.",
  });
  await call("brain_initiatives_create", {
    title: "Care plans for launched sites",
    owner: "Leo Martin",
    goals: [goal.id],
    status: "not_started",
    body: "Hosting, updates and a small hours bank for every site we launch.",
  });

  // Weekly reviews with Harbor Coffee: decisions recorded, action items become tasks.
  const reviews: [number, string, string, string[], { text: string; assignee?: string; due?: string }[]][] = [
    [
      21,
      "Harbor weekly review — sitemap",
      "Walked Maya and Jonas through the sitemap. They want the wholesale pages kept but moved under *For cafés*.",
      ["Wholesale pages move under For cafés", "Blog keeps its URLs"],
      [
        { text: "Update the sitemap with the For cafés section", assignee: "Leo Martin" },
        { text: "Send Maya the content model for menu items", assignee: "Priya Shah" },
      ],
    ],
    [
      14,
      "Harbor weekly review — design",
      "Reviewed the home page and product page designs on [[Staging]]. Maya liked the warmer palette; Jonas asked for bigger product photos.",
      ["Warmer palette approved", "Product photos full-width on mobile"],
      [
        { text: "Enlarge product photos on mobile", assignee: "Priya Shah" },
        { text: "Book a photo shoot of the new roasts", assignee: "Demo User" },
      ],
    ],
    [
      7,
      "Harbor weekly review — beta",
      "Beta review. Redirects are half done; subscriptions launch moves to after the site launch. Follow the [[Website launch checklist]].",
      ["Subscriptions launch after the site launch"],
      [
        { text: "Finish the redirects from the old shop URLs", assignee: "Leo Martin" },
        { text: "Draft the launch announcement", assignee: "Priya Shah" },
      ],
    ],
  ];
  for (const [daysAgo, title, body, decisions, actionItems] of reviews) {
    on(daysAgo, 2);
    await call(
      "brain_meetings_create",
      {
        title,
        at: iso(daysAgo, 2),
        attendees: ["Maya Ortiz", "Jonas Weber", "Priya Shah", "Leo Martin"],
        body,
        decisions,
        actionItems: actionItems.map((a) => ({
          ...a,
          due: new Date(world.at(daysAgo - 7)).toISOString().slice(0, 10),
        })),
        topics: ["Harbor Coffee"],
      },
      daysAgo === 14 ? priya : world.users.demo,
    );
  }
  on(6, 1);
  await call("brain_tasks_update", { id: "Update the sitemap with the For cafés section", status: "done" }, leo);
  await call("brain_tasks_update", { id: "Send Maya the content model for menu items", status: "done" }, priya);

  on(5, 2);
  await call("brain_notes_create", {
    title: "Harbor Coffee: what they care about",
    topics: ["Harbor Coffee"],
    body: "@maya@harborcoffee.example decides on anything customer-facing; [[Jonas Weber]] owns the newsletter. They dislike stock photography and anything that sounds corporate. Wholesale cafés are a third of their revenue.",
  });
  await call("brain_notes_create", {
    title: "SEO audit findings for Harbor",
    topics: ["SEO", "Harbor Coffee"],
    body: "Old shop URLs carry most backlinks: redirects are the priority. The blog ranks for *home espresso* and *pour over ratio*. Page titles are duplicated across product pages.",
  });
  await call("brain_relations_add", {
    fromId: "SEO audit findings for Harbor",
    type: "references",
    toId: "Website launch checklist",
  });
  on(3, 1);
  // A document revised twice, so its history shows who changed what.
  await call(
    "brain_documents_update",
    {
      id: "Pricing policy",
      body: "# Pricing policy\n\nWe quote builds at a fixed price after a [[Discovery sprint]]. Ongoing work is sold as a [[Retainer]].\n\nDiscounts above 10% need the founder's approval. Non-profits get 15% off retainers.\n\nInvoices are due in 14 days; enterprise clients may ask for net 30. Late invoices are chased at 7 and 21 days.",
    },
    priya,
  );
  on(2, 4);
  await call("brain_goals_update", { id: goal.id, progress: 48 });
}

async function harbor(world: DemoWorld) {
  const { call, on, iso } = caller(world, world.companies.harbor, "Harbor Coffee Roasters");
  on(30);
  await call("brain_org_units_create", { title: "Harbor Coffee Roasters" });
  for (const unit of ["Roastery", "Cafés", "Wholesale"])
    await call("brain_org_units_create", { title: unit, parent: "Harbor Coffee Roasters" });
  await call("brain_people_create", {
    title: "Maya Ortiz",
    email: "maya@harborcoffee.example",
    jobTitle: "Owner",
    internal: true,
    orgUnits: ["Harbor Coffee Roasters"],
  });
  await call("brain_people_create", {
    title: "Tom Baker",
    email: "tom@harborcoffee.example",
    jobTitle: "Head roaster",
    internal: true,
    orgUnits: ["Roastery"],
  });
  await call("brain_people_create", {
    title: "Jonas Weber",
    email: "jonas@harborcoffee.example",
    jobTitle: "Marketing",
    internal: true,
    orgUnits: ["Cafés"],
  });
  await call("brain_people_create", {
    title: "Elena Ruiz",
    email: "elena@finca-el-alto.example",
    jobTitle: "Producer",
    organization: "Finca El Alto",
    internal: false,
  });
  on(29, 2);
  for (const [title, body, synonyms] of [
    ["Single origin", "Coffee from one farm or cooperative, roasted on its own.", ["single-origin"]],
    ["Cupping score", "The SCA score out of 100 from a formal tasting; we buy 85 and above.", ["SCA score"]],
    ["Light roast", "Our filter roast profile: first crack plus 60–90 seconds.", ["filter roast"]],
  ] as const)
    await call("brain_glossary_create", { title, body, synonyms: [...synonyms], topics: ["Sourcing"] });
  on(27, 1);
  await call("brain_documents_create", {
    title: "Sourcing policy",
    topics: ["Sourcing"],
    body: "We buy directly from producers we have visited, at least 20% above the Fairtrade minimum. Every lot is cupped before purchase; we buy lots with a [[Cupping score]] of 85 or more.\n\nOur longest relationship is with @elena@finca-el-alto.example at Finca El Alto.",
  });
  await call("brain_documents_create", {
    title: "Wholesale terms",
    topics: ["Wholesale"],
    body: "Cafés order weekly, minimum 5 kg. Prices fall at 20 kg and 50 kg a week. Free barista training for new accounts. Payment in 30 days.",
  });
  await call("brain_playbooks_create", {
    title: "Onboarding a wholesale café",
    topics: ["Wholesale"],
    steps: [
      { title: "Tasting visit with two roasts" },
      { title: "Grinder and recipe set-up", detail: "Dial in the house espresso with the café's barista." },
      { title: "First order and delivery day agreed" },
      { title: "Follow-up visit after two weeks" },
    ],
  });
  const goal = await call("brain_goals_create", {
    title: "Launch coffee subscriptions",
    owner: "Maya Ortiz",
    targetDate: "2026-09-30",
    status: "at_risk",
    progress: 20,
    body: "Monthly and fortnightly plans, paused and skipped online.",
  });
  await call("brain_initiatives_create", {
    title: "Subscription page on the new site",
    owner: "Jonas Weber",
    goals: [goal.id],
    status: "not_started",
  });
  on(12, 3);
  await call("brain_meetings_create", {
    title: "Call with Finca El Alto",
    at: iso(12, 3),
    attendees: ["Elena Ruiz", "Tom Baker", "Maya Ortiz"],
    body: "The new harvest is smaller after a dry season. Elena can reserve 12 bags of the washed lot.",
    decisions: ["Reserve 12 bags of the washed lot", "Visit the farm in November"],
    actionItems: [
      { text: "Confirm the reservation in writing", assignee: "Maya Ortiz" },
      { text: "Plan roast profiles for the washed lot", assignee: "Tom Baker" },
    ],
    topics: ["Sourcing"],
  });
  on(4, 2);
  await call("brain_notes_create", {
    title: "Roast day schedule",
    topics: ["Roastery"],
    body: "Roasting Monday and Thursday; wholesale orders packed Tuesday and Friday. See [[Wholesale terms]].",
  });
  await call("brain_notes_create", {
    title: "House espresso recipe",
    topics: ["Cafés"],
    body: "18 g in, 38 g out, 28–30 seconds at 93 °C. Rest beans 7 days after roasting.",
  });
  await call("brain_notes_create", {
    title: "Customer feedback: summer blend",
    topics: ["Cafés"],
    body: "Regulars at the harbour café find the summer blend too bright as espresso; fine as filter. Consider a darker espresso version.",
  });
  await call("brain_documents_create", {
    title: "Subscriptions FAQ (draft)",
    topics: ["Subscriptions"],
    body: "How often do deliveries come? Every two or four weeks.\n\nCan I pause? Yes, any time before the next roast day.\n\nWhich coffee will I get? The roaster's choice of [[Single origin]] lots, with tasting notes.",
  });
  on(3, 1);
  await call("brain_meetings_create", {
    title: "Wholesale accounts review",
    at: iso(3, 1),
    attendees: ["Maya Ortiz", "Jonas Weber"],
    body: "Two new cafés this month; one account paused over the summer. Delivery days stay Tuesday and Friday.",
    decisions: ["Offer the 20 kg price to the Quayside café"],
    actionItems: [{ text: "Send the Quayside café the new price", assignee: "Jonas Weber" }],
    topics: ["Wholesale"],
  });
  await call("brain_tasks_create", {
    title: "Write tasting notes for the El Alto washed lot",
    assignee: "Tom Baker",
    due: new Date(world.at(-5)).toISOString().slice(0, 10),
    topics: ["Sourcing"],
  });
}

export const demoBrain: DemoPart = async (world) => {
  await northwind(world);
  await harbor(world);
};
