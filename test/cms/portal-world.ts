/**
 * A real server for the CMS pages: Acme (owner Olga, admin Sam, viewer Vic)
 * with two sites — Harbor Coffee on www.harbor.test, and a docs site with
 * no domain yet — whose posts an agent drafted over MCP and people decided
 * on their approval links: a published blog post and a published page, a
 * post scheduled for two days ahead, one rejected, and two awaiting
 * approval (one with a hostile title). Rival (owner Rita) has a site and a
 * post of its own. Posts are drafted over MCP with a real SDK client, as an
 * agent would; decisions go through the approvals verb, as the approval
 * page does.
 */
import type { Client } from "@modelcontextprotocol/client";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { createSite } from "../../src/domains/sites/verbs";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

export const PASSWORD = "a long passphrase for tests";
export const XSS_TITLE = `<script>alert(1)</script> "><img src=x onerror=alert(2)>`;
const DAY = 86_400_000;

export interface CmsWorld {
  s: TestServer;
  olga: Client;
  rita: Client;
  sites: { harbor: number; docs: number; rival: number };
  posts: {
    published: number;
    page: number;
    scheduled: number;
    rejected: number;
    pending: number;
    hostile: number;
    docsDraft: number;
    rival: number;
  };
  /** When the scheduled post goes live. */
  goesLive: string;
}

export async function cmsWorld(): Promise<CmsWorld> {
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
  const harbor = await createSite(s.deps, { companyId: acme.id, name: "Harbor Coffee" });
  const docs = await createSite(s.deps, { companyId: acme.id, name: "Docs" });
  const rivalSite = await createSite(s.deps, { companyId: rival.id, name: "Rival site" });
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [companyId] })).key;
  const o = await mcpClient(s.url, await key(olga.id, acme.id));
  const r = await mcpClient(s.url, await key(rita.id, rival.id));
  const call = (name: string, args: Record<string, unknown>, c = o) => toolOk(c, name, args);
  await call("site_domains_add", { siteId: harbor.id, hostname: "www.harbor.test" });

  const blocks = [{ type: "paragraph", props: { text: "Roasted in small batches." } }];
  const draft = (siteId: number, title: string, extra: Record<string, unknown> = {}, c = o) =>
    call("posts_create", { siteId, title, blocks, ...extra }, c) as Promise<{
      id: number;
      approval: { token: string };
    }>;
  const decide = async (token: string, decision: "approve" | "reject") => {
    const out = await decideApproval(s.deps, { token }, decision, { decidedBy: "Rita Reviewer" });
    if (!out.ok) throw new Error(out.message);
  };
  const published = await draft(harbor.id, "Spring menu");
  await decide(published.approval.token, "approve");
  const page = await draft(harbor.id, "About us", { postType: "page" });
  await decide(page.approval.token, "approve");
  const goesLive = new Date(s.clock.now().getTime() + 2 * DAY).toISOString();
  const scheduled = await draft(harbor.id, "Winter menu");
  const sch = await call("posts_schedule", { siteId: harbor.id, id: scheduled.id, at: goesLive });
  await decide(sch.approval?.token ?? scheduled.approval.token, "approve");
  const rejected = await draft(harbor.id, "Free coffee forever");
  await decide(rejected.approval.token, "reject");
  const pending = await draft(harbor.id, "Holiday opening hours", { postType: "page" });
  const hostile = await draft(harbor.id, XSS_TITLE);
  const docsDraft = await draft(docs.id, "Getting started");
  await decide(docsDraft.approval.token, "approve");
  const rivalPost = await draft(rivalSite.id, "Rival secret post", {}, r);
  return {
    s,
    olga: o,
    rita: r,
    sites: { harbor: harbor.id, docs: docs.id, rival: rivalSite.id },
    posts: {
      published: published.id,
      page: page.id,
      scheduled: scheduled.id,
      rejected: rejected.id,
      pending: pending.id,
      hostile: hostile.id,
      docsDraft: docsDraft.id,
      rival: rivalPost.id,
    },
    goesLive,
  };
}
