/**
 * A small real world for the tickets verbs (test/fixtures/tenants.ts): Acme
 * with owner Olga, admin Ada and viewer Vic; the other tenant Rival with its
 * owner Rita; tool calls reach the tickets tools only.
 */
import type { ActorContext } from "../../src/core/context";
import { ticketsDomain } from "../../src/domains/tickets/tools";
import { makeTenants, OLGA_PEOPLE, type Tenants } from "../fixtures/tenants";

type Who = keyof typeof OLGA_PEOPLE;

export interface TWorld extends Pick<Tenants<Who>, "deps" | "clock" | "users" | "events" | "close"> {
  acme: number;
  rival: number;
  /** Olga (owner) by default. */
  ctx(who?: Who, opts?: { scopes?: string[] }): ActorContext;
  call(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
}

export async function makeTicketWorld(start = Date.UTC(2025, 0, 15, 12, 0, 0)): Promise<TWorld> {
  const t = await makeTenants({ people: OLGA_PEOPLE, domains: [ticketsDomain], start });
  const ctx = (who: Who = "olga", opts: { scopes?: string[] } = {}) => t.ctx(who, opts);
  return { ...t, acme: t.mine.id, rival: t.other.id, ctx, call: (name, args, c = ctx()) => t.call(name, args, c) };
}

export { errorOf } from "../store/world";
