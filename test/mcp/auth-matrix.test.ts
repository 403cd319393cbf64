/**
 * The auth matrix: credential state × scope set × role × company case, each
 * checked through tools/list, a read call (service_catalog_list) and a write
 * call (service_requests_create) over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { randomHex, sha256Hex } from "../../src/core/secrets";
import { mcpKeys } from "../../src/domains/accounts/tables";
import { addCatalogService } from "../../src/domains/services/verbs";
import { oauthTokens } from "../../src/domains/accounts/tables";
import { row, startTestServer, type TestServer } from "../harness";
import {
  addMember,
  createCompany,
  createUser,
  mintMcpKey,
  rawMcp,
  removeMember,
  revokeMcpKey,
} from "../fixtures/accounts";

let s: TestServer;
let userId: number;
const co: Record<"A" | "B" | "C" | "D", { id: number; name: string }> = {} as any;
const svc: Record<string, number> = {};

const READ = "service_catalog_list";
const WRITE = "service_requests_create";

type Outcome =
  | "ok"
  | "unauthorized"
  | "unknown"
  | "needs-scope"
  | "forbidden"
  | "needs-client"
  | "no-company"
  | "refused-client"
  | "not-found";

async function rpc(token: string, method: string, params: Record<string, unknown> = {}) {
  const r = await rawMcp(s.url, token, { jsonrpc: "2.0", id: 1, method, params });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

async function outcome(
  token: string,
  name: string,
  args: Record<string, unknown>,
): Promise<{ o: Outcome; text: string; data: any }> {
  const { status, body } = await rpc(token, "tools/call", { name, arguments: args });
  if (status === 401) return { o: "unauthorized", text: "", data: null };
  if (body.error) {
    if (body.error.message.startsWith("Unknown tool")) return { o: "unknown", text: body.error.message, data: null };
    if (body.error.code === -32602 && body.error.message.startsWith(`${name} needs the `))
      return { o: "needs-scope", text: body.error.message, data: null };
    throw new Error(`unexpected protocol error ${JSON.stringify(body.error)}`);
  }
  const text: string = body.result.content[0].text;
  if (!body.result.isError) return { o: "ok", text, data: JSON.parse(text) };
  if (text.startsWith("Forbidden")) return { o: "forbidden", text, data: null };
  if (text.startsWith("Not found")) return { o: "not-found", text, data: null };
  if (text.startsWith("clientId is required")) return { o: "needs-client", text, data: null };
  if (text.includes("cannot act for any company")) return { o: "no-company", text, data: null };
  if (/^clientId \S+ is not a company/.test(text)) return { o: "refused-client", text, data: null };
  throw new Error(`unexpected tool error: ${text}`);
}

async function listed(token: string): Promise<string[] | "unauthorized"> {
  const { status, body } = await rpc(token, "tools/list");
  if (status === 401) return "unauthorized";
  return body.result.tools.map((t: any) => t.name);
}

async function insertOauth(opts: {
  scopes: string[];
  companyIds: number[];
  expiresInMs?: number;
  revoked?: boolean;
  resource?: string | null;
}) {
  const token = `svc_oauth_${randomHex(32)}`;
  const now = s.clock.now();
  const row = (
    await s.deps.db
      .insert(oauthTokens)
      .values({
        tokenHash: sha256Hex(token),
        familyId: randomHex(8),
        clientId: "https://client.example/meta.json",
        userId,
        scopes: opts.scopes,
        companyIds: opts.companyIds,
        resource: opts.resource === undefined ? `${s.config.publicUrl}/api/mcp` : opts.resource,
        // The full listing, as the fixture's keys have (listing modes: test/mcp/listing.test.ts).
        listingMode: "full",
        expiresAt: new Date(now.getTime() + (opts.expiresInMs ?? 3600_000)),
        revokedAt: opts.revoked ? now : null,
        createdAt: now,
      })
      .returning({ id: oauthTokens.id })
  )[0];
  return { token, id: row.id };
}

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  userId = (await createUser(s.deps, { email: "matrix@plinth.test" })).id;
  const other = await createUser(s.deps, { email: "other@plinth.test" });
  co.A = await createCompany(s.deps, { name: "Alpha", ownerUserId: userId }); // owner
  co.B = await createCompany(s.deps, { name: "Bravo" });
  await addMember(s.deps, co.B.id, userId, "admin");
  co.C = await createCompany(s.deps, { name: "Charlie" });
  await addMember(s.deps, co.C.id, userId, "viewer");
  co.D = await createCompany(s.deps, { name: "Delta (foreign)", ownerUserId: other.id }); // not ours
  for (const k of ["A", "B", "C", "D"] as const)
    svc[k] = (await addCatalogService(s.deps, { companyId: co[k].id, name: `Service of ${co[k].name}` })).id;
});
afterAll(() => s.stop());

describe("credential states", () => {
  test("valid key: list, read and write all work", async () => {
    const { key } = await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.A.id] });
    expect(await listed(key)).toContain(WRITE);
    expect((await outcome(key, READ, {})).o).toBe("ok");
    expect((await outcome(key, WRITE, { serviceId: svc.A })).o).toBe("ok");
  });

  test("revoked key: 401 from the next request on", async () => {
    const { key, id } = await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.A.id] });
    expect((await outcome(key, READ, {})).o).toBe("ok");
    await revokeMcpKey(s.deps, id);
    expect(await listed(key)).toBe("unauthorized");
    expect((await outcome(key, READ, {})).o).toBe("unauthorized");
    expect((await outcome(key, WRITE, { serviceId: svc.A })).o).toBe("unauthorized");
  });

  test("expired key: works until its expiry, 401 at and after it", async () => {
    const expiresAt = new Date(s.clock.ms() + 60_000);
    const { key } = await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.A.id], expiresAt });
    expect((await outcome(key, READ, {})).o).toBe("ok");
    s.clock.set(expiresAt);
    expect(await listed(key)).toBe("unauthorized");
    expect((await outcome(key, WRITE, { serviceId: svc.A })).o).toBe("unauthorized");
  });

  test("wrong prefix, wrong length, wrong case, stray whitespace: 401", async () => {
    const { key } = await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.A.id] });
    const hex = key.slice("svc_mcp_".length);
    for (const bad of [
      `svc_live_${hex}`,
      `svc_oauth_${hex}`,
      `svc_mcp${hex}`,
      `${key}0`,
      key.slice(0, -1),
      `svc_mcp_${hex.toUpperCase()}`,
      `svc_mcp_${hex.slice(0, -1)}g`,
    ]) {
      expect(await listed(bad)).toBe("unauthorized");
    }
    expect(await listed(key)).toContain(READ); // the real one still works
  });

  test("OAuth access token inserted into oauth_tokens resolves to the same context", async () => {
    const { token, id } = await insertOauth({ scopes: ["services:read"], companyIds: [co.A.id, co.B.id] });
    expect(await listed(token)).toEqual([
      "service_catalog_get",
      "service_catalog_list",
      "service_requests_list",
      "whoami",
    ]);
    const who = await outcome(token, "whoami", {});
    expect(who.data.clients).toEqual([
      { id: co.A.id, company: "Alpha", role: "owner" },
      { id: co.B.id, company: "Bravo", role: "admin" },
    ]);
    expect(who.data.scopes).toEqual(["services:read"]);
    expect((await outcome(token, READ, { clientId: co.B.id })).data.services[0].name).toBe("Service of Bravo");
    expect((await outcome(token, WRITE, { clientId: co.B.id, serviceId: svc.B })).o).toBe("needs-scope");
    const row = (await s.deps.db.select().from(oauthTokens).where(eq(oauthTokens.id, id)).limit(1))[0]!;
    expect(row.lastUsedAt?.getTime()).toBe(s.clock.ms());
  });

  test("OAuth token revoked, expired, or bound to another resource: 401", async () => {
    const revoked = (await insertOauth({ scopes: ["*"], companyIds: [co.A.id], revoked: true })).token;
    const expired = (await insertOauth({ scopes: ["*"], companyIds: [co.A.id], expiresInMs: -1 })).token;
    const elsewhere = (
      await insertOauth({ scopes: ["*"], companyIds: [co.A.id], resource: "https://other.example/api/mcp" })
    ).token;
    const unbound = (await insertOauth({ scopes: ["*"], companyIds: [co.A.id], resource: null })).token;
    for (const t of [revoked, expired, elsewhere]) expect(await listed(t)).toBe("unauthorized");
    expect(await listed(unbound)).toContain(WRITE);
  });

  test("last-used time: written on use, coalesced within a second", async () => {
    const { key, id } = await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.A.id] });
    const lastUsed = async () =>
      (await s.deps.db.select().from(mcpKeys).where(eq(mcpKeys.id, id)).limit(1))[0]!.lastUsedAt?.getTime() ?? null;
    expect(await lastUsed()).toBeNull();
    const t0 = s.clock.ms();
    await listed(key);
    expect(await lastUsed()).toBe(t0);
    s.clock.advance(500);
    await listed(key);
    expect(await lastUsed()).toBe(t0); // coalesced
    s.clock.advance(600);
    await listed(key);
    expect(await lastUsed()).toBe(t0 + 1100);
  });
});

describe("scope set × role (one company per key)", () => {
  const scopeSets: { scopes: string[]; read: boolean; write: boolean }[] = [
    { scopes: ["*"], read: true, write: true },
    { scopes: ["services:*"], read: true, write: true },
    { scopes: ["services:write"], read: true, write: true }, // write implies read
    { scopes: ["services:read"], read: true, write: false },
    { scopes: ["crm:*", "profile:read"], read: false, write: false }, // nothing of services
  ];
  const roles = [
    { company: "A", role: "owner", canWrite: true },
    { company: "B", role: "admin", canWrite: true },
    { company: "C", role: "viewer", canWrite: false },
  ] as const;

  for (const set of scopeSets)
    for (const r of roles)
      test(`${set.scopes.join(" ")} as ${r.role}`, async () => {
        const c = co[r.company];
        const { key } = await mintMcpKey(s.deps, { userId, scopes: set.scopes, companyIds: [c.id] });
        const names = (await listed(key)) as string[];
        expect(names).toContain("whoami");
        expect(names.includes(READ)).toBe(set.read);
        expect(names.includes(WRITE)).toBe(set.write);

        const read = await outcome(key, READ, {});
        expect(read.o).toBe(set.read ? "ok" : "needs-scope");
        if (set.read) expect(read.data.services.map((x: any) => x.id)).toEqual([svc[r.company]]);

        const write = await outcome(key, WRITE, { serviceId: svc[r.company], details: "matrix" });
        const expected: Outcome = !set.write ? "needs-scope" : r.canWrite ? "ok" : "forbidden";
        expect(write.o).toBe(expected);
        if (expected === "forbidden") expect(write.text).toContain(`Your role in ${c.name} is viewer`);
        if (expected === "ok")
          expect(write.data).toEqual({ id: expect.any(Number), serviceId: svc[r.company], status: "open" });
      });

  test("an OAuth token with no scopes at all sees only whoami", async () => {
    const { token } = await insertOauth({ scopes: [], companyIds: [co.A.id] });
    expect(await listed(token)).toEqual(["whoami"]);
    expect((await outcome(token, READ, {})).o).toBe("needs-scope");
    expect((await outcome(token, "whoami", {})).o).toBe("ok");
  });
});

describe("company cases", () => {
  test("several companies: clientId required, listed with id, name and role; no default applied", async () => {
    const { key } = await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.A.id, co.B.id, co.C.id] });
    const before = (await row(s.deps, "SELECT count(*) AS n FROM service_requests")) as { n: number };
    for (const name of [READ, WRITE]) {
      const r = await outcome(key, name, { serviceId: svc.A });
      expect(r.o).toBe("needs-client");
      expect(r.text).toContain("can act for 3 companies");
      expect(r.text).toContain(`${co.A.id} "Alpha" (owner)`);
      expect(r.text).toContain(`${co.B.id} "Bravo" (admin)`);
      expect(r.text).toContain(`${co.C.id} "Charlie" (viewer)`);
    }
    const after = (await row(s.deps, "SELECT count(*) AS n FROM service_requests")) as { n: number };
    expect(after.n).toBe(before.n);
    const who = await outcome(key, "whoami", {});
    expect(who.data.client).toEqual({ id: co.A.id, company: "Alpha" });
    expect(who.data.defaultClientId).toBe(co.A.id);
    expect((await outcome(key, READ, { clientId: co.B.id })).data.services[0].id).toBe(svc.B);
    expect((await outcome(key, WRITE, { clientId: co.B.id, serviceId: svc.B })).o).toBe("ok");
    expect((await outcome(key, WRITE, { clientId: co.C.id, serviceId: svc.C })).o).toBe("forbidden");
    // Role is per company: the same key may write to Bravo but not Charlie.
  });

  test("one company: clientId optional, and naming it explicitly works too", async () => {
    const { key } = await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.B.id] });
    expect((await outcome(key, READ, {})).data.company.id).toBe(co.B.id);
    expect((await outcome(key, READ, { clientId: co.B.id })).data.company.id).toBe(co.B.id);
  });

  test("foreign and nonexistent clientId get the same refusal, and no data of the foreign company", async () => {
    const { key } = await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.A.id, co.B.id] });
    const foreign = await outcome(key, READ, { clientId: co.D.id });
    const missing = await outcome(key, READ, { clientId: 987654 });
    const notSelected = await outcome(key, READ, { clientId: co.C.id }); // member, but not selected by this key
    expect(foreign.o).toBe("refused-client");
    expect(foreign.text.replace(String(co.D.id), "N")).toBe(missing.text.replace("987654", "N"));
    expect(notSelected.text.replace(String(co.C.id), "N")).toBe(missing.text.replace("987654", "N"));
    expect(foreign.text).not.toContain("Delta");
    // A service id of the foreign company, from a company we can reach: not found, no name leaked.
    const w = await outcome(key, "service_catalog_get", { clientId: co.A.id, serviceId: svc.D });
    expect(w.o).toBe("not-found");
    expect(w.text).not.toContain("Delta");
    const req = await outcome(key, WRITE, { clientId: co.A.id, serviceId: svc.D });
    expect(req.o).toBe("not-found");
  });

  test("a key cannot be minted for a company the user does not belong to", () => {
    expect(async () => await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.D.id] })).toThrow(
      /not a member/,
    );
  });

  test("membership removed mid-test: access to that company ends on the next request", async () => {
    const { key } = await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.A.id, co.B.id] });
    expect((await outcome(key, READ, { clientId: co.B.id })).o).toBe("ok");
    await removeMember(s.deps, co.B.id, userId);
    try {
      expect((await outcome(key, READ, { clientId: co.B.id })).o).toBe("refused-client");
      const who = await outcome(key, "whoami", {});
      expect(who.data.clients.map((c: any) => c.id)).toEqual([co.A.id]);
      // Now a single-company connection: clientId becomes optional and means Alpha.
      expect((await outcome(key, READ, {})).data.company.id).toBe(co.A.id);
    } finally {
      await addMember(s.deps, co.B.id, userId, "admin");
    }
    expect((await outcome(key, READ, { clientId: co.B.id })).o).toBe("ok");
  });

  test("zero reachable companies: whoami works, everything else is refused clearly", async () => {
    const { key } = await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.C.id] });
    await removeMember(s.deps, co.C.id, userId);
    try {
      const who = await outcome(key, "whoami", {});
      expect(who.data).toEqual({
        userId,
        client: null,
        defaultClientId: null,
        clients: [],
        scopes: ["*"],
        listing: expect.objectContaining({ mode: "full", source: "credential" }),
      });
      expect((await outcome(key, READ, {})).o).toBe("no-company");
      expect((await outcome(key, WRITE, { serviceId: svc.C })).o).toBe("no-company");
      expect((await outcome(key, READ, { clientId: co.C.id })).o).toBe("no-company");
      const res = await rpc(key, "resources/list");
      expect(res.body.result.resources.map((r: any) => r.uri)).toEqual([
        // Company-free: the guides and the automation shapes come from the code, not from a company's data.
        "automations://actions",
        "automations://events",
        "blocks://schema",
        "docs://automations",
        "docs://webhooks",
      ]);
    } finally {
      await addMember(s.deps, co.C.id, userId, "viewer");
    }
  });
});
