/**
 * A small agency for the team, profile and notifications suites, on one
 * real server per test file with a real SMTP server on loopback: company A
 * with an owner (Olivia), an admin (Ada) and a viewer (Vic); company B of a
 * stranger (Sam). Every person has a "*" MCP key on a connected SDK client
 * and a password for the portal. Background jobs and event delivery are
 * stopped: tests run them (`settle`, `runJobs`) so every step is explicit.
 */
import type { Client } from "@modelcontextprotocol/client";
import { expect } from "bun:test";
import { closeMailTransport } from "../../src/core/mail";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { commits, startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { Browser } from "../oauth/helpers";

export const PASSWORD = "correct horse battery";

export interface Person {
  id: number;
  email: string;
  client: Client;
  keyId: number;
}

export interface People {
  s: TestServer;
  smtp: TestSmtp;
  A: { id: number; name: string };
  B: { id: number; name: string };
  owner: Person;
  admin: Person;
  viewer: Person;
  stranger: Person;
  ok(p: Person, name: string, args?: Record<string, unknown>): Promise<any>;
  err(p: Person, name: string, args?: Record<string, unknown>): Promise<string>;
  /** Delivers pending events to subscribers (notifications from approvals and invitations). */
  settle(): Promise<void>;
  /** Moves the clock by `ms` (default 61 s: past every job's period) and runs due jobs. */
  runJobs(ms?: number): Promise<void>;
  browser(p?: Person): Promise<Browser>;
  changes(): number;
  stop(): Promise<void>;
}

export async function makePeople(): Promise<People> {
  const smtp = await startSmtp();
  const s = await startTestServer({ seed: false, config: { mailFrom: "Plinth <plinth@agency.example>" } });
  s.config.smtpUrl = smtp.url();
  await s.jobs.stop();
  await s.dispatcher.stop();
  const person = async (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const o = await person("olivia@agency.example", "Olivia Owner");
  const a = await person("ada@agency.example", "Ada Admin");
  const vi = await person("vic@agency.example", "Vic Viewer");
  const st = await person("sam@rival.example", "Sam Stranger");
  const A = await createCompany(s.deps, { name: "Acme Agency", ownerUserId: o.id });
  const B = await createCompany(s.deps, { name: "Rival Studio", ownerUserId: st.id });
  await addMember(s.deps, A.id, a.id, "admin");
  await addMember(s.deps, A.id, vi.id, "viewer");
  const connect = async (u: { id: number; email: string }, companyId: number): Promise<Person> => {
    const k = await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [companyId] });
    return { id: u.id, email: u.email, client: await mcpClient(s.url, k.key), keyId: k.id };
  };
  const [owner, admin, viewer, stranger] = await Promise.all([
    connect(o, A.id),
    connect(a, A.id),
    connect(vi, A.id),
    connect(st, B.id),
  ]);
  return {
    s,
    smtp,
    A,
    B,
    owner,
    admin,
    viewer,
    stranger,
    async ok(p, name, args = {}) {
      const r = await callTool(p.client, name, args);
      if (r.isError) throw new Error(`${name} failed: ${r.text}`);
      return r.data;
    },
    async err(p, name, args = {}) {
      const r = await callTool(p.client, name, args);
      expect(r.isError).toBe(true);
      return r.text;
    },
    async settle() {
      await s.dispatcher.drain();
    },
    async runJobs(ms = 61_000) {
      s.clock.advance(ms);
      for (const o of await s.jobs.runDue()) if (!o.ok) throw new Error(`job ${o.name}: ${o.error}`);
    },
    async browser(p) {
      const b = new Browser(s.url);
      if (p) expect((await b.signIn(p.email, PASSWORD)).status).toBe(303);
      return b;
    },
    changes: () => commits(s.deps),
    async stop() {
      closeMailTransport();
      await s.stop();
      await smtp.stop();
    },
  };
}
