/**
 * Integrations over a real server: an AI client connected through the real
 * OAuth flow (the MCP SDK's own client auth), SMTP, object storage and the
 * embeddings endpoint, each with health; revoking the OAuth connection ends
 * its tokens at once (the same SDK client is refused on its next call and
 * cannot refresh), or, when the connection also reaches another company,
 * takes only this company out of it. Plus the contribution point other
 * domains (webhooks) use.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { queueMail } from "../../src/core/mail";
import { mailOutbox } from "../../src/core/tables";
import type { IntegrationSource } from "../../src/domains/integrations/sources";
import { eq } from "drizzle-orm";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { row, rows, startTestServer, type TestServer } from "../harness";
import { Browser, consent, MemoryProvider, tokenRequest } from "../oauth/helpers";

const PASSWORD = "correct horse battery";
let s: TestServer;
let acme: { id: number; name: string };
let globex: { id: number; name: string };
let ana: { id: number };
let admin: Client;
let viewer: Client;
let stranger: Client;
let anaGlobex: Client;

async function ok(c: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await callTool(c, name, args);
  if (r.isError) throw new Error(`${name}: ${r.text}`);
  return r.data;
}

/** The SDK's own OAuth client through discovery, registration, consent (companies chosen) and the token exchange. */
async function connectOAuth(name: string, companies: number[]) {
  const mcpUrl = new URL("/api/mcp", s.config.publicUrl);
  const provider = new MemoryProvider("http://127.0.0.1:4999/callback", { name });
  const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
  await new Client({ name, version: "1.0.0" }).connect(first).catch(() => {});
  const browser = new Browser(s.config.publicUrl);
  expect((await browser.signIn("ana@example.test", PASSWORD)).status).toBe(303);
  const { response } = await consent(browser, provider.authorizationUrl!, {
    scopes: ["ai:read", "services:read"],
    companies,
  });
  await first.finishAuth(new URL(response.headers.get("location")!).searchParams);
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
  return { provider, client };
}

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  await s.jobs.stop();
  await s.dispatcher.stop();
  ana = await createUser(s.deps, { email: "ana@example.test", password: PASSWORD, name: "Ana" });
  const ad = await createUser(s.deps, { email: "adam@example.test", name: "Adam" });
  const vi = await createUser(s.deps, { email: "vera@example.test", name: "Vera" });
  const st = await createUser(s.deps, { email: "sam@rival.test", name: "Sam" });
  acme = await createCompany(s.deps, { name: "Acme", ownerUserId: ana.id });
  globex = await createCompany(s.deps, { name: "Globex", ownerUserId: ana.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: st.id });
  await addMember(s.deps, acme.id, ad.id, "admin");
  await addMember(s.deps, acme.id, vi.id, "viewer");
  admin = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: ad.id, scopes: ["integrations:write"], companyIds: [acme.id] })).key,
  );
  viewer = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: vi.id, scopes: ["*"], companyIds: [acme.id] })).key,
  );
  stranger = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: st.id, scopes: ["*"], companyIds: [rival.id] })).key,
  );
  anaGlobex = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: ana.id, scopes: ["integrations:read"], companyIds: [globex.id] })).key,
  );
}, 60_000);
afterAll(() => s.stop());

describe("listing with health", () => {
  test("an OAuth-connected AI client appears with its scopes, last use, last error and token expiry", async () => {
    const { client } = await connectOAuth("Claude Desktop", [acme.id]);
    s.clock.advance(2000);
    expect((await callTool(client as any, "ai_credits_balance")).isError).toBe(false);
    const failed = await callTool(client as any, "ai_conversations_get", { id: 424242 });
    expect(failed.isError).toBe(true);
    const list = await ok(admin, "integrations_list");
    const oauth = list.items.filter((x: any) => x.kind === "oauth_client");
    expect(oauth.length).toBe(1);
    const it = oauth[0];
    expect(it.name).toBe("Claude Desktop");
    expect(it.revocable).toBe(true);
    expect(it.detail.scopes.sort()).toEqual(["ai:read", "services:read"]);
    expect(it.detail.companyIds).toEqual([acme.id]);
    expect(it.health.lastSuccessAt).not.toBeNull();
    expect(it.health.lastError).toContain("ai_conversations_get: Not found");
    // The failed call came after the last recorded use: the connection is failing until it succeeds again.
    expect(it.status).toBe("failing");
    expect((await callTool(client as any, "ai_credits_balance")).isError).toBe(false);
    const healed = await ok(admin, "integrations_get", { id: it.id });
    expect(healed.status).toBe("active");
    expect(healed.health.lastError).toBe(it.health.lastError); // the last error stays visible
    const refresh = await row(
      s.deps,
      "SELECT expires_at FROM oauth_refresh_tokens WHERE client_id = ? AND used_at IS NULL",
      it.detail.clientId,
    );
    expect(new Date(it.health.expiresAt).getTime()).toBe(
      new Date(typeof refresh!.expires_at === "number" ? refresh!.expires_at : refresh!.expires_at).getTime(),
    );
    // Globex sees none of Acme's connection; another tenant neither.
    expect((await ok(anaGlobex, "integrations_list", { kind: "oauth_client" })).total).toBe(0);
    expect((await ok(stranger, "integrations_list", { kind: "oauth_client" })).total).toBe(0);
    const again = await ok(admin, "integrations_list");
    expect(again.items.map((x: any) => x.id)).toEqual(list.items.map((x: any) => x.id)); // ids are stable
  });

  test("SMTP reports this company's deliveries; object storage its background check; embeddings is not configured", async () => {
    let list = await ok(admin, "integrations_list", { kind: "smtp" });
    expect(list.items[0]).toMatchObject({ kind: "smtp", status: "not_configured", revocable: false });
    s.config.smtpUrl = "smtp://mail.example.test:587";
    const now = s.clock.now();
    const sent = await s.deps.db.transaction((tx) =>
      queueMail(tx, s.deps, { companyId: acme.id, to: ["a@x.test"], subject: "Hi", text: "Hi", tag: "test" }),
    );
    await s.deps.db
      .update(mailOutbox)
      .set({ status: "sent", sentAt: now, smtpResponse: "250 ok", updatedAt: now })
      .where(eq(mailOutbox.id, sent.id));
    list = await ok(admin, "integrations_list", { kind: "smtp" });
    expect(list.items[0].status).toBe("configured");
    expect(list.items[0].name).toBe("SMTP smtp://mail.example.test:587");
    expect(list.items[0].health.lastSuccessAt).toBe(now.toISOString());
    s.clock.advance(60_000);
    const bad = await s.deps.db.transaction((tx) =>
      queueMail(tx, s.deps, { companyId: acme.id, to: ["b@x.test"], subject: "Hi", text: "Hi", tag: "test" }),
    );
    await s.deps.db
      .update(mailOutbox)
      .set({ status: "failed", smtpResponse: "550 5.1.1 mailbox unavailable", updatedAt: s.clock.now() })
      .where(eq(mailOutbox.id, bad.id));
    list = await ok(admin, "integrations_list", { kind: "smtp" });
    expect(list.items[0].status).toBe("failing");
    expect(list.items[0].health.lastError).toBe("550 5.1.1 mailbox unavailable");
    // Another company's SMTP health does not show Acme's failures.
    expect((await ok(stranger, "integrations_list", { kind: "smtp" })).items[0].health.lastError).toBeNull();

    let storage = (await ok(admin, "integrations_list", { kind: "object_storage" })).items[0];
    expect(storage.health.lastSuccessAt).toBeNull();
    s.clock.advance(16 * 60_000);
    for (const o of await s.jobs.runDue()) if (!o.ok) throw new Error(o.error);
    storage = (await ok(admin, "integrations_list", { kind: "object_storage" })).items[0];
    expect(storage.status).toBe("configured");
    expect(storage.health.lastSuccessAt).toBe(s.clock.now().toISOString());
    expect(storage.detail.store).toBe(s.config.mediaStore);
    const keys: string[] = [];
    for await (const k of s.deps.blobs.keys("_health/")) keys.push(k);
    expect(keys).toEqual([]); // the probe cleans up after itself

    const emb = (await ok(admin, "integrations_list", { kind: "embeddings" })).items[0];
    expect(emb.status).toBe("not_configured");
    // Configured (the brain's hybrid search): the host shows, never credentials in the URL.
    s.deps.config.embeddingsUrl = "https://user:hunter2@emb.internal:8443/v1/embeddings";
    const set = (await ok(admin, "integrations_list", { kind: "embeddings" })).items[0];
    expect(set).toMatchObject({
      status: "configured",
      name: "Embeddings https://emb.internal:8443",
      detail: { host: "https://emb.internal:8443", model: s.deps.config.embeddingsModel },
    });
    expect(JSON.stringify(set)).not.toContain("hunter2");
    s.deps.config.embeddingsUrl = null;
    expect((await ok(admin, "integrations_list", { status: "failing" })).items.map((x: any) => x.kind).sort()).toEqual([
      "smtp",
    ]);
  });

  test("racing first lists give each integration one id", async () => {
    const fresh = await createCompany(s.deps, { name: "Fresh Co", ownerUserId: ana.id });
    const c = await mcpClient(
      s.url,
      (await mintMcpKey(s.deps, { userId: ana.id, scopes: ["integrations:read"], companyIds: [fresh.id] })).key,
    );
    const lists = await Promise.all(Array.from({ length: 10 }, () => ok(c, "integrations_list")));
    const ids = lists.map((l) =>
      l.items
        .map((x: any) => x.id)
        .sort((p: number, q: number) => p - q)
        .join(","),
    );
    expect(new Set(ids).size).toBe(1);
    expect((await rows(s.deps, "SELECT id FROM integrations WHERE company_id = ?", fresh.id)).length).toBe(
      lists[0].total,
    );
  });

  test("bad filters are refused clearly", async () => {
    const r = await callTool(admin, "integrations_list", { kind: "carrier_pigeon" });
    expect(r.isError).toBe(true);
    expect(r.text).toContain(
      'Unknown kind "carrier_pigeon"; kinds: booking_calendar, oauth_client, smtp, embeddings, object_storage, webhook',
    );
  });
});

describe("revoking", () => {
  test("revoking an OAuth connection ends its tokens at once: the SDK client is refused and cannot refresh", async () => {
    const { client, provider } = await connectOAuth("Cursor", [acme.id]);
    expect((await callTool(client as any, "ai_credits_balance")).isError).toBe(false);
    const it = (await ok(admin, "integrations_list", { kind: "oauth_client" })).items.find(
      (x: any) => x.name === "Cursor",
    );
    const refused = await callTool(viewer, "integrations_revoke", { id: it.id });
    expect(refused.text).toContain("Forbidden");
    const r = await ok(admin, "integrations_revoke", { id: it.id });
    expect(r).toEqual({ id: it.id, kind: "oauth_client", name: "Cursor", status: "revoked", effect: "revoked" });
    const after = await client.callTool({ name: "ai_credits_balance", arguments: {} }).then(
      () => "answered",
      (e: Error) => e.message,
    );
    expect(after).not.toBe("answered");
    const res = await tokenRequest(s.config.publicUrl, {
      grant_type: "refresh_token",
      refresh_token: provider.saved.refresh_token,
      client_id: provider.info.client_id,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_grant");
    const got = await ok(admin, "integrations_get", { id: it.id });
    expect(got).toMatchObject({ id: it.id, status: "revoked", revokedByUserId: expect.any(Number), health: null });
    expect((await ok(admin, "integrations_revoke", { id: it.id })).alreadyRevoked).toBe(true);
    const ev = await rows(
      s.deps,
      "SELECT data FROM events WHERE type = 'integration.revoked' AND entity_id = ?",
      it.id,
    );
    expect(ev.length).toBe(1);
    const audit = await rows(
      s.deps,
      "SELECT action FROM audit_log WHERE action = 'integrations.revoke' AND entity_id = ?",
      it.id,
    );
    expect(audit.length).toBe(1);
  });

  test("a connection that also reaches another company loses only this company", async () => {
    const { client } = await connectOAuth("Shared agent", [acme.id, globex.id]);
    const it = (await ok(admin, "integrations_list", { kind: "oauth_client" })).items.find(
      (x: any) => x.name === "Shared agent",
    );
    expect((await ok(admin, "integrations_revoke", { id: it.id })).effect).toBe("company_removed");
    const who = await callTool(client as any, "whoami");
    expect(who.data.clients.map((c: any) => c.id)).toEqual([globex.id]);
    expect((await callTool(client as any, "ai_credits_balance", { clientId: acme.id })).text).toContain(
      `clientId ${acme.id} is not a company this credential can act for`,
    );
    expect((await callTool(client as any, "ai_credits_balance", { clientId: globex.id })).isError).toBe(false);
    // Still listed for Globex, gone from Acme.
    expect(
      (await ok(anaGlobex, "integrations_list", { kind: "oauth_client" })).items.map((x: any) => x.name),
    ).toContain("Shared agent");
    expect(
      (await ok(admin, "integrations_list", { kind: "oauth_client" })).items.map((x: any) => x.name),
    ).not.toContain("Shared agent");
  });

  test("server settings cannot be revoked; other tenants' ids are not found", async () => {
    const smtp = (await ok(admin, "integrations_list", { kind: "smtp" })).items[0];
    const r = await callTool(admin, "integrations_revoke", { id: smtp.id });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("cannot be revoked here. SMTP is part of the server's configuration (PLINTH_SMTP_URL)");
    const foreign = await callTool(stranger, "integrations_get", { id: smtp.id });
    expect(foreign.text).toContain(`Integration ${smtp.id} not found`);
    const foreignRevoke = await callTool(stranger, "integrations_revoke", { id: smtp.id });
    expect(foreignRevoke.text).toContain("not found");
  });
});

describe("contribution point", () => {
  test("a domain's own integrations are listed and revoked through its source", async () => {
    const revoked: string[] = [];
    const source: IntegrationSource = {
      kind: "crm_sync",
      title: "CRM sync",
      list: async (_deps, companyId) =>
        revoked.includes("7") || companyId !== acme.id
          ? []
          : [
              {
                ref: "7",
                name: "https://hooks.example.test/plinth",
                status: "active",
                connectedAt: new Date(0),
                revocable: true,
                health: { lastSuccessAt: new Date(1000), lastErrorAt: null, lastError: null, expiresAt: null },
              },
            ],
      revoke: async (_ctx, ref) => {
        revoked.push(ref);
        return { effect: "disabled" };
      },
    };
    // A domain contributing a source is one more entry in the catalog's map (buildCatalog collects exactly these).
    const sources = s.deps.catalog.integrations as Map<string, IntegrationSource>;
    sources.set(source.kind, source);
    try {
      const hook = (await ok(admin, "integrations_list", { kind: "crm_sync" })).items[0];
      expect(hook).toMatchObject({
        kind: "crm_sync",
        kindTitle: "CRM sync",
        name: "https://hooks.example.test/plinth",
        health: { lastSuccessAt: "1970-01-01T00:00:01.000Z" },
      });
      expect((await ok(admin, "integrations_revoke", { id: hook.id })).effect).toBe("disabled");
      expect(revoked).toEqual(["7"]);
    } finally {
      sources.delete(source.kind);
    }
  });
});

describe("webhooks (contributed by the webhooks domain)", () => {
  test("each endpoint is listed with its delivery health, without the URL's query; revoking disables it and nothing else", async () => {
    const { webhookEndpoints } = await import("../../src/domains/automations/tables");
    const now = s.clock.now();
    const [hook, rival] = await s.deps.db
      .insert(webhookEndpoints)
      .values([
        {
          companyId: acme.id,
          url: "https://hooks.acme.example/plinth?token=s3cret",
          eventTypes: ["post.*"],
          secret: "whsec_x",
          status: "enabled",
          lastSuccessAt: new Date(now.getTime() - 60_000),
          lastFailureAt: now,
        },
        {
          companyId: globex.id,
          url: "https://globex.example/h",
          eventTypes: ["*"],
          secret: "whsec_y",
          status: "enabled",
        },
      ])
      .returning();
    const listed = (await ok(admin, "integrations_list", { kind: "webhook" })).items;
    expect(listed.length).toBe(1);
    const it = listed[0];
    expect(it).toMatchObject({
      kind: "webhook",
      name: "https://hooks.acme.example/plinth",
      status: "failing",
      revocable: true,
      detail: { webhookId: hook!.id, eventTypes: ["post.*"] },
    });
    expect(JSON.stringify(it)).not.toContain("s3cret");
    const r = await ok(admin, "integrations_revoke", { id: it.id });
    expect(r).toMatchObject({ id: it.id, kind: "webhook", effect: "disabled" });
    const after = await s.deps.db.select().from(webhookEndpoints);
    expect(after.find((e) => e.id === hook!.id)).toMatchObject({
      status: "disabled",
      disabledReason: "revoked through integrations",
    });
    expect(after.find((e) => e.id === rival!.id)!.status).toBe("enabled");
    expect((await ok(admin, "integrations_list", { kind: "webhook" })).items[0]).toMatchObject({
      status: "disabled",
      revocable: false,
    });
  });
});
