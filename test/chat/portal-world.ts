/**
 * A real server for the chat portal tests: Acme (owner Olga, admin Ada,
 * viewer Vic) with a site and an inbox, Rival (owner Rita) with its own;
 * people sign in to the portal with passwords; visitors write through the
 * widget's own verb; agents' verbs are called as each person.
 */
import { eq } from "drizzle-orm";
import type { ActorContext } from "../../src/core/context";
import type { Role } from "../../src/core/roles";
import { createInbox } from "../../src/domains/chat/inboxes";
import { chatInboxes } from "../../src/domains/chat/tables";
import { visitorByToken, visitorPost } from "../../src/domains/chat/visitor";
import { sites } from "../../src/domains/sites/tables";
import { addMember, createCompany, createUser } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { Browser } from "../oauth/helpers";
import { readSse, until } from "../fixtures/sse";

export const PASSWORD = "a long passphrase for tests";

export interface PortalChatWorld {
  s: TestServer;
  acme: { id: number; name: string };
  rival: { id: number; name: string };
  users: Record<"olga" | "ada" | "vic" | "rita", number>;
  inbox: { id: number; widgetKey: string };
  rivalInbox: { id: number; widgetKey: string };
  as(who: "olga" | "ada" | "vic" | "rita"): ActorContext;
  signIn(who: "olga" | "ada" | "vic" | "rita"): Promise<Browser>;
  visit(
    body: string,
    o?: { token?: string | null; inbox?: number; name?: string; email?: string },
  ): Promise<{ token: string; conversation: number; messageId: number }>;
}

export async function portalChatWorld(o: { allowedOrigins?: string[] } = {}): Promise<PortalChatWorld> {
  const s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const mk = (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const olga = await mk("olga@acme.test", "Olga Owner");
  const ada = await mk("ada@acme.test", "Ada Admin");
  const vic = await mk("vic@acme.test", "Vic Viewer");
  const rita = await mk("rita@rival.test", "Rita Rival");
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: olga.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: rita.id });
  await addMember(s.deps, acme.id, ada.id, "admin");
  await addMember(s.deps, acme.id, vic.id, "viewer");
  const people: Record<string, { id: number; company: { id: number; name: string }; role: Role }> = {
    olga: { id: olga.id, company: acme, role: "owner" },
    ada: { id: ada.id, company: acme, role: "admin" },
    vic: { id: vic.id, company: acme, role: "viewer" },
    rita: { id: rita.id, company: rival, role: "owner" },
  };
  const as = (who: string): ActorContext => {
    const p = people[who]!;
    const c = { ...p.company, role: p.role };
    return {
      deps: s.deps,
      principal: {
        userId: p.id,
        credential: { kind: "session", id: 0, name: "portal" },
        scopes: ["*"],
        companies: [c],
        requireCmsApproval: false,
      },
      company: c,
      requestId: "test",
    };
  };
  const site = (
    await s.deps.db
      .insert(sites)
      .values({ companyId: acme.id, name: "Acme Coffee", domain: "acme-coffee.test" })
      .returning()
  )[0]!;
  const rivalSite = (await s.deps.db.insert(sites).values({ companyId: rival.id, name: "Rival Tea" }).returning())[0]!;
  const inbox = await createInbox(as("olga"), {
    siteId: site.id,
    name: "Website chat",
    allowedOrigins: o.allowedOrigins,
  });
  const rivalInbox = await createInbox(as("rita"), { siteId: rivalSite.id, name: "Rival chat" });
  return {
    s,
    acme,
    rival,
    users: { olga: olga.id, ada: ada.id, vic: vic.id, rita: rita.id },
    inbox,
    rivalInbox,
    as,
    async signIn(who) {
      const b = new Browser(s.config.publicUrl);
      const res = await b.signIn(`${who}@${who === "rita" ? "rival" : "acme"}.test`, PASSWORD);
      if (res.status !== 303) throw new Error(`sign-in of ${who} failed: ${res.status}`);
      return b;
    },
    async visit(body, v = {}) {
      const row = (
        await s.deps.db
          .select()
          .from(chatInboxes)
          .where(eq(chatInboxes.id, v.inbox ?? inbox.id))
          .limit(1)
      )[0]!;
      const visitor = await visitorByToken(s.deps, row, v.token ?? null);
      const r = await visitorPost(s.deps, row, visitor, { body, name: v.name, email: v.email });
      return { token: r.token ?? v.token!, conversation: r.conversation, messageId: r.message.id };
    },
  };
}

/** Reads an SSE response's `message` events until `want` holds for the messages seen, or throws after `ms`. */
export async function readEvents(res: Response, want: (msgs: any[]) => boolean, ms = 5000): Promise<any[]> {
  const msgs: any[] = [];
  const stop = new AbortController();
  const reading = readSse(res.body!, (e) => void (e.event === "message" && msgs.push(e.data)), stop.signal);
  try {
    await until(() => want(msgs), ms).catch(() => {
      throw new Error(`stream: wanted more than ${JSON.stringify(msgs.map((m) => m.body))}`);
    });
    return msgs;
  } finally {
    stop.abort();
    await reading;
  }
}
