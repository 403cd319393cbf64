/**
 * What a domain's portal pages (Domain.portal, src/mcp/define.ts) may use of
 * the portal: the one file of this adapter that domains import, as
 * src/mcp/define.ts is for tools (test/core/import-graph.test.ts holds the
 * line). The frame and renderer, the CSRF field, the signed-in guard and its
 * checked form, and the person as an ActorContext for the domain's verbs.
 */
export { canManage, portalActor } from "./actor";
export type { Form } from "./forms";
export { signedIn, type PortalEnv } from "./guard";
export { Csrf, DangerButton, Layout, Notice, Pager, render, when } from "./layout";
export type { Session } from "./session";
