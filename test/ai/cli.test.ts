/**
 * The agency grants credits and sets budgets from the command line (real
 * processes on a running server's data); the company's agent reads the
 * result over MCP.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { afterForeignWrite, rows, startTestServer, storeEnv, type TestServer } from "../harness";

const root = join(import.meta.dir, "../..");
let s: TestServer;
let companyId: number;
let agent: Client;

function plinth(...args: string[]) {
  const p = Bun.spawnSync([process.execPath, join(root, "src/main.ts"), ...args, "--data-dir", s.dataDir], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: storeEnv(s.config),
  });
  return { code: p.exitCode, out: p.stdout.toString().trim(), err: p.stderr.toString().trim() };
}

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  const u = await createUser(s.deps, { email: "grace@agency.test", name: "Grace" });
  companyId = (await createCompany(s.deps, { name: "Cli Co", ownerUserId: u.id })).id;
  agent = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: u.id, scopes: ["ai:read"], companyIds: [companyId] })).key,
  );
});
afterAll(() => s.stop());

test("credits grant / budget / balance", async () => {
  const g = plinth(
    "credits",
    "grant",
    "--company",
    String(companyId),
    "--amount",
    "250",
    "--note",
    "Welcome pack",
    "--by",
    "grace@agency.test",
  );
  expect(g.err).toContain("Granted 250 credits");
  expect(g.code).toBe(0);
  expect(g.out).toBe("250");
  expect(plinth("credits", "grant", "--company", String(companyId), "--amount", "0").code).toBe(2);
  expect(plinth("credits", "grant", "--company", String(companyId), "--amount", "12.5").err).toContain(
    "--amount must be a whole number",
  );
  const b = plinth(
    "credits",
    "budget",
    "--company",
    String(companyId),
    "--monthly",
    "100",
    "--thresholds",
    "75,100",
    "--hard",
  );
  expect(b.code).toBe(0);
  expect(JSON.parse(b.out)).toMatchObject({ monthlyLimit: 100, spent: 0, thresholds: [75, 100], hard: true });
  expect(JSON.parse(plinth("credits", "balance", "--company", String(companyId)).out)).toEqual({
    companyId,
    balance: 250,
    budget: { monthlyLimit: 100, spent: 0, thresholds: [75, 100], hard: true },
  });
  await afterForeignWrite();
  const bal = (await callTool(agent, "ai_credits_balance")).data;
  expect(bal.balance).toBe(250);
  expect(bal.budget).toMatchObject({ monthlyLimit: 100, remaining: 100, hard: true });
  expect(bal.lastEntry).toMatchObject({ kind: "grant", amount: 250, balanceAfter: 250, note: "Welcome pack" });
  const audit = await rows(
    s.deps,
    "SELECT action, credential_kind FROM audit_log WHERE action = 'credits.grant' AND company_id = ?",
    companyId,
  );
  expect(audit).toEqual([{ action: "credits.grant", credential_kind: "cli" }]);
  expect(plinth("credits", "budget", "--company", String(companyId), "--off").code).toBe(0);
  expect(JSON.parse(plinth("credits", "balance", "--company", String(companyId)).out).budget).toBeNull();
}, 240_000); // eight processes, each opening the store: slow on a loaded machine
