/**
 * The demo's surveys: Harbor Coffee's open customer survey (approved a week
 * and a half ago, 26 responses, a few still unfinished, some tagged and
 * annotated by the team) and Northwind's closed client-onboarding survey.
 * Paths and kept answers come from the real skip logic (walk), so the
 * summaries and filters read exactly as live data would.
 */
import { eq } from "drizzle-orm";
import { randomHex, sha256Hex } from "../../core/secrets";
import { approvalLinks } from "../approvals/tables";
import { answersOnPath, walk } from "./logic";
import { normalizeDefinition, type AnswerValue, type Definition } from "./definition";
import { surveyResponses, surveys } from "./tables";
import type { DemoPart, DemoWorld } from "../../mcp/define";

const HARBOR_SURVEY = {
  title: "How was your visit to Harbor Coffee?",
  description: "Five quick questions. Every answer is read by the roasting team.",
  languages: ["en", "de"],
  hiddenFields: ["source"],
  pages: [
    {
      id: "visit",
      title: "Your visit",
      questions: [
        { id: "nps", type: "nps", title: "How likely are you to recommend Harbor Coffee to a friend?", required: true },
        {
          id: "store",
          type: "single_choice",
          title: "Which café did you visit?",
          required: true,
          choices: [
            { id: "pier", label: "Pier Street" },
            { id: "market", label: "Old Market" },
            { id: "online", label: "I ordered online" },
          ],
        },
      ],
      logic: [{ if: [{ field: "nps", op: "greaterOrEqual", value: 9 }], goTo: "extras" }],
    },
    {
      id: "better",
      title: "Help us do better",
      questions: [
        {
          id: "improve",
          type: "long_text",
          title: "What is the one thing we should improve?",
          required: true,
          max: 2000,
        },
      ],
    },
    {
      id: "extras",
      title: "Almost done",
      questions: [
        {
          id: "drinks",
          type: "multiple_choice",
          title: "What did you have?",
          max: 3,
          allowOther: true,
          choices: [
            { id: "espresso", label: "Espresso drinks" },
            { id: "filter", label: "Filter coffee" },
            { id: "tea", label: "Tea" },
            { id: "pastry", label: "Pastries" },
          ],
        },
        { id: "taste", type: "rating", title: "How did it taste?", scale: 5 },
        { id: "email", type: "email", title: "Your email, if you would like a reply", placeholder: "name@example.com" },
      ],
    },
  ],
  endings: [
    { id: "thanks", title: "Thank you!", body: "Show this page at the counter for 10% off your next bag of beans." },
  ],
  submitLabel: "Send feedback",
};

const HARBOR_DE: Record<string, string> = {
  title: "Wie war Ihr Besuch bei Harbor Coffee?",
  description: "Fünf kurze Fragen. Jede Antwort liest das Röstteam.",
  submitLabel: "Feedback senden",
  "visit.title": "Ihr Besuch",
  "nps.title": "Wie wahrscheinlich ist es, dass Sie Harbor Coffee einem Freund empfehlen?",
  "store.title": "Welches Café haben Sie besucht?",
  "store.online": "Ich habe online bestellt",
  "improve.title": "Was sollten wir als Erstes verbessern?",
  "thanks.title": "Vielen Dank!",
};

/** [nps, store, improve | null, drinks, taste | null, email | null, source, daysAgo, finished, tags, note] */
type Row = [
  number,
  string,
  string | null,
  string[],
  number | null,
  string | null,
  string | null,
  number,
  boolean,
  string[],
  string | null,
];
const HARBOR_RESPONSES: Row[] = [
  [10, "pier", null, ["espresso", "pastry"], 5, null, "receipt", 10, true, [], null],
  [9, "pier", null, ["filter"], 5, "joana@example.com", "receipt", 10, true, [], null],
  [
    6,
    "market",
    "The queue at lunchtime is too long; a second till would help.",
    ["espresso"],
    4,
    "mark.t@example.com",
    "receipt",
    9,
    true,
    ["queue", "follow up"],
    "Called Mark: we are trialling a second till on Fridays.",
  ],
  [8, "online", "Shipping took four days to Hamburg.", ["filter"], 4, null, "newsletter", 9, true, ["shipping"], null],
  [10, "market", null, ["espresso", "tea"], 5, null, "receipt", 8, true, [], null],
  [
    3,
    "pier",
    "My oat flat white was lukewarm, twice.",
    ["espresso"],
    2,
    "sam.k@example.com",
    "receipt",
    8,
    true,
    ["quality", "follow up"],
    "Sent a voucher; checked the steam wand on machine 2.",
  ],
  [9, "online", null, ["filter", "pastry"], 5, null, "newsletter", 7, true, [], null],
  [7, "pier", "More seats by the window, please.", ["tea"], 4, null, "receipt", 7, true, ["seating"], null],
  [10, "pier", null, ["espresso"], 5, "lea@example.com", null, 6, true, [], null],
  [5, "market", "Music too loud in the afternoons.", ["filter"], 3, null, "receipt", 6, true, ["ambience"], null],
  [9, "market", null, ["espresso", "pastry"], 4, null, "receipt", 5, true, [], null],
  [
    8,
    "online",
    "Offer a subscription with a pause button.",
    ["filter"],
    5,
    "mo@example.com",
    "newsletter",
    5,
    true,
    ["subscriptions"],
    null,
  ],
  [10, "online", null, ["filter"], 5, null, "newsletter", 4, true, [], null],
  [4, "pier", "The decaf ran out by 3pm.", ["espresso"], 3, null, "receipt", 4, true, ["quality"], null],
  [9, "pier", null, ["espresso", "filter", "pastry"], 5, null, "receipt", 3, true, [], null],
  [7, "market", "Card machine was down.", ["tea"], 4, null, null, 3, true, [], null],
  [10, "market", null, ["espresso"], 5, null, "receipt", 2, true, [], null],
  [
    8,
    "pier",
    "Label the allergens on pastries.",
    ["pastry"],
    4,
    "ana.r@example.com",
    "receipt",
    2,
    true,
    ["follow up"],
    null,
  ],
  [9, "online", null, ["filter"], 4, null, "newsletter", 2, true, [], null],
  [
    6,
    "online",
    "The grinder setting on the bag was wrong for my moka pot.",
    ["filter"],
    3,
    null,
    "newsletter",
    1,
    true,
    ["shipping"],
    null,
  ],
  [10, "pier", null, ["espresso", "pastry"], 5, null, "receipt", 1, true, [], null],
  [9, "market", null, ["tea"], 5, null, "receipt", 1, true, [], null],
  [8, "pier", "Open at 7 on weekdays.", ["espresso"], 4, null, "receipt", 0, true, [], null],
  // Unfinished: left after the first page.
  [2, "market", null, [], null, null, "receipt", 3, false, [], null],
  [7, "online", null, [], null, null, "newsletter", 1, false, [], null],
  [10, "pier", null, [], null, null, "receipt", 0, false, [], null],
];

const NORTHWIND_SURVEY = {
  title: "Client onboarding: how did we do?",
  pages: [
    {
      questions: [
        {
          id: "clarity",
          type: "scale",
          title: "The kickoff made the project plan clear.",
          min: 1,
          max: 5,
          minLabel: "Strongly disagree",
          maxLabel: "Strongly agree",
          required: true,
        },
        {
          id: "areas",
          type: "matrix",
          title: "How were we on…",
          rows: [
            { id: "comms", label: "Communication" },
            { id: "speed", label: "Speed" },
            { id: "design", label: "Design quality" },
          ],
          columns: [
            { id: "poor", label: "Poor" },
            { id: "ok", label: "OK" },
            { id: "great", label: "Great" },
          ],
        },
        {
          id: "next",
          type: "ranking",
          title: "Rank what you want from us next",
          choices: [
            { id: "seo", label: "SEO" },
            { id: "shop", label: "Online shop" },
            { id: "brand", label: "Brand refresh" },
          ],
        },
      ],
    },
  ],
};
const NORTHWIND_RESPONSES: [number, Record<string, string>, string[], number][] = [
  [5, { comms: "great", speed: "ok", design: "great" }, ["shop", "seo", "brand"], 40],
  [4, { comms: "great", speed: "great", design: "ok" }, ["seo", "shop", "brand"], 33],
  [3, { comms: "ok", speed: "poor", design: "great" }, ["brand", "shop", "seo"], 21],
];

async function addSurvey(
  w: DemoWorld,
  companyId: number,
  siteId: number | null,
  slug: string,
  input: Record<string, unknown>,
  approvedDaysAgo: number,
  requestedBy: number,
  translations: Definition["translations"] = {},
) {
  const approvedAt = w.at(approvedDaysAgo);
  const createdAt = w.at(approvedDaysAgo, 3);
  const def = normalizeDefinition({ ...(input as any), slug, siteId, translations }, null);
  const [row] = await w.tx
    .insert(surveys)
    .values({
      companyId,
      siteId,
      slug,
      title: def.title,
      status: "open",
      definition: def,
      version: 2,
      approvedAt,
      createdByUserId: requestedBy,
      createdAt,
      updatedAt: approvedAt,
    })
    .returning();
  // The approval it went through, as the approvals inbox shows it (the token was never shown: only its hash is kept).
  await w.tx.insert(approvalLinks).values({
    tokenHash: sha256Hex(randomHex(32)),
    companyId,
    siteId,
    linkType: "entity",
    entityType: "survey",
    entityId: row!.id,
    payload: { proposal: "new" },
    title: def.title,
    status: "approved",
    requestedByUserId: requestedBy,
    credentialKind: "mcp_key",
    credentialName: "Claude",
    expiresAt: new Date(createdAt.getTime() + 14 * 86_400_000),
    decidedAt: approvedAt,
    decidedBy: "Maya Ortiz (approval link)",
    result: { surveyId: row!.id, slug, status: "open", version: 2 },
    createdAt,
  });
  return { id: row!.id, def };
}

export const demoSurveys: DemoPart = async (w) => {
  const harbor = await addSurvey(
    w,
    w.companies.harbor,
    w.sites.harbor,
    "harbor-visit-feedback",
    HARBOR_SURVEY,
    11,
    w.users.demo,
    { de: HARBOR_DE },
  );
  let finished = 0;
  for (const [
    i,
    [nps, store, improve, drinks, taste, email, source, daysAgo, done, tags, note],
  ] of HARBOR_RESPONSES.entries()) {
    const hidden: Record<string, string> = source ? { source } : {};
    const all: Record<string, AnswerValue> = { nps, store };
    if (improve) all.improve = improve;
    if (drinks.length) all.drinks = drinks;
    if (taste !== null) all.taste = taste;
    if (email) all.email = email;
    const route = walk(harbor.def, all, hidden);
    // An unfinished response submitted only the first page.
    const path = done ? route.pages : route.pages.slice(0, 1);
    const at = w.at(daysAgo, (i % 7) + 1);
    await w.tx.insert(surveyResponses).values({
      surveyId: harbor.id,
      companyId: w.companies.harbor,
      tokenHash: sha256Hex(`demo-response-${i}`),
      surveyVersion: 2,
      language: i % 5 === 4 ? "de" : "en",
      answers: answersOnPath(harbor.def, path, all),
      otherTexts: {},
      hidden,
      path,
      finished: done,
      endingId: done ? route.ending : null,
      tags,
      notes: note
        ? [
            {
              id: 1,
              text: note,
              userId: w.users.maya,
              by: "Maya Ortiz",
              at: new Date(at.getTime() + 3_600_000).toISOString(),
            },
          ]
        : [],
      createdAt: at,
      updatedAt: at,
      finishedAt: done ? new Date(at.getTime() + 95_000) : null,
    });
    if (done) finished++;
  }
  await w.tx.update(surveys).set({ responseCount: finished }).where(eq(surveys.id, harbor.id));

  const nw = await addSurvey(
    w,
    w.companies.northwind,
    w.sites.northwind,
    "northwind-onboarding",
    NORTHWIND_SURVEY,
    45,
    w.users.priya,
  );
  for (const [i, [clarity, areas, next, daysAgo]] of NORTHWIND_RESPONSES.entries()) {
    const at = w.at(daysAgo);
    await w.tx.insert(surveyResponses).values({
      surveyId: nw.id,
      companyId: w.companies.northwind,
      tokenHash: sha256Hex(`demo-onboarding-${i}`),
      surveyVersion: 2,
      language: "en",
      answers: { clarity, areas, next },
      otherTexts: {},
      hidden: {},
      path: ["page-1"],
      finished: true,
      endingId: "end",
      tags: [],
      notes: [],
      createdAt: at,
      updatedAt: at,
      finishedAt: at,
    });
  }
  await w.tx
    .update(surveys)
    .set({
      responseCount: NORTHWIND_RESPONSES.length,
      status: "closed",
      closedReason: "manual",
      closedAt: w.at(20),
      version: 3,
    })
    .where(eq(surveys.id, nw.id));
};
