/**
 * interface.md §1: "A human reviewer must approve the link before the change
 * goes live." The user who asked, through any of their agent credentials,
 * cannot approve or reject it over MCP; another member with approvals:manage
 * can, and the asking person still decides in the portal or on the page.
 * A matrix over entity links and staged changes alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { randomHex, sha256Hex } from "../../src/core/secrets";
import { oauthTokens } from "../../src/domains/accounts/tables";
import { addMember, callTool, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { makeWorld, type World } from "../cms/world";
import { startTestServer, type TestServer } from "../harness";

let s: TestServer;
let w: World;
let sameUserOtherKey: Client;
let sameUserOauth: Client;
let colleague: Client;
let colleagueGated: Client;
let _viewer: Client;

async function oauthClient(userId: number, companyIds: number[]): Promise<Client> {
  const token = `svc_oauth_${randomHex(32)}`;
  await s.deps.db.insert(oauthTokens).values({
    tokenHash: sha256Hex(token),
    familyId: randomHex(8),
    clientId: "https://client.example/meta.json",
    userId,
    scopes: ["*"],
    companyIds,
    resource: `${s.config.publicUrl}/api/mcp`,
    expiresAt: new Date(s.clock.ms() + 3_600_000),
    createdAt: s.clock.now(),
  });
  return mcpClient(s.url, token);
}

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  sameUserOtherKey = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: w.ownerUserId, scopes: ["approvals:manage"], companyIds: [w.A.id] })).key,
  );
  sameUserOauth = await oauthClient(w.ownerUserId, [w.A.id]);
  const other = await createUser(s.deps, { email: "colleague@self.test", name: "Cole League" });
  await addMember(s.deps, w.A.id, other.id, "admin");
  colleague = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: other.id, scopes: ["*"], companyIds: [w.A.id] })).key,
  );
  colleagueGated = await mcpClient(
    s.url,
    (
      await mintMcpKey(s.deps, {
        userId: other.id,
        scopes: ["*"],
        companyIds: [w.A.id],
        requireCmsApproval: true,
      })
    ).key,
  );
});
afterAll(async () => {
  await s?.stop();
});

const draft = async (title: string) =>
  (await w.ok(w.owner, "posts_create", { siteId: w.siteA, title })).approval.id as number;
const staged = async (label: string) =>
  (await w.ok(w.gated, "nav_items_create", { siteId: w.siteA, label, href: "/x" })).approval.id as number;

describe("the requester's own agent credentials cannot decide", () => {
  for (const [kind, make] of [
    ["an entity link (a drafted post)", draft],
    ["a staged change (require_cms_approval)", staged],
  ] as const) {
    test(`${kind}: same key, another key, an OAuth token of the same user: refused; nothing decided`, async () => {
      const asker = kind.startsWith("a staged") ? () => w.gated : () => w.owner;
      for (const [who, client] of [
        ["the same key", asker()],
        ["another key of the same user", sameUserOtherKey],
        ["an OAuth token of the same user", sameUserOauth],
      ] as const) {
        const id = await make(`${kind} via ${who}`);
        for (const tool of ["approvals_approve", "approvals_reject"]) {
          const r = await callTool(client, tool, { id });
          expect({ who, tool, isError: r.isError }).toEqual({ who, tool, isError: true });
          expect(r.text).toContain("a person decides it on the approval page");
        }
        expect((await w.ok(w.owner, "approvals_get", { id })).status).toBe("pending");
      }
    });
  }
  test("another member with approvals:manage may decide over MCP; a viewer may not", async () => {
    const id = await draft("For a colleague");
    expect((await callTool(w.viewer, "approvals_approve", { id })).text).toStartWith("Forbidden");
    const r = await callTool(colleague, "approvals_approve", { id });
    expect(r.isError).toBe(false);
    expect(r.data.status).toBe("approved");
    const id2 = await staged("Staged for a colleague");
    expect((await callTool(colleague, "approvals_reject", { id: id2, comment: "not now" })).data.status).toBe(
      "rejected",
    );
  });
  test("another member's require_cms_approval credential cannot approve someone else's request either", async () => {
    for (const id of [await draft("Gated colleague, entity"), await staged("Gated colleague, staged")]) {
      const r = await callTool(colleagueGated, "approvals_approve", { id });
      expect(r.isError).toBe(true);
      expect(r.text).toContain("own changes need approval, so it cannot approve requests");
      expect((await w.ok(w.owner, "approvals_get", { id })).status).toBe("pending");
      // The same member's ordinary key may: the refusal is the credential's, not the person's.
      expect((await callTool(colleague, "approvals_approve", { id })).data.status).toBe("approved");
    }
  });
});
