/**
 * Agents' files from the portal, in headless Chromium: an admin signed in
 * to the portal picks a file in the conversation's reply form (multipart,
 * CSRF token as every portal form); it shows in the transcript as a
 * download link (attachment, nosniff, the sniffed type), reaches the
 * visitor's thread, and is listed by chat_attachments_list; a refused type
 * is the form's error; a viewer may download but not send; another
 * company's file, and a file asked for under another conversation, are 404.
 * The cross-site and CSRF refusals of multipart posts are checked over HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { getChatAttachment, listChatAttachments } from "../../src/domains/chat/attachments";
import { visitorByToken, visitorMessages } from "../../src/domains/chat/visitor";
import { chatInboxes } from "../../src/domains/chat/tables";
import { PASSWORD, portalChatWorld, type PortalChatWorld } from "./portal-world";

const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
const HTML = Buffer.from("<!doctype html><html><script>alert(document.cookie)</script></html>");

let w: PortalChatWorld;
let browser: Browser;
let ann: { token: string; conversation: number };
let other: { token: string; conversation: number };

beforeAll(async () => {
  w = await portalChatWorld();
  ann = await w.visit("Can you send me the invoice?", { name: "Ann", email: "ann@example.test" });
  other = await w.visit("Someone else here");
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await w?.s.stop();
});

async function portalAs(email: string): Promise<Page> {
  const ctx = await browser.newContext({ acceptDownloads: true });
  const page = await ctx.newPage();
  await page.goto(`${w.s.url}/login`);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', PASSWORD);
  await Promise.all([page.waitForURL(`${w.s.url}/`), page.click('button[type="submit"]')]);
  return page;
}

describe("agents send files from the portal", () => {
  test("the reply form's file reaches the transcript, the visitor and the tools; a refused type is the form's error", async () => {
    const page = await portalAs("ada@acme.test");
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${w.s.url}/chat/${ann.conversation}`);
    await page.fill("#reply-body", "Here is your invoice.");
    await page.setInputFiles("#reply-files", { name: "invoice.pdf", mimeType: "application/pdf", buffer: PDF });
    await Promise.all([page.waitForURL(/done=replied/), page.click("form[enctype] button[type=submit]")]);
    const link = page.locator("li.msg.agent p.file a", { hasText: "invoice.pdf" });
    await link.waitFor({ timeout: 5000 });
    const href = (await link.getAttribute("href"))!;
    expect(href).toMatch(new RegExp(`^/chat/${ann.conversation}/files/\\d+$`));
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe("invoice.pdf");
    const res = await page.request.get(`${w.s.url}${href}`);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toBe("application/pdf");
    expect(res.headers()["content-disposition"]).toStartWith("attachment;");
    expect(res.headers()["x-content-type-options"]).toBe("nosniff");
    expect(Buffer.from(await res.body()).equals(PDF)).toBe(true);

    const files = await listChatAttachments(w.as("olga"), { conversationId: ann.conversation });
    expect(files.items.map((f) => [f.filename, f.source])).toEqual([["invoice.pdf", "agent"]]);
    const inbox = (await w.s.deps.db.select().from(chatInboxes).limit(1))[0]!;
    const visitor = (await visitorByToken(w.s.deps, inbox, ann.token))!;
    const thread = await visitorMessages(w.s.deps, visitor, 0);
    expect(thread.at(-1)!.files!.map((f) => f.name)).toEqual(["invoice.pdf"]);

    // HTML in disguise: the form comes back with the reason, the text kept, nothing stored.
    await page.fill("#reply-body", "And the menu");
    await page.setInputFiles("#reply-files", { name: "menu.pdf", mimeType: "application/pdf", buffer: HTML });
    await page.click("form[enctype] button[type=submit]");
    await page.locator("text=is refused").first().waitFor({ timeout: 5000 });
    expect(await page.locator("body").innerText()).toContain("menu.pdf");
    expect(await page.inputValue("#reply-body")).toBe("And the menu");
    expect((await listChatAttachments(w.as("olga"), { conversationId: ann.conversation })).items).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 30_000);

  test("a viewer downloads but cannot send; other conversations' and companies' files are 404", async () => {
    const id = (await listChatAttachments(w.as("olga"), { conversationId: ann.conversation })).items[0]!.id;
    const vic = await w.signIn("vic");
    expect((await vic.get(`/chat/${ann.conversation}/files/${id}`)).status).toBe(200);
    expect((await vic.get(`/chat/${other.conversation}/files/${id}`)).status).toBe(404);
    expect((await vic.get(`/chat/${ann.conversation}/files/abc`)).status).toBe(404);
    const rita = await w.signIn("rita");
    expect((await rita.get(`/chat/${ann.conversation}/files/${id}`)).status).toBe(404);
    await expect(getChatAttachment(w.as("rita"), { id })).rejects.toThrow("not found");

    const form = (csrf: string) => {
      const f = new FormData();
      f.append("_csrf", csrf);
      f.append("body", "viewer tries");
      f.append("file", new File([new Uint8Array(PDF)], "v.pdf", { type: "application/pdf" }));
      return f;
    };
    const csrf = await vic.csrf(`/chat/${ann.conversation}`);
    const post = (headers: Record<string, string>, body: FormData) =>
      fetch(`${w.s.url}/chat/${ann.conversation}/reply`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: vic.jar.header(), ...headers },
        body,
      });
    expect((await post({ origin: new URL(w.s.url).origin }, form(csrf))).status).toBe(403);
    expect((await post({ origin: "https://evil.test" }, form(csrf))).status).toBe(403);
    expect((await post({ origin: new URL(w.s.url).origin }, form("0".repeat(32)))).status).toBe(403);
    expect((await listChatAttachments(w.as("olga"), { conversationId: ann.conversation })).items).toHaveLength(1);
    // Multipart is taken only where files are: another form still refuses it.
    const note = await fetch(`${w.s.url}/chat/${ann.conversation}/note`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: vic.jar.header(), origin: new URL(w.s.url).origin },
      body: form(csrf),
    });
    expect(note.status).toBe(400);
  });
});
