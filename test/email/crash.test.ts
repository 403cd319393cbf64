/**
 * Killing Plinth in the middle of a campaign: `plinth serve` runs as a real
 * child process sending to the loopback SMTP server in this test; it is
 * killed with SIGKILL (no shutdown code runs) once part of the audience has
 * its message, then started again on the same data. The campaign completes
 * and every recipient got the campaign exactly once: one Message-ID per
 * recipient, and at most the single message in flight at the kill repeated
 * (with that same Message-ID, which receivers use to drop the copy; SMTP
 * cannot tell a client whether its "250" arrived).
 */
import { catalog } from "../../src/catalog";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import "../../src/domains";
import { loadConfig } from "../../src/config";
import { dbBlobStore } from "../../src/core/blobs-db";
import { systemClock } from "../../src/core/clock";
import type { ActorContext, Deps } from "../../src/core/context";
import type { Store } from "../../src/core/db";
import { openStore } from "../../src/core/open";
import { companies, mcpKeys, memberships, users } from "../../src/domains/accounts/tables";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { emailCampaigns, emailSends } from "../../src/domains/email/tables";
import { emailDomain } from "../../src/domains/email/tools";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "../db";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { childEnv, collectLines, MAIN, ROOT } from "../ops/child";
import { call } from "../store/world";

const N = 60;
let smtp: TestSmtp;
let dataDir: string;
let databaseUrl: string | null;

beforeAll(async () => {
  smtp = await startSmtp();
  dataDir = mkdtempSync(join(tmpdir(), "plinth-email-crash-"));
  databaseUrl = ON_PG ? await freshDatabaseUrl() : null;
});
afterAll(async () => {
  await smtp.stop();
  rmSync(dataDir, { recursive: true, force: true });
  await dropDatabase(databaseUrl);
});

function depsFor(store: Store): Deps {
  const config = {
    ...loadConfig({}, {}),
    dataDir,
    databaseUrl,
    smtpUrl: smtp.url(),
    mailFrom: "News <news@acme.test>",
    publicUrl: "http://localhost:1",
  };
  return { store, db: store.db, config, clock: systemClock, redis: null, blobs: dbBlobStore(store), catalog };
}

// The campaign's messages only: the server also mails its owner (notifications, digests) from other domains.
const campaignMail = () => smtp.messages.filter((m) => /^k\d+@example\.com$/.test(m.envelope.to[0] ?? ""));

function serve() {
  const proc = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0", "--data-dir", dataDir], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: childEnv({
      PLINTH_DATABASE_URL: databaseUrl ?? undefined,
      PLINTH_SMTP_URL: smtp.url(),
      PLINTH_MAIL_FROM: "News <news@acme.test>",
      PLINTH_LOG: "off",
    }),
  });
  const out: string[] = [];
  void collectLines(proc.stdout as ReadableStream<Uint8Array>, out);
  void collectLines(proc.stderr as ReadableStream<Uint8Array>, out);
  return { proc, out };
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms: number) {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

test("SIGKILL mid-send, restart: the campaign completes and each recipient has it exactly once", async () => {
  // Everything up to "send" through the verbs, on the data the child will serve.
  let store = openStore({ dataDir, databaseUrl });
  await store.migrate();
  const deps = depsFor(store);
  const user = (await deps.db.insert(users).values({ email: "owner@acme.test", name: "Owner" }).returning())[0]!;
  const company = (await deps.db.insert(companies).values({ name: "Acme" }).returning())[0]!;
  await deps.db.insert(memberships).values({ companyId: company.id, userId: user.id, role: "owner" });
  const key = (
    await deps.db
      .insert(mcpKeys)
      .values({
        userId: user.id,
        name: "k",
        hint: "svc_mcp_x",
        secretHash: "1".repeat(64),
        scopes: ["*"],
        companyIds: [company.id],
      })
      .returning()
  )[0]!;
  const ctx: ActorContext = {
    deps,
    principal: {
      userId: user.id,
      credential: { kind: "mcp_key", id: key.id, name: "k" },
      scopes: ["*"],
      companies: [{ id: company.id, name: "Acme", role: "owner" }],
      requireCmsApproval: false,
    },
    company: { id: company.id, name: "Acme", role: "owner" },
    requestId: "crash",
  };
  const t = (name: string, args: Record<string, unknown>) => call(emailDomain, ctx, name, args);
  const list = await t("email_lists_create", { name: "News", optIn: "single" });
  await t("email_subscribers_import", {
    listIds: [list.id],
    rows: Array.from({ length: N }, (_, i) => ({ email: `k${i}@example.com`, name: `K ${i}` })),
  });
  const c = await t("email_campaigns_create", {
    name: "Crash",
    subject: "Hello {{ name }}",
    html: "<p>Hi</p>",
    listIds: [list.id],
    ratePerMinute: 600,
  });
  const o = await decideApproval(deps, { token: c.approval.token }, "approve", { decidedBy: "Rita" });
  expect(o.ok).toBe(true);
  await t("email_campaigns_send", { id: c.id });
  await store.close();

  const first = serve();
  await until("a third of the campaign", () => campaignMail().length >= N / 3, 60_000);
  first.proc.kill("SIGKILL");
  await first.proc.exited;
  const atKill = campaignMail().length;
  expect(atKill).toBeLessThan(N);

  const second = serve();
  try {
    store = openStore({ dataDir, databaseUrl });
    const read = depsFor(store);
    await until(
      "the campaign to finish",
      async () =>
        (
          await read.db
            .select({ status: emailCampaigns.status })
            .from(emailCampaigns)
            .where(eq(emailCampaigns.id, c.id))
        )[0]?.status === "sent",
      150_000,
    );
    const byRecipient = new Map<string, Set<string>>();
    const others = smtp.messages.filter((m) => !campaignMail().includes(m)).map((m) => m.envelope.to.join(","));
    expect(others.every((to) => to === "owner@acme.test")).toBe(true);
    for (const m of campaignMail()) {
      const id = /\r\nMessage-ID: (<[^>]+>)/i.exec(`\r\n${m.raw}`)![1]!;
      const to = m.envelope.to[0]!;
      if (!byRecipient.has(to)) byRecipient.set(to, new Set());
      byRecipient.get(to)!.add(id);
    }
    expect(byRecipient.size).toBe(N);
    for (const ids of byRecipient.values()) expect(ids.size).toBe(1);
    expect(campaignMail().length).toBeLessThanOrEqual(N + 1);
    const rows = await read.db
      .select({ status: emailSends.status })
      .from(emailSends)
      .where(eq(emailSends.campaignId, c.id));
    expect(rows).toHaveLength(N);
    expect(rows.every((r) => r.status === "sent")).toBe(true);
    await store.close();
  } finally {
    second.proc.kill("SIGTERM");
    await second.proc.exited;
  }
}, 240_000);
