/**
 * Every link in every mailed campaign works, as a recipient would find it:
 * campaigns are sent through the real server to the loopback SMTP server
 * with each combination of open and click tracking, with the unsubscribe
 * link placed by the author and added as the footer; each received message
 * is parsed (mailparser) and every link of its HTML and text parts and its
 * List-Unsubscribe header is followed over HTTP. An unsubscribe link shows
 * the unsubscribe page and its button unsubscribes; a tracked link redirects
 * to the link the author wrote at that place; an untracked link is the
 * author's own; the pixel answers an image. Tracking must never put the
 * unsubscribe link behind a redirect (a tracked unsubscribe link once
 * answered "Link not recognised" for every recipient), and opens are counted
 * from the pixel alone (a click is not an open).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { closeMailTransport } from "../../src/core/mail";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { publicBase } from "../../src/domains/email/access";
import { emailSends } from "../../src/domains/email/tables";
import { makeWorld, type World } from "../cms/world";
import { startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { deliver } from "../jobs";

let s: TestServer;
let w: World;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startSmtp();
  closeMailTransport();
  s = await startTestServer({ seed: false, config: { smtpUrl: smtp.url(), mailFrom: "Acme <news@acme.test>" } });
  w = await makeWorld(s);
}, 120_000);
afterAll(async () => {
  await s?.stop();
  closeMailTransport();
  await smtp?.stop();
});

const AUTHORED = ["https://acme.test/a?x=1&y=2", "https://acme.test/b", "https://acme.test/c#end"];
const HTML_BODY = `<p>Hi {{ name }}</p><p><a href="https://acme.test/a?x=1&amp;y=2">First</a> <a href="https://acme.test/b">Second</a></p><p><a href="https://acme.test/c#end">Third</a></p>`;
const TEXT_BODY = "Hi {{ name }}\nRead https://acme.test/b\n";

async function receive(opts: { trackOpens: boolean; trackClicks: boolean; placed: boolean }) {
  const list = await w.ok(w.owner, "email_lists_create", { name: `L${Math.random()}`, optIn: "single" });
  const email = `r${Math.random().toString(36).slice(2, 8)}@example.com`;
  await w.ok(w.owner, "email_subscribers_add", { email, name: "Rae", listIds: [list.id] });
  const c = await w.ok(w.owner, "email_campaigns_create", {
    name: "Links",
    subject: "Links",
    html: opts.placed ? `${HTML_BODY}<p><a href="{{ unsubscribe_url }}">Leave this list</a></p>` : HTML_BODY,
    text: opts.placed ? `${TEXT_BODY}Leave: {{ unsubscribe_url }}\n` : TEXT_BODY,
    listIds: [list.id],
    trackOpens: opts.trackOpens,
    trackClicks: opts.trackClicks,
  });
  expect((await decideApproval(s.deps, { token: c.approval.token }, "approve", { decidedBy: "Rita" })).ok).toBe(true);
  await w.ok(w.owner, "email_campaigns_send", { id: c.id });
  const before = smtp.messages.length;
  for (let i = 0; i < 20; i++) {
    await deliver(s.deps);
    s.clock.advance(1000);
  }
  const m = smtp.messages.slice(before).find((x) => x.envelope.to[0] === email);
  expect(m).toBeDefined();
  const parsed = await m!.parse();
  return { list, email, campaign: c, parsed, raw: m!.raw };
}

const hrefs = (html: string) =>
  [...html.matchAll(/<a\b[^>]*?\bhref="([^"]*)"/gi)].map((x) => x[1]!.replace(/&amp;/g, "&"));
const imgs = (html: string) =>
  [...html.matchAll(/<img\b[^>]*?\bsrc="([^"]*)"/gi)].map((x) => x[1]!.replace(/&amp;/g, "&"));
const textUrls = (text: string) => [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((x) => x[0]);

const VARIANTS = [false, true].flatMap((trackOpens) =>
  [false, true].flatMap((trackClicks) => [false, true].map((placed) => ({ trackOpens, trackClicks, placed }))),
);

describe("every link of every mailed campaign", () => {
  for (const opts of VARIANTS) {
    test(`opens ${opts.trackOpens ? "on" : "off"}, clicks ${opts.trackClicks ? "on" : "off"}, unsubscribe ${opts.placed ? "placed by the author" : "in the footer"}`, async () => {
      const r = await receive(opts);
      const html = r.parsed.html as string;
      const text = r.parsed.text ?? "";
      const base = publicBase(s.deps);
      const unsubPrefix = `${base}/u/`;
      const headerUrl = /^List-Unsubscribe:\s*<([^>]+)>/im.exec(r.raw)?.[1];
      expect(headerUrl).toStartWith(unsubPrefix);

      // HTML part: the author's links in order, each tracked or as written; the unsubscribe link always direct.
      const links = hrefs(html);
      const unsub = links.filter((l) => l.startsWith(unsubPrefix));
      expect(unsub).toEqual([headerUrl!]);
      const others = links.filter((l) => !l.startsWith(unsubPrefix));
      expect(others).toHaveLength(AUTHORED.length);
      for (const [n, link] of others.entries()) {
        if (opts.trackClicks) {
          expect(link.startsWith(`${base}/c/`)).toBe(true);
          const hop = await fetch(link, { redirect: "manual" });
          expect(hop.status).toBe(302);
          expect(hop.headers.get("location")).toBe(AUTHORED[n]!);
        } else expect(link).toBe(AUTHORED[n]!);
      }

      // Text part: the author's link as written and the same unsubscribe link.
      const inText = textUrls(text);
      expect(inText).toContain("https://acme.test/b");
      expect(inText.filter((u) => u.startsWith(unsubPrefix))).toEqual([headerUrl!]);
      expect(inText.every((u) => u.startsWith(unsubPrefix) || AUTHORED.includes(u))).toBe(true);

      // A click is not an open: only the pixel counts one.
      const token = headerUrl!.slice(unsubPrefix.length);
      const row = async () => (await s.deps.db.select().from(emailSends).where(eq(emailSends.token, token)))[0]!;
      expect((await row()).openedAt).toBeNull();
      const pixels = imgs(html).filter((u) => u.startsWith(`${base}/o/`));
      expect(pixels).toHaveLength(opts.trackOpens ? 1 : 0);
      for (const p of pixels) {
        const img = await fetch(p);
        expect(img.status).toBe(200);
        expect(img.headers.get("content-type")).toBe("image/gif");
      }
      const stats = await w.ok(w.owner, "email_campaigns_stats", { id: r.campaign.id });
      expect(stats.clicked).toBe(opts.trackClicks ? 1 : null);
      expect(stats.opened).toBe(opts.trackOpens ? 1 : null);
      expect(stats.estimated).toEqual(opts.trackOpens ? ["opened", "totalOpens", "openRate"] : []);

      // The unsubscribe link, followed as mailed: the page names the address and its button unsubscribes.
      const pageRes = await fetch(unsub[0]!);
      expect(pageRes.status).toBe(200);
      const page = await pageRes.text();
      expect(page).toContain(r.email);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
      const cookie = pageRes.headers.get("set-cookie")!.split(";")[0]!;
      const done = await fetch(unsub[0]!, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, Origin: new URL(base).origin },
        body: `csrf=${encodeURIComponent(csrf)}`,
      });
      expect(done.status).toBe(200);
      const sub = await w.ok(w.owner, "email_subscribers_get", { email: r.email });
      expect(sub.lists.find((l: { listId: number }) => l.listId === r.list.id)?.status).toBe("unsubscribed");
    });
  }
});
