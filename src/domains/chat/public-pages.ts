/**
 * The chat widget's public side, under /chat:
 *
 *   GET  /chat/widget.js                 the loader a site embeds (cacheable, no secrets)
 *   GET  /chat/frame/<key>               the widget itself, framed by allowed origins only
 *   GET  /chat/api/<key>/messages        the visitor's thread and their current conversation's status (Bearer visitor token)
 *   POST /chat/api/<key>/messages        {body, name?, email?, pageUrl?}; without a token it makes the visitor and returns the token once
 *   GET  /chat/api/<key>/stream?after=N  Server-Sent Events: the visitor's new messages (agent replies) as they are written;
 *                                        with &status=1 also `event: status` (resolved / open again), the current one first
 *   POST /chat/api/<key>/files           multipart: file (one or more), body? (a caption); a visitor message with files
 *   POST /chat/api/<key>/profile         {name?, email?}
 *   POST /chat/api/<key>/transcript      emails the newest conversation to the visitor's email
 *   GET  /chat/agent/stream              agents' SSE feed, with a credential (agent-stream.ts)
 *
 * The API answers only the widget's own frame: requests must be
 * same-origin (Sec-Fetch-Site / Origin), posts must be JSON (so a
 * cross-site form cannot post; the one multipart post, files, is refused
 * cross-site by the same-origin check and needs the token to add to a
 * visitor's thread), and everything but the first message needs
 * the visitor token in Authorization, which no other site can read. Every
 * route is rate limited per address; bodies are size-capped; the frame is
 * shown only inside the inbox's allowed origins (CSP frame-ancestors, and
 * the Referer when the browser sends one).
 */
import { eq } from "drizzle-orm";
import { Hono, type Context } from "hono";
import type { Deps } from "../../core/context";
import { httpStatus, isAppError } from "../../core/errors";
import { rateLimiter } from "../../core/limits";
import { clientAddress, escapeHtml, newNonce, publicPage, sameOrigin } from "../../core/public-page";
import { getPublicBranding } from "../branding/public-reads";
import { siteHostnames, siteName } from "../sites/facts";
import { availability, type InboxRow } from "./access";
import { hubFor, type HubRow, type HubStatus } from "./hub";
import { chatInboxes } from "./tables";
import {
  currentStatus,
  updateProfile,
  visible,
  visitorByToken,
  visitorMessages,
  visitorPost,
  visitorStatus,
  visitorTranscript,
  type VisibleMessage,
  type VisitorStatus,
} from "./visitor";
import { frameHtml, LOADER_JS, WIDGET_KEY_RE } from "./widget";
import { agentStream } from "./agent-stream";
import { visitorFiles } from "./attachments";
import { limitsOf, MAX_FILES_PER_MESSAGE, storeFiles } from "../tickets/files";

/** Per address per minute; mutable so the bench can connect 500 widgets from one address. */
export const PUBLIC_LIMITS = {
  posts: 20,
  reads: 240,
  streams: 30,
  transcripts: 3,
  maxStreamsPerVisitor: 5,
  maxStreams: 20_000,
};
const MAX_JSON = 16 * 1024;
/** What a multipart body may carry besides its files: boundaries, part headers, a caption. */
const MULTIPART_SLACK = 64 * 1024;

/** A multipart file name as sent: browsers write a quote in it as %22 (the HTML form encoding); the name had a quote. */
const browserName = (name: string) => name.replace(/%22/g, '"');
const HEARTBEAT_MS = 5_000;

async function inboxByKey(deps: Deps, key: string): Promise<InboxRow | null> {
  if (!WIDGET_KEY_RE.test(key)) return null;
  const row = (await deps.db.select().from(chatInboxes).where(eq(chatInboxes.widgetKey, key)).limit(1))[0];
  return row && row.enabled ? row : null;
}

/** Origins that may frame the widget: the inbox's list, else the site's domains over https. */
export async function frameOrigins(deps: Deps, inbox: InboxRow): Promise<string[]> {
  if (inbox.allowedOrigins.length) return inbox.allowedOrigins;
  const hosts = await siteHostnames(deps.db, inbox.siteId);
  const out = new Set<string>();
  for (const h of hosts) {
    try {
      out.add(new URL(`https://${h}`).origin);
    } catch {
      /* not a hostname */
    }
  }
  return [...out];
}

function json(c: Context, status: number, body: unknown) {
  c.header("Cache-Control", "no-store");
  c.header("X-Content-Type-Options", "nosniff");
  return c.json(body, status as 200);
}

function fail(c: Context, e: unknown) {
  if (isAppError(e)) return json(c, httpStatus[e.code], { error: e.message });
  throw e;
}

function bearer(c: Context): string | null {
  const h = c.req.header("authorization") ?? "";
  return h.startsWith("Bearer ") ? h.slice(7).trim() : null;
}

async function readJson(c: Context): Promise<Record<string, unknown> | string> {
  if (!/^application\/json\b/i.test(c.req.header("content-type") ?? ""))
    return "Send JSON (Content-Type: application/json).";
  if (Number(c.req.header("content-length") ?? "0") > MAX_JSON) return "Too large.";
  const text = await c.req.text();
  if (text.length > MAX_JSON) return "Too large.";
  try {
    const v = JSON.parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? v : "Send a JSON object.";
  } catch {
    return "That is not JSON.";
  }
}

export function chatPublicRoutes(deps: Deps): Hono {
  const app = new Hono();
  const posts = rateLimiter(deps, "chat-post", PUBLIC_LIMITS.posts);
  const reads = rateLimiter(deps, "chat-read", PUBLIC_LIMITS.reads);
  const streams = rateLimiter(deps, "chat-stream", PUBLIC_LIMITS.streams);
  const transcripts = rateLimiter(deps, "chat-transcript", PUBLIC_LIMITS.transcripts);
  const perVisitor = new Map<number, number>();
  const hub = hubFor(deps);

  const limited = async (c: Context, l: typeof posts) => {
    const d = await l.take(`addr:${clientAddress(c)}`);
    if (d.allowed) return null;
    c.header("Retry-After", String(d.retryAfterSec));
    return json(c, 429, { error: "Too many requests; wait a minute." });
  };

  app.get("/widget.js", (c) => {
    c.header("Content-Type", "text/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=300");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Cross-Origin-Resource-Policy", "cross-origin");
    return c.body(LOADER_JS);
  });

  app.get("/frame/:key", async (c) => {
    const lim = await limited(c, reads);
    if (lim) return lim;
    const nonce = newNonce();
    const inbox = await inboxByKey(deps, c.req.param("key"));
    const refuse = (status: number, text: string) => {
      c.header("Content-Security-Policy", "default-src 'none'; frame-ancestors *; base-uri 'none'");
      c.header("Cache-Control", "no-store");
      return c.html(publicPage({ title: "Chat", nonce, body: `<p>${escapeHtml(text)}</p>` }), status as 404);
    };
    if (!inbox) return refuse(404, "This chat is not available.");
    const origins = await frameOrigins(deps, inbox);
    const referer = c.req.header("referer");
    if (referer) {
      let from = "";
      try {
        from = new URL(referer).origin;
      } catch {
        /* unreadable: CSP still decides */
      }
      if (from && !origins.includes(from) && from !== new URL(deps.config.publicUrl).origin)
        return refuse(403, "This chat is not enabled on this site.");
    }
    const siteTitle = await siteName(deps.db, inbox.siteId);
    const branding = await getPublicBranding(deps, inbox.siteId);
    const now = deps.clock.now().getTime();
    const av = availability(inbox.businessHours, now);
    const away = av.open
      ? null
      : (inbox.awayMessage ??
        `We're away right now and back at ${av.opensAt}. Leave a message and your email — we'll reply.`);
    const pageParam = c.req.query("page") ?? "";
    const page = pageParam.length <= 1000 && /^https?:\/\//.test(pageParam) ? pageParam : null;
    c.header(
      "Content-Security-Policy",
      [
        "default-src 'none'",
        `style-src 'nonce-${nonce}'`,
        `script-src 'nonce-${nonce}'`,
        "connect-src 'self'",
        "img-src 'self' data:",
        "form-action 'none'",
        `frame-ancestors ${origins.length ? origins.join(" ") : "'self'"}`,
        "base-uri 'none'",
      ].join("; "),
    );
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "same-origin");
    c.header("Cache-Control", "no-store");
    return c.html(
      frameHtml(
        {
          key: inbox.widgetKey,
          title: branding.logoText ?? siteTitle ?? inbox.name,
          greeting: inbox.greeting,
          away,
          page,
          branding,
        },
        nonce,
      ),
    );
  });

  /** Common checks of the API: a live inbox, the widget's own frame, a rate limit. */
  async function gate(c: Context, l: typeof posts): Promise<Response | InboxRow> {
    const lim = await limited(c, l);
    if (lim) return lim;
    if (!sameOrigin(c, deps)) return json(c, 403, { error: "Cross-site requests are refused." });
    const inbox = await inboxByKey(deps, c.req.param("key") ?? "");
    if (!inbox) return json(c, 404, { error: "This chat is not available." });
    return inbox;
  }

  async function visitorOf(c: Context, inbox: InboxRow) {
    return visitorByToken(deps, inbox, bearer(c));
  }

  app.get("/api/:key/messages", async (c) => {
    const inbox = await gate(c, reads);
    if (inbox instanceof Response) return inbox;
    const v = await visitorOf(c, inbox);
    if (!v) return json(c, 401, { error: "Unknown visitor." });
    const after = Math.max(0, Math.min(Number.MAX_SAFE_INTEGER, Math.floor(Number(c.req.query("after") ?? 0) || 0)));
    // `status` was added later: the frame shows a resolved conversation's line with the thread, before its stream is up.
    return json(c, 200, {
      visitor: { name: v.name, email: v.email },
      messages: await visitorMessages(deps, v, after),
      status: await currentStatus(deps, deps.db, v.id),
    });
  });

  app.post("/api/:key/messages", async (c) => {
    const inbox = await gate(c, posts);
    if (inbox instanceof Response) return inbox;
    const token = bearer(c);
    const v = await visitorOf(c, inbox);
    if (token && !v) return json(c, 401, { error: "Unknown visitor." });
    const body = await readJson(c);
    if (typeof body === "string") return json(c, body === "Too large." ? 413 : 400, { error: body });
    try {
      const r = await visitorPost(deps, inbox, v, { ...body, body: body.body });
      return json(c, 201, r.token ? r : { ...r, token: undefined });
    } catch (e) {
      return fail(c, e);
    }
  });

  // Files (attachments.ts): multipart, from the frame's script with the visitor token like every post; the
  // same-origin check refuses a cross-site form, and a file post counts against the posts limit.
  app.post("/api/:key/files", async (c) => {
    const inbox = await gate(c, posts);
    if (inbox instanceof Response) return inbox;
    const token = bearer(c);
    const v = await visitorOf(c, inbox);
    if (token && !v) return json(c, 401, { error: "Unknown visitor." });
    if (!/^multipart\/form-data\b/i.test(c.req.header("content-type") ?? ""))
      return json(c, 400, { error: "Send the file as multipart/form-data." });
    const limits = await limitsOf(deps.db, inbox.companyId);
    const bound = Math.min(deps.config.maxUploadBytes, limits.maxFileBytes * MAX_FILES_PER_MESSAGE) + MULTIPART_SLACK;
    if (Number(c.req.header("content-length") ?? "0") > bound)
      return json(c, 413, { error: `Too large: a file is at most ${limits.maxFileBytes} bytes.` });
    let form: Record<string, string | File | (string | File)[]>;
    try {
      form = await c.req.parseBody({ all: true });
    } catch {
      return json(c, 400, { error: "That is not a readable form upload." });
    }
    const field = (k: string) => (Array.isArray(form[k]) ? form[k] : form[k] === undefined ? [] : [form[k]]);
    const picked = field("file").filter((f): f is File => typeof f !== "string" && (f.size > 0 || f.name !== ""));
    if (!picked.length) return json(c, 400, { error: "Choose a file first." });
    const text = field("body").find((x) => typeof x === "string") ?? "";
    try {
      const stored = await storeFiles(
        deps,
        inbox.companyId,
        await Promise.all(
          picked.map(async (f) => ({
            filename: browserName(f.name),
            bytes: new Uint8Array(await f.arrayBuffer()),
            declared: f.type,
          })),
        ),
        "The file",
      );
      const r = await visitorPost(deps, inbox, v, { body: text.trim() === "" ? undefined : text }, stored);
      return json(c, 201, r.token ? r : { ...r, token: undefined });
    } catch (e) {
      return fail(c, e);
    }
  });

  app.post("/api/:key/profile", async (c) => {
    const inbox = await gate(c, posts);
    if (inbox instanceof Response) return inbox;
    const v = await visitorOf(c, inbox);
    if (!v) return json(c, 401, { error: "Unknown visitor." });
    const body = await readJson(c);
    if (typeof body === "string") return json(c, 400, { error: body });
    try {
      return json(c, 200, await updateProfile(deps, inbox, v, body));
    } catch (e) {
      return fail(c, e);
    }
  });

  app.post("/api/:key/transcript", async (c) => {
    const inbox = await gate(c, transcripts);
    if (inbox instanceof Response) return inbox;
    const v = await visitorOf(c, inbox);
    if (!v) return json(c, 401, { error: "Unknown visitor." });
    if (!/^application\/json\b/i.test(c.req.header("content-type") ?? ""))
      return json(c, 400, { error: "Send JSON (Content-Type: application/json)." });
    try {
      return json(c, 200, await visitorTranscript(deps, v));
    } catch (e) {
      return fail(c, e);
    }
  });

  app.get("/api/:key/stream", async (c) => {
    const inbox = await gate(c, streams);
    if (inbox instanceof Response) return inbox;
    const v = await visitorOf(c, inbox);
    if (!v) return json(c, 401, { error: "Unknown visitor." });
    if ((perVisitor.get(v.id) ?? 0) >= PUBLIC_LIMITS.maxStreamsPerVisitor)
      return json(c, 429, { error: "Too many open chat windows." });
    if (hub.streams >= PUBLIC_LIMITS.maxStreams) return json(c, 503, { error: "Busy; try again shortly." });
    const after = Math.max(
      0,
      Math.min(
        Number.MAX_SAFE_INTEGER,
        Math.floor(Number(c.req.query("after") ?? c.req.header("last-event-id") ?? 0) || 0),
      ),
    );
    // Status events only when asked for: a reader written before them (bench/chat-clients.ts, integrations' tests) takes every record for a message.
    const follow = c.req.query("status") === "1";
    return sseStream(deps, c, v.id, after, follow, perVisitor, async (since) => visitorMessages(deps, v, since));
  });

  app.get("/agent/stream", (c) => agentStream(deps, c));

  return app;
}

/**
 * One visitor's stream: catch up from `after`, then every new visible
 * message; heartbeats keep proxies and Bun's idle timer quiet.
 *
 * With `followStatus`, also `event: status` records (VisitorStatus): the
 * current conversation's status once on connect — so a widget that was
 * away while an agent resolved or reopened shows the truth after any
 * reconnect — then each time what the visitor sees changes. They carry no
 * `id:`: the last event id stays the last message's, which is what
 * `after` / Last-Event-ID resume from.
 */
function sseStream(
  deps: Deps,
  c: Context,
  visitorId: number,
  after: number,
  followStatus: boolean,
  perVisitor: Map<number, number>,
  catchUp: (after: number) => Promise<VisibleMessage[]>,
) {
  const hub = hubFor(deps);
  const enc = new TextEncoder();
  const sent = new Set<number>();
  let off = () => {};
  let beat: ReturnType<typeof setInterval> | null = null;
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    start: async (ctrl) => {
      hub.streams++;
      perVisitor.set(visitorId, (perVisitor.get(visitorId) ?? 0) + 1);
      const write = (s: string) => {
        if (closed) return;
        try {
          ctrl.enqueue(enc.encode(s));
        } catch {
          close();
        }
      };
      const send = (m: VisibleMessage) => {
        if (sent.has(m.id)) return;
        sent.add(m.id);
        write(`id: ${m.id}\nevent: message\ndata: ${JSON.stringify(m)}\n\n`);
      };
      /** The visitor's current conversation (the newest they have): an older one's status is not what the widget shows. */
      let current = 0;
      let shown = "";
      const sendStatus = (st: VisitorStatus | null) => {
        if (!st || st.conversation < current) return;
        current = st.conversation;
        // Only what the visitor would see changes: an agent moving open to pending (both "open" here) sends nothing.
        const key = `${st.conversation}:${st.status}:${st.reopensFor === 0}`;
        if (key === shown) return;
        shown = key;
        write(`event: status\ndata: ${JSON.stringify(st)}\n\n`);
      };
      const pending: HubRow[] = [];
      const pendingStatus: HubStatus[] = [];
      let live = false;
      // Hub rows carry the author's name: 500 streams handed one reply each make no read of their own.
      const deliver = (rows: HubRow[]) => {
        for (const r of rows)
          if (r.id > after)
            send(
              visible(
                r,
                new Map(r.userId === null ? [] : [[r.userId, { name: r.authorName }]]),
                visitorFiles(deps, r.files),
              ),
            );
      };
      const deliverStatus = (list: HubStatus[]) => {
        const now = deps.clock.now();
        for (const st of [...list].sort((a, b) => a.number - b.number)) sendStatus(visitorStatus(st, now));
      };
      // Subscribe first, then catch up: a message written in between arrives twice and is sent once; a status read by the
      // hub in between is sent after the one read here, and any change after the hub's read reaches the hub again.
      const offMessages = hub.onVisitor(visitorId, (rows) => {
        if (live) deliver(rows);
        else pending.push(...rows);
      });
      const offStatus = followStatus
        ? hub.onVisitorStatus(visitorId, (list) => {
            if (live) deliverStatus(list);
            else pendingStatus.push(...list);
          })
        : () => {};
      off = () => {
        offMessages();
        offStatus();
      };
      write(`retry: 2000\n: connected\n\n`);
      try {
        await hub.ready;
        for (const m of await catchUp(after)) send(m);
        if (followStatus) sendStatus(await currentStatus(deps, deps.db, visitorId));
        live = true;
        deliver(pending.splice(0));
        deliverStatus(pendingStatus.splice(0));
      } catch {
        close();
      }
      beat = setInterval(() => write(`: ping\n\n`), HEARTBEAT_MS);
    },
    cancel: () => close(),
  });
  function close() {
    if (closed) return;
    closed = true;
    off();
    if (beat) clearInterval(beat);
    hub.streams--;
    const n = (perVisitor.get(visitorId) ?? 1) - 1;
    if (n <= 0) perVisitor.delete(visitorId);
    else perVisitor.set(visitorId, n);
  }
  c.req.raw.signal.addEventListener("abort", close, { once: true });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
