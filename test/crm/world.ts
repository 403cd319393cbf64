/**
 * A small real world for the crm verbs (test/fixtures/tenants.ts): Acme with
 * owner Olga, admin Ada and viewer Vic; the other tenant Rival with its owner
 * Rita. Tool calls reach every domain's tools (the timeline reads tickets
 * made through the tickets tools); jobs run one at a time with runJob.
 */
import type { ActorContext } from "../../src/core/context";
import { makeTenants, OLGA_PEOPLE, type Tenants } from "../fixtures/tenants";

type Who = keyof typeof OLGA_PEOPLE;

export interface CWorld extends Pick<Tenants<Who>, "deps" | "clock" | "users" | "events" | "runJob" | "close"> {
  acme: number;
  rival: number;
  /** Olga (owner) by default. */
  ctx(who?: Who, opts?: { scopes?: string[] }): ActorContext;
  call(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
}

export async function makeCrmWorld(start = Date.UTC(2025, 0, 15, 12, 0, 0)): Promise<CWorld> {
  const t = await makeTenants({ people: OLGA_PEOPLE, start });
  const ctx = (who: Who = "olga", opts: { scopes?: string[] } = {}) => t.ctx(who, opts);
  return { ...t, acme: t.mine.id, rival: t.other.id, ctx, call: (name, args, c = ctx()) => t.call(name, args, c) };
}

export { errorOf } from "../store/world";
