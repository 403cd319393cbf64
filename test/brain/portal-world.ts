/**
 * A real server for the brain pages: Acme (owner Olga, admin Sam, viewer
 * Vic) whose knowledge base an agent filled over MCP — two people, a
 * kickoff meeting with its decisions and action items (which become
 * tasks), a document that links the meeting, a note with planted markup —
 * and four held writes: one Olga's agent asked for, three Sam's agent asked
 * for (deleting a document is always reviewed; then his agent sends its
 * own writes to review and edits the brief). Rival (owner Rita) has a
 * document and a review of its own. Everything is made over MCP with real
 * SDK clients, as agents would; people sign in to the portal with passwords.
 */
import type { Client } from "@modelcontextprotocol/client";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

export const PASSWORD = "a long passphrase for tests";
export const XSS_TITLE = `<script>alert(1)</script> "><img src=x onerror=alert(2)>`;
export const XSS_BODY = `Planted: <img src=x onerror=alert(3)> and <script>alert(4)</script> **not markup**`;
export const XSS_DECISION = `<b>Bold</b> decision <img src=x onerror=alert(5)>`;
/** The brief's text as Sam's agent would have it: one line changed, one with planted markup added. */
export const EDITED_BODY =
  "# Relaunch\nThe shop goes first, then the blog.\nDesign: @dana@acme.test\n<img src=x onerror=alert(6)>";

export interface BrainWorld {
  s: TestServer;
  olga: Client;
  sam: Client;
  rita: Client;
  ids: {
    dana: number;
    eli: number;
    meeting: number;
    tasks: number[];
    doc: number;
    hostile: number;
    /** Held deletes: Olga's agent asked for `own`; Sam's agent for `approve` and `reject`; `edit` is his agent's held edit of `doc`. */
    reviews: { own: number; approve: number; reject: number; edit: number };
    /** The documents those reviews would delete. */
    held: { own: number; approve: number; reject: number };
  };
  rival: { doc: number; review: number };
}

export async function brainWorld(): Promise<BrainWorld> {
  const s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
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
  const sm = await mcpClient(s.url, await key(sam.id, acme.id));
  const r = await mcpClient(s.url, await key(rita.id, rival.id));
  const call = (name: string, args: Record<string, unknown>, c = o) => toolOk(c, name, args);

  const dana = await call("brain_people_create", {
    title: "Dana Designer",
    email: "dana@acme.test",
    jobTitle: "Lead designer",
    internal: true,
  });
  const eli = await call("brain_people_create", {
    title: "Eli Engineer",
    email: "eli@northwind.test",
    organization: "Northwind",
    internal: false,
  });
  const meeting = await call("brain_meetings_create", {
    title: "Kickoff with Northwind",
    at: "2026-03-02T10:00:00Z",
    attendees: [dana.id, eli.id],
    body: "We walked through the relaunch plan.\nNorthwind wants the shop first.",
    decisions: ["Launch the new shop on May 5", XSS_DECISION],
    actionItems: [
      { text: "Draft the homepage wireframes", assignee: dana.id, due: "2026-03-09" },
      { text: "Send the product feed", assignee: eli.id },
    ],
  });
  const got = await call("brain_records_get", { id: meeting.id });
  const tasks = (got.relations as { type: string; record: { id: number; kind: string } }[])
    .filter((x) => x.record.kind === "task")
    .map((x) => x.record.id);
  const doc = await call("brain_documents_create", {
    title: "Relaunch brief",
    body: "# Relaunch\nThe shop goes first, as agreed in [[Kickoff with Northwind]].\nDesign: @dana@acme.test",
  });
  const hostile = await call("brain_notes_create", { title: XSS_TITLE, body: XSS_BODY });

  // Deleting a document is always reviewed: each delete below is held, not applied.
  const heldDoc = async (title: string, c: Client) => {
    const d = await call("brain_documents_create", { title, body: `${title}: to be removed.` }, c);
    const held = await call("brain_records_delete", { id: d.id }, c);
    return { doc: d.id as number, review: held.review.id as number };
  };
  const own = await heldDoc("Old pricing sheet", o);
  const approve = await heldDoc("Draft FAQ", sm);
  const reject = await heldDoc("Partner list 2025", sm);
  // Sam's agent chooses supervision: its next write, an edit of the brief's text, is held with a diff.
  await call("brain_review_policy_set", { review: true }, sm);
  const edit = await call("brain_documents_update", { id: doc.id, body: EDITED_BODY }, sm);

  const rivalDoc = await call("brain_documents_create", { title: "Rival secret plan", body: "Only Rival." }, r);
  const rivalHeld = await call("brain_records_delete", { id: rivalDoc.id }, r);
  return {
    s,
    olga: o,
    sam: sm,
    rita: r,
    ids: {
      dana: dana.id,
      eli: eli.id,
      meeting: meeting.id,
      tasks,
      doc: doc.id,
      hostile: hostile.id,
      reviews: { own: own.review, approve: approve.review, reject: reject.review, edit: edit.review.id },
      held: { own: own.doc, approve: approve.doc, reject: reject.doc },
    },
    rival: { doc: rivalDoc.id, review: rivalHeld.review.id },
  };
}
