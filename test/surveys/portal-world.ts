/**
 * A real server for the surveys pages: Acme (owner Olga, admin Sam, viewer
 * Vic) with a feedback survey an agent made over MCP and a person approved,
 * answered 24 times through the same verb the public form uses (a known
 * NPS split, choices, "Other" texts, ratings, text answers, some of them
 * hostile markup or spreadsheet formulas, and a few left unfinished); a
 * survey waiting for approval with a hostile title; and Rival (owner Rita)
 * with a survey of its own. People sign in to the portal with passwords.
 */
import type { Client } from "@modelcontextprotocol/client";
import { ManualClock } from "../../src/core/clock";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { submit } from "./fixtures";

export const PASSWORD = "a long passphrase for tests";
export const XSS_TITLE = `<script>alert(1)</script> "><img src=x onerror=alert(2)> survey`;
export const XSS_ANSWER = `<img src=x onerror=alert(3)> and <script>alert(4)</script>`;
export const FORMULA = `=HYPERLINK("https://evil.example","click")`;
const HOUR = 3_600_000;

export const SURVEY = {
  title: "Customer feedback",
  description: "Three quick questions.",
  pages: [
    {
      id: "p1",
      title: "About you",
      questions: [
        { id: "nps", type: "nps", title: "How likely are you to recommend us?", required: true },
        {
          id: "visits",
          type: "single_choice",
          title: "How often do you visit?",
          required: true,
          allowOther: true,
          choices: [
            { id: "daily", label: "Daily" },
            { id: "weekly", label: "Weekly" },
            { id: "rarely", label: "Rarely" },
          ],
        },
      ],
    },
    {
      id: "p2",
      title: "A little more",
      questions: [
        {
          id: "drinks",
          type: "multiple_choice",
          title: "What do you drink?",
          choices: [
            { id: "espresso", label: "Espresso" },
            { id: "filter", label: "Filter" },
            { id: "tea", label: "Tea" },
          ],
        },
        { id: "pastry", type: "rating", title: "Rate our pastries", scale: 5 },
        { id: "why", type: "long_text", title: "What should we improve?", max: 2000 },
      ],
    },
  ],
};

/** [nps, visits, other text, drinks, pastry, why, finished] per response, oldest first. */
type Row = [number, string, string | null, string[], number | null, string | null, boolean];
const ROWS: Row[] = [
  [10, "daily", null, ["espresso"], 5, "Nothing, it is perfect.", true],
  [9, "weekly", null, ["espresso", "tea"], 4, null, true],
  [10, "daily", null, ["filter"], 5, "More oat milk.", true],
  [8, "weekly", null, ["tea"], 3, "Quieter music.", true],
  [7, "rarely", null, ["filter"], 4, null, true],
  [6, "rarely", null, [], 2, "The queue is too long.", true],
  [3, "other", "Only on holidays", ["espresso"], 1, XSS_ANSWER, true],
  [9, "daily", null, ["espresso"], 5, FORMULA, true],
  [10, "weekly", null, ["filter", "tea"], 4, null, true],
  [5, "rarely", null, ["tea"], 2, "Prices went up.", true],
  [9, "daily", null, ["espresso"], 4, null, true],
  [8, "other", "<b>When it rains</b>", ["filter"], 3, null, true],
  [10, "daily", null, ["espresso", "filter"], 5, "Open earlier on Sundays.", true],
  [2, "rarely", null, ["tea"], 1, "Cold coffee twice.", true],
  [9, "weekly", null, ["espresso"], 4, null, true],
  [7, "weekly", null, ["filter"], 3, null, true],
  [10, "daily", null, ["espresso"], 5, null, true],
  [9, "daily", null, ["tea"], 4, null, true],
  [6, "rarely", null, ["filter"], 3, "Bigger tables.", true],
  [10, "weekly", null, ["espresso"], 5, null, true],
  [8, "daily", null, [], null, null, false],
  [4, "rarely", null, [], null, null, false],
  [10, "daily", null, [], null, null, false],
  [9, "weekly", null, [], null, null, false],
];
/** What the page must show for the NPS question, counted by hand from ROWS. */
export const NPS = { promoters: 13, passives: 5, detractors: 6, answered: 24, score: 29.17 };

export interface SurveysWorld {
  s: TestServer;
  clock: ManualClock;
  olga: Client;
  rita: Client;
  ids: { survey: number; pending: number; pendingApproval: number; rival: number };
  stop(): Promise<void>;
}

export async function surveysWorld(): Promise<SurveysWorld> {
  const now = Date.now();
  const clock = new ManualClock(now - 30 * HOUR);
  const s = await startTestServer({ seed: false, clock, config: { rateLimit: 100_000 } });
  const mk = (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const olga = await mk("olga@acme.test", "Olga Owner");
  const vic = await mk("vic@acme.test", "Vic Viewer");
  const sam = await mk("sam@acme.test", "Sam Admin");
  const rita = await mk("rita@rival.test", "Rita Rival");
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: olga.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: rita.id });
  await addMember(s.deps, acme.id, vic.id, "viewer");
  await addMember(s.deps, acme.id, sam.id, "admin");
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [companyId] })).key;
  const o = await mcpClient(s.url, await key(olga.id, acme.id));
  const r = await mcpClient(s.url, await key(rita.id, rival.id));
  const approve = async (token: string) => {
    const d = await decideApproval(s.deps, { token }, "approve", { decidedBy: "Olga Owner" });
    if (!d.ok) throw new Error(d.message);
  };

  const survey = await toolOk(o, "surveys_create", SURVEY);
  await approve(survey.approval.token);
  for (const [i, [nps, visits, other, drinks, pastry, why, finished]] of ROWS.entries()) {
    clock.set(new Date(now - (30 - i) * HOUR));
    const t = `token-${i}-${"x".repeat(20)}`;
    const first: [string, string][] = [
      ["q.nps", String(nps)],
      ["q.visits", visits],
    ];
    if (other !== null) first.push(["q.visits.other", other]);
    const one = await submit(s.deps, survey.id, t, "p1", first);
    if (one.kind !== "page") throw new Error(`p1 of response ${i}: ${JSON.stringify(one).slice(0, 200)}`);
    if (!finished) continue;
    const second: [string, string][] = drinks.map((d) => ["q.drinks", d]);
    if (pastry !== null) second.push(["q.pastry", String(pastry)]);
    if (why !== null) second.push(["q.why", why]);
    const end = await submit(s.deps, survey.id, t, "p2", second);
    if (end.kind !== "ending") throw new Error(`p2 of response ${i}: ${JSON.stringify(end).slice(0, 200)}`);
  }
  clock.set(new Date(now));
  const pending = await toolOk(o, "surveys_create", { ...SURVEY, title: XSS_TITLE });
  const rivalSurvey = await toolOk(r, "surveys_create", { ...SURVEY, title: "Rival secret survey" });
  return {
    s,
    clock,
    olga: o,
    rita: r,
    ids: { survey: survey.id, pending: pending.id, pendingApproval: pending.approval.id, rival: rivalSurvey.id },
    async stop() {
      await s.stop();
    },
  };
}
