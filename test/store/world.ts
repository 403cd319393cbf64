/**
 * A small real world for verb-level tests: an in-memory store with the real
 * migrations, two companies (the second one is "another tenant"), a site in
 * each, and ActorContexts for any role and scope set. Verbs run exactly as
 * the MCP adapter would call them.
 */
// The domain list first: verbs that hold changes for approval read it (src/domains/approvals/registry.ts).
import { catalog } from "../../src/catalog";
import "../../src/domains";
import { ManualClock } from "../../src/core/clock";
import type { ActorContext, Deps } from "../../src/core/context";
import { openTestStore } from "../db";
import { dbBlobStore } from "../../src/core/blobs-db";
import { loadConfig } from "../../src/config";
import { companies, mcpKeys, memberships, users, type Role } from "../../src/domains/accounts/tables";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { sites } from "../../src/domains/sites/tables";
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { AppError } from "../../src/core/errors";
import type { Domain } from "../../src/mcp/define";

export interface World {
  deps: Deps;
  clock: ManualClock;
  companyId: number;
  otherCompanyId: number;
  siteId: number;
  /** A second site of the same company. */
  site2Id: number;
  /** A site of the other company. */
  otherSiteId: number;
  ctx(opts?: { role?: Role; scopes?: string[]; company?: "mine" | "other" }): ActorContext;
  contentVersion(siteId: number): Promise<number>;
  close(): Promise<void>;
}

export async function makeWorld(): Promise<World> {
  const store = await openTestStore();
  const clock = new ManualClock(Date.UTC(2025, 0, 15, 12, 0, 0));
  // Media bytes (if a test stores any) go to the throwaway database too, never to a folder.
  const deps: Deps = {
    store,
    db: store.db,
    config: { ...loadConfig({}, {}), dataDir: ":memory:" },
    clock,
    redis: null,
    blobs: dbBlobStore(store),
    catalog,
  };
  const db = store.db;
  const user = (await db.insert(users).values({ email: "owner@example.test", name: "Owner" }).returning())[0];
  const mine = (await db.insert(companies).values({ name: "Acme" }).returning())[0];
  const other = (await db.insert(companies).values({ name: "Rival" }).returning())[0];
  await db.insert(memberships).values({ companyId: mine.id, userId: user.id, role: "owner" });
  // The key the world's actors use (held changes are applied as its requester, so it must exist and not be revoked).
  const key = (
    await db
      .insert(mcpKeys)
      .values({
        userId: user.id,
        name: "test key",
        hint: "svc_mcp_test",
        secretHash: "0".repeat(64),
        scopes: ["*"],
        companyIds: [mine.id],
      })
      .returning()
  )[0];
  const site = (await db.insert(sites).values({ companyId: mine.id, name: "Acme Shop" }).returning())[0];
  const site2 = (await db.insert(sites).values({ companyId: mine.id, name: "Acme Blog" }).returning())[0];
  const otherSite = (await db.insert(sites).values({ companyId: other.id, name: "Rival Shop" }).returning())[0];
  return {
    deps,
    clock,
    companyId: mine.id,
    otherCompanyId: other.id,
    siteId: site.id,
    site2Id: site2.id,
    otherSiteId: otherSite.id,
    ctx({ role = "owner", scopes = ["*"], company = "mine" } = {}) {
      const c = company === "mine" ? { id: mine.id, name: mine.name, role } : { id: other.id, name: other.name, role };
      return {
        deps,
        principal: {
          userId: user.id,
          credential: { kind: "mcp_key", id: key.id, name: "test key" },
          scopes,
          companies: [c],
          requireCmsApproval: false,
        },
        company: c,
        requestId: "test",
      };
    },
    async contentVersion(siteId) {
      return (await db.select({ v: sites.contentVersion }).from(sites).where(eq(sites.id, siteId)).limit(1))[0]!.v;
    },
    close: () => store.close(),
  };
}

/** Runs `fn` and returns the AppError it throws (fails the test when it does not throw). */
export async function errorOf(
  fn: () => unknown,
): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  try {
    await fn();
  } catch (e: any) {
    if (e?.name !== "AppError") throw e;
    return e;
  }
  throw new Error("expected an AppError, but the call succeeded");
}

/**
 * Calls a tool as the MCP adapter does after authentication: validate the
 * arguments with the tool's own schema, then run it. Scope and role are left
 * to the verb, so these tests prove the verbs check them themselves.
 */
export async function call(
  domain: Domain,
  ctx: ActorContext,
  name: string,
  args: Record<string, unknown>,
): Promise<any> {
  const tool = domain.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  const parsed = v.safeParse(tool.input, args);
  if (!parsed.success)
    throw new AppError("validation", parsed.issues.map((i) => `${v.getDotPath(i) ?? ""}: ${i.message}`).join("; "));
  return await tool.run(ctx, parsed.output);
}

/**
 * Approves a change the verbs held for a person (taking an active product
 * off sale, say), as a reviewer on the approval page would, and returns
 * what approving did.
 */
export async function approveHeld(
  w: World,
  held: { approval?: { token: string } },
): Promise<Record<string, unknown> | null> {
  if (!held.approval) throw new Error("expected the call to be held for approval");
  const o = await decideApproval(w.deps, { token: held.approval.token }, "approve", { decidedBy: "a reviewer" });
  if (!o.ok) throw new Error(o.message);
  return o.approval.result;
}
