/**
 * A small real world for the chat verbs (test/fixtures/tenants.ts): Acme
 * (owner Olga, admin Ada, viewer Vic) with a site and an inbox, the other
 * tenant Rival (owner Rita) with its own; tool calls reach the chat tools;
 * and the visitor side (what the widget's API calls) through the same verbs.
 */
import { eq } from "drizzle-orm";
import type { ActorContext } from "../../src/core/context";
import { chatInboxes } from "../../src/domains/chat/tables";
import { chatDomain } from "../../src/domains/chat/tools";
import { visitorByToken, visitorPost } from "../../src/domains/chat/visitor";
import { sites } from "../../src/domains/sites/tables";
import { makeTenants, OLGA_PEOPLE, type Tenants } from "../fixtures/tenants";

type Who = keyof typeof OLGA_PEOPLE;

export interface CWorld extends Pick<Tenants<Who>, "deps" | "clock" | "users" | "events" | "close"> {
  acme: number;
  rival: number;
  site: number;
  rivalSite: number;
  inbox: number;
  rivalInbox: number;
  ctx(who?: Who, opts?: { scopes?: string[] }): ActorContext;
  call(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
  /** A visitor writes through the widget's verb; returns the token to keep writing as the same visitor. */
  visit(
    body: string,
    o?: { token?: string | null; inbox?: number; name?: string; email?: string },
  ): Promise<{ token: string; conversation: number; messageId: number }>;
}

export async function makeChatWorld(start = Date.UTC(2025, 0, 15, 12, 0, 0)): Promise<CWorld> {
  const t = await makeTenants({ people: OLGA_PEOPLE, domains: [chatDomain], start });
  const db = t.deps.db;
  const ctx = (who: Who = "olga", opts: { scopes?: string[] } = {}) => t.ctx(who, opts);
  const call = (name: string, args: Record<string, unknown>, c = ctx()) => t.call(name, args, c);
  const site = (
    await db.insert(sites).values({ companyId: t.mine.id, name: "Acme Coffee", domain: "acme-coffee.test" }).returning()
  )[0]!;
  const rivalSite = (await db.insert(sites).values({ companyId: t.other.id, name: "Rival Tea" }).returning())[0]!;
  const inbox = (
    await call("chat_inboxes_create", { siteId: site.id, name: "Website chat", greeting: "Hello from Acme" })
  ).id as number;
  const rivalInbox = (await call("chat_inboxes_create", { siteId: rivalSite.id, name: "Rival chat" }, ctx("rita")))
    .id as number;
  return {
    ...t,
    acme: t.mine.id,
    rival: t.other.id,
    site: site.id,
    rivalSite: rivalSite.id,
    inbox,
    rivalInbox,
    ctx,
    call,
    async visit(body, o = {}) {
      const row = (
        await db
          .select()
          .from(chatInboxes)
          .where(eq(chatInboxes.id, o.inbox ?? inbox))
          .limit(1)
      )[0]!;
      const visitor = await visitorByToken(t.deps, row, o.token ?? null);
      if (o.token && !visitor) throw new Error("unknown visitor token");
      const r = await visitorPost(t.deps, row, visitor, { body, name: o.name, email: o.email });
      return { token: r.token ?? o.token!, conversation: r.conversation, messageId: r.message.id };
    },
  };
}

export { errorOf } from "../store/world";
