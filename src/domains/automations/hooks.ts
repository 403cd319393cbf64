/**
 * Incoming webhooks that start automations: POST /hooks/<token> with a JSON
 * body, signed with the automation's hookSecret the Standard Webhooks way
 * (webhook-id, webhook-timestamp within 5 minutes, webhook-signature).
 * Unsigned, badly signed, stale, oversized or non-JSON requests are refused
 * and start nothing; a webhook-id seen before for the same automation is
 * acknowledged without a second run (senders retry). Answers are JSON and
 * never say whether a token exists beyond "not found".
 */
import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { Webhook } from "standardwebhooks";
import type { Deps } from "../../core/context";
import { rateLimiter } from "../../core/limits";
import { automationRuns, automations } from "./tables";

const MAX_BODY = 64 * 1024;

export function hookRoutes(deps: Deps) {
  const app = new Hono();
  const limiter = rateLimiter(deps, "automation-hooks", 120);
  app.post("/:token", async (c) => {
    const token = c.req.param("token");
    if (!/^[0-9a-f]{32}$/.test(token)) return c.json({ error: "not found" }, 404);
    const d = await limiter.take(token);
    if (!d.allowed) return c.json({ error: "rate limited" }, 429);
    const a = (await deps.db.select().from(automations).where(eq(automations.hookToken, token)).limit(1))[0];
    if (!a || a.trigger.type !== "webhook" || !a.hookSecret) return c.json({ error: "not found" }, 404);
    const len = Number(c.req.header("content-length") ?? 0);
    if (len > MAX_BODY) return c.json({ error: `body larger than ${MAX_BODY} bytes` }, 413);
    const body = await c.req.text();
    if (body.length > MAX_BODY) return c.json({ error: `body larger than ${MAX_BODY} bytes` }, 413);
    const headers = {
      "webhook-id": c.req.header("webhook-id") ?? "",
      "webhook-timestamp": c.req.header("webhook-timestamp") ?? "",
      "webhook-signature": c.req.header("webhook-signature") ?? "",
    };
    let data: unknown;
    try {
      data = new Webhook(a.hookSecret).verify(body, headers);
    } catch (e) {
      return c.json({ error: `signature refused: ${(e as Error).message}` }, 401);
    }
    if (!a.enabled) return c.json({ error: "automation is disabled" }, 409);
    const msgId = headers["webhook-id"].slice(0, 200);
    const now = deps.clock.now();
    const runId = await deps.store.transaction(async (tx) => {
      const dedupeKey = `hook:${msgId}`;
      const [r] = await tx
        .insert(automationRuns)
        .values({
          automationId: a.id,
          companyId: a.companyId,
          version: a.version,
          status: "queued",
          trigger: { kind: "webhook", messageId: msgId, at: now.toISOString(), data: data as Record<string, unknown> },
          chain: [],
          steps: [],
          dedupeKey,
          createdAt: now,
        })
        .onConflictDoNothing()
        .returning({ id: automationRuns.id });
      if (!r) {
        const seen = (
          await tx
            .select({ id: automationRuns.id })
            .from(automationRuns)
            .where(and(eq(automationRuns.automationId, a.id), eq(automationRuns.dedupeKey, dedupeKey)))
            .limit(1)
        )[0];
        return { id: seen?.id ?? null, duplicate: true };
      }
      await tx.update(automations).set({ lastRunAt: now }).where(eq(automations.id, a.id));
      return { id: r.id, duplicate: false };
    });
    return c.json({ runId: runId.id, status: runId.duplicate ? "duplicate" : "queued" }, 202);
  });
  return app;
}
