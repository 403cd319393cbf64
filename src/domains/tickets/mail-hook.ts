/**
 * The inbound-mail webhook, for providers that push mail instead of keeping
 * it in a mailbox: POST /inbound-mail/<secret> with the raw RFC 822 message
 * as the body (message/rfc822 or text/plain), or JSON {"raw": "<message>"}.
 * The mail goes through the same import as a polled one (mailboxes.ts:
 * ledger, threading, auto-reply and bounce recognition), with source 0, so
 * a provider's retry of the same Message-ID imports nothing twice.
 *
 * One secret per company, in the URL because push providers offer nothing
 * else; it is shown once by ticket_mail_webhook_rotate and kept as a hash.
 * A wrong secret answers 401 and reads nothing; a body past 10 MiB, 413.
 */
import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { audit } from "../../core/audit";
import type { ActorContext, Deps } from "../../core/context";
import { authorize } from "../../core/scopes";
import { rateLimiter } from "../../core/limits";
import { importMail, MAX_MAIL_BYTES } from "./mailboxes";
import { ticketMailHooks } from "./tables";

export const MAIL_HOOK_PREFIX = "/inbound-mail";

const hashOf = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** Makes the company's webhook secret, or replaces it (the old URL stops working at once). */
export async function rotateMailHook(ctx: ActorContext) {
  authorize(ctx, "tickets:write", { write: true, minRole: "admin" });
  const secret = randomBytes(24).toString("base64url");
  const now = ctx.deps.clock.now();
  const values = { secretHash: hashOf(secret), createdBy: ctx.principal.userId || null, createdAt: now };
  await ctx.deps.db.transaction(async (tx) => {
    await tx
      .insert(ticketMailHooks)
      .values({ companyId: ctx.company.id, ...values })
      .onConflictDoUpdate({ target: ticketMailHooks.companyId, set: values });
    await audit(tx, ctx, "tickets.mail_webhook_rotate", { type: "company", id: ctx.company.id });
  });
  return {
    url: `${ctx.deps.config.publicUrl.replace(/\/+$/, "")}${MAIL_HOOK_PREFIX}/${secret}`,
    note: "Shown once: give this URL to your mail provider's inbound webhook. Rotating again replaces it.",
  };
}

export function mailHookRoutes(deps: Deps) {
  const app = new Hono();
  const limiter = rateLimiter(deps, "mail-hooks", 120);
  app.post("/:secret", async (c) => {
    const secret = c.req.param("secret");
    const hook = /^[A-Za-z0-9_-]{32}$/.test(secret)
      ? (
          await deps.db
            .select()
            .from(ticketMailHooks)
            .where(eq(ticketMailHooks.secretHash, hashOf(secret)))
            .limit(1)
        )[0]
      : undefined;
    if (!hook) return c.json({ error: "unknown webhook secret" }, 401);
    const d = await limiter.take(String(hook.companyId));
    if (!d.allowed) return c.json({ error: "rate limited" }, 429);
    const tooLarge = () => c.json({ error: `message larger than ${MAX_MAIL_BYTES} bytes` }, 413);
    if (Number(c.req.header("content-length") ?? 0) > MAX_MAIL_BYTES + 4096) return tooLarge();
    const body = Buffer.from(await c.req.arrayBuffer());
    if (body.length > MAX_MAIL_BYTES + 4096) return tooLarge();
    let raw = body;
    if ((c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch {
        return c.json({ error: 'body is not JSON; send the raw message, or {"raw": "<message>"}' }, 400);
      }
      const r = (parsed as { raw?: unknown } | null)?.raw;
      if (typeof r !== "string") return c.json({ error: 'JSON body needs "raw": the message as a string' }, 400);
      raw = Buffer.from(r, "utf8");
    }
    if (raw.length > MAX_MAIL_BYTES) return tooLarge();
    if (!/\S/.test(raw.subarray(0, 4096).toString("latin1"))) return c.json({ error: "empty message" }, 400);
    const out = await importMail(
      deps,
      { id: 0, companyId: hook.companyId, username: "", createdBy: hook.createdBy },
      raw,
      createHash("sha256").update(raw).digest("hex"),
    );
    return c.json(out, 200);
  });
  return app;
}
