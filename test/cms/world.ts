// The domain list first: verbs that hold changes for approval read it (src/domains/approvals/registry.ts).
import "../../src/domains";
import { commits } from "../harness";
/**
 * A small world for CMS and approval tests, on one real server per test
 * file: an owner in company A with two sites, a viewer, a stranger company
 * B with its own site, and MCP credentials of each kind the tests need.
 *
 * @example
 * const s = await startTestServer({ seed: false });
 * const w = await makeWorld(s);
 * const r = await w.call(w.owner, "posts_create", { siteId: w.siteA, title: "Hi" });
 */
import type { Client } from "@modelcontextprotocol/client";
import { expect } from "bun:test";
import { sites } from "../../src/domains/sites/tables";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, rawMcp } from "../fixtures/accounts";
import type { TestServer } from "../harness";

export interface World {
  s: TestServer;
  ownerUserId: number;
  A: { id: number; name: string };
  B: { id: number; name: string };
  siteA: number;
  siteA2: number;
  siteB: number;
  /** "*" key of the owner of A. */
  owner: Client;
  ownerKeyId: number;
  /** "*" key of a user who is a viewer in A. */
  viewer: Client;
  /** Only read scopes (sites:read, media:read, approvals:read). */
  reader: Client;
  /** "*" with require_cms_approval: every sites/media write is staged. */
  gated: Client;
  gatedKey: string;
  gatedKeyId: number;
  /** "*" key of B's owner. */
  stranger: Client;
  /** "*" key of another admin of A: decides what the owner's agents asked for (a requester cannot). */
  colleague: Client;
  colleagueKeyId: number;
  call(c: Client, name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; data: any; text: string }>;
  /** Calls a tool that must succeed and returns its parsed result. */
  ok(c: Client, name: string, args?: Record<string, unknown>): Promise<any>;
  /** Calls a tool that must fail with isError and returns the message. */
  err(c: Client, name: string, args?: Record<string, unknown>): Promise<string>;
  /** Total rows changed in the database so far (to prove a refused call changed nothing). */
  changes(): number;
  /** The same approval URL on the address the test server really listens on. */
  local(url: string): string;
}

let counter = 0;

export async function makeWorld(s: TestServer): Promise<World> {
  const n = ++counter;
  const owner = await createUser(s.deps, { email: `owner${n}@cms.test`, name: "Olivia Owner" });
  const viewerUser = await createUser(s.deps, { email: `viewer${n}@cms.test`, name: "Vic Viewer" });
  const strangerUser = await createUser(s.deps, { email: `stranger${n}@cms.test`, name: "Sam Stranger" });
  const colleagueUser = await createUser(s.deps, { email: `colleague${n}@cms.test`, name: "Cory Colleague" });
  const A = await createCompany(s.deps, { name: `Acme ${n}`, ownerUserId: owner.id });
  const B = await createCompany(s.deps, { name: `Rival ${n}`, ownerUserId: strangerUser.id });
  await addMember(s.deps, A.id, viewerUser.id, "viewer");
  await addMember(s.deps, A.id, colleagueUser.id, "admin");
  const site = async (companyId: number, name: string) =>
    (await s.deps.db.insert(sites).values({ companyId, name }).returning({ id: sites.id }))[0].id;
  const siteA = await site(A.id, "Acme Coffee");
  const siteA2 = await site(A.id, "Acme Blog");
  const siteB = await site(B.id, "Rival Site");
  const ownerKey = await mintMcpKey(s.deps, { userId: owner.id, scopes: ["*"], companyIds: [A.id], name: "Agent key" });
  const viewerKey = await mintMcpKey(s.deps, {
    userId: viewerUser.id,
    scopes: ["*"],
    companyIds: [A.id],
    name: "Viewer key",
  });
  const readerKey = await mintMcpKey(s.deps, {
    userId: owner.id,
    scopes: ["sites:read", "media:read", "approvals:read"],
    companyIds: [A.id],
    name: "Reader",
  });
  const gated = await mintMcpKey(s.deps, {
    userId: owner.id,
    scopes: ["*"],
    companyIds: [A.id],
    requireCmsApproval: true,
    name: "Careful agent",
  });
  const strangerKey = await mintMcpKey(s.deps, {
    userId: strangerUser.id,
    scopes: ["*"],
    companyIds: [B.id],
    name: "Stranger key",
  });
  const colleagueKey = await mintMcpKey(s.deps, {
    userId: colleagueUser.id,
    scopes: ["*"],
    companyIds: [A.id],
    name: "Colleague key",
  });
  const [oc, vc, rc, gc, sc, cc] = await Promise.all([
    mcpClient(s.url, ownerKey.key),
    mcpClient(s.url, viewerKey.key),
    mcpClient(s.url, readerKey.key),
    mcpClient(s.url, gated.key),
    mcpClient(s.url, strangerKey.key),
    mcpClient(s.url, colleagueKey.key),
  ]);
  const call = (c: Client, name: string, args: Record<string, unknown> = {}) => callTool(c, name, args);
  return {
    s,
    ownerUserId: owner.id,
    A,
    B,
    siteA,
    siteA2,
    siteB,
    owner: oc,
    ownerKeyId: ownerKey.id,
    viewer: vc,
    reader: rc,
    gated: gc,
    gatedKey: gated.key,
    gatedKeyId: gated.id,
    stranger: sc,
    colleague: cc,
    colleagueKeyId: colleagueKey.id,
    call,
    async ok(c, name, args = {}) {
      const r = await call(c, name, args);
      if (r.isError) throw new Error(`${name} failed: ${r.text}`);
      return r.data;
    },
    async err(c, name, args = {}) {
      const r = await call(c, name, args);
      expect(r.isError).toBe(true);
      return r.text;
    },
    changes: () => commits(s.deps),
    local: (url: string) => {
      const u = new URL(url);
      return `${s.url}${u.pathname}${u.search}`;
    },
  };
}

/** Names of the tools a client sees in tools/list. */
export async function toolNames(c: Client): Promise<string[]> {
  return (await c.listTools()).tools.map((t) => t.name);
}

export { rawMcp };

/** A few blocks of every common kind, valid against the catalog. */
export const SAMPLE_BLOCKS = [
  { type: "heading", props: { text: "Single-origin espresso", level: 2 } },
  { type: "paragraph", props: { text: "Bright, sweet and roasted in small batches." } },
  { type: "list", props: { items: ["Ethiopia", "Colombia", "Kenya"], ordered: false } },
  {
    type: "columns",
    props: {},
    children: [
      { type: "column", props: { width: 6 }, children: [{ type: "paragraph", props: { text: "Left column text" } }] },
      {
        type: "column",
        props: { width: 6 },
        children: [{ type: "quote", props: { text: "Best decaf ever.", cite: "Priya" } }],
      },
    ],
  },
  { type: "button", props: { label: "Shop coffee", href: "/shop" } },
];
