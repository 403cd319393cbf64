/**
 * HTML of the public approval pages. Every interpolated value goes through
 * `e()` (HTML escaping); the only raw HTML is the preview fragment, which
 * the approvals domain builds from escaped text and renderBlocksHtml.
 * Pages carry no script at all; styles sit in one element with the
 * response's CSP nonce.
 */
import { escapeHtml as e } from "../domains/blocks/render";
import type { ApprovalView } from "../domains/approvals/verbs";

const CHROME_CSS = `
:root{color-scheme:light}
*{box-sizing:border-box}
body{margin:0;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1c2330}
main{max-width:920px;margin:0 auto;padding:1.5rem 1rem 4rem}
.ap-brand{font-weight:700;color:#5b6576;font-size:.9rem;letter-spacing:.04em;text-transform:uppercase;margin:0 0 1rem}
.ap-card{background:#fff;border:1px solid #dde1e7;border-radius:10px;padding:1.1rem 1.25rem;margin:0 0 1rem}
h1.ap-page{font-size:1.5rem;margin:.1rem 0 .4rem}
.ap-meta{color:#5b6576;margin:.2rem 0}
.ap-summary{font-weight:600}
.ap-h{font-size:1.05rem;margin:1.4rem 0 .5rem}
dl.ap-facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.6rem 0}
dl.ap-facts dt{color:#5b6576}dl.ap-facts dd{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
table.ap-changes{border-collapse:collapse;width:100%;font-size:.92rem}
table.ap-changes th,table.ap-changes td{border:1px solid #dde1e7;padding:.35rem .5rem;text-align:left;vertical-align:top;white-space:pre-wrap;overflow-wrap:anywhere}
table.ap-changes td.ap-none{color:#8a93a3}
.ap-title{margin-top:0}
.ap-upload img,.ap-cover img{max-width:100%;height:auto;border-radius:6px}
details.ap-live{margin-top:1rem}
.ap-notice{border-radius:8px;padding:.75rem 1rem;margin:0 0 1rem;border:1px solid #c9d3e6;background:#eef3fd}
.ap-notice.ok{border-color:#a6e0c2;background:#ecfdf3}
.ap-notice.warn{border-color:#f5d49a;background:#fffaeb}
.ap-notice.bad{border-color:#f4b8b3;background:#fef3f2}
form.ap-decide label{display:block;font-weight:600;margin:.6rem 0 .25rem}
form.ap-decide input[type=text],form.ap-decide input[type=email],form.ap-decide textarea{width:100%;padding:.5rem;border:1px solid #c5ccd6;border-radius:6px;font:inherit}
form.ap-decide input.ap-code{max-width:12rem;font-size:1.2rem;letter-spacing:.2em;font-variant-numeric:tabular-nums}
.ap-who{margin:.2rem 0 .4rem}
.ap-ways{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));margin-top:.6rem}
.ap-way{border:1px solid #dde1e7;border-radius:8px;padding:.8rem 1rem}
.ap-way h3{font-size:1rem;margin:0 0 .4rem}
a.ap-button{display:inline-block;font-weight:600;padding:.6rem 1.4rem;border-radius:8px;background:#1c2330;color:#fff;text-decoration:none}
button.send{background:#1c2330;color:#fff}
.ap-actions{display:flex;gap:.75rem;margin-top:1rem;flex-wrap:wrap}
button{font:inherit;font-weight:600;padding:.6rem 1.4rem;border-radius:8px;border:1px solid transparent;cursor:pointer}
button.approve{background:#067647;color:#fff}
button.reject{background:#fff;color:#b42318;border-color:#b42318}
.ap-small{font-size:.87rem;color:#5b6576}
`;

export interface PageOptions {
  title: string;
  nonce: string;
  body: string;
  /** Extra CSS (the preview's branded stylesheet). */
  css?: string;
}

export function page(o: PageOptions): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="robots" content="noindex,nofollow">
<title>${e(o.title)}</title>
<style nonce="${e(o.nonce)}">${CHROME_CSS}${o.css ?? ""}</style>
</head><body><main>
<p class="ap-brand">Approval request</p>
${o.body}
</main></body></html>`;
}

export function notice(kind: "ok" | "warn" | "bad" | "info", text: string): string {
  return `<div class="ap-notice ${kind === "info" ? "" : kind}" role="${kind === "bad" ? "alert" : "status"}">${e(text)}</div>`;
}

const fmt = (isoString: string | null) => (isoString ? new Date(isoString).toUTCString().replace("GMT", "UTC") : "");

function requester(a: ApprovalView): string {
  const who = a.requestedBy.name ?? "someone";
  const via =
    a.credential.name && a.credential.kind !== "session"
      ? ` via ${a.credential.kind === "oauth" ? "the connected app" : "the API key"} “${a.credential.name}”`
      : "";
  return `${who}${via}`;
}

/** The header block: what, who, when. */
export function header(a: ApprovalView, title: string): string {
  const kind =
    a.linkType === "pending_change"
      ? `held change (${a.entityType.replace(/_/g, " ")})`
      : a.entityType.replace(/_/g, " ");
  return `<section class="ap-card">
<h1 class="ap-page">${e(title)}</h1>
<p class="ap-meta">${e(kind.charAt(0).toUpperCase() + kind.slice(1))} · requested by <strong>${e(requester(a))}</strong> on ${e(fmt(a.createdAt))}</p>
${a.status === "pending" ? `<p class="ap-meta">This link expires on <strong>${e(fmt(a.expiresAt))}</strong>.</p>` : ""}
</section>`;
}

export function decidedNotice(a: ApprovalView, fresh: boolean): string {
  const by = a.decidedBy ? ` by ${a.decidedBy}` : "";
  const when = a.decidedAt ? ` on ${fmt(a.decidedAt)}` : "";
  const comment = a.comment ? ` Comment: “${a.comment}”` : "";
  if (a.status === "approved")
    return notice(
      "ok",
      fresh ? `Approved. The change is live.${comment}` : `This request was already approved${when}${by}.${comment}`,
    );
  if (a.status === "rejected")
    return notice(
      "bad",
      fresh
        ? `Rejected. Nothing was published or changed.${comment}`
        : `This request was already rejected${when}${by}. Nothing was published or changed.${comment}`,
    );
  if (a.status === "expired")
    return notice(
      "warn",
      `This link expired on ${fmt(a.expiresAt)} without a decision. Nothing was published. Ask ${a.requestedBy.name ?? "the author"} for a new link.`,
    );
  if (a.status === "superseded")
    return notice(
      "warn",
      "This request was replaced by a newer version, so it can no longer be decided here. Ask for the newest link.",
    );
  return notice("warn", "This request was withdrawn: the item it was about was deleted.");
}

/** Who is deciding, as the decision form says it (plain text; escaped here). */
export type FormMode =
  | { kind: "member"; name: string; email: string; role: string; company: string }
  | { kind: "link"; company: string }
  | { kind: "code"; email: string };

const buttons = `<div class="ap-actions">
<button class="approve" type="submit" name="decision" value="approve">Approve</button>
<button class="reject" type="submit" name="decision" value="reject">Reject</button>
</div>
<p class="ap-small">Approving publishes exactly what is shown above. Either decision is final.</p>`;

const commentField = `<label for="ap-comment">Comment for the author (optional)</label>
<textarea id="ap-comment" name="comment" rows="3" maxlength="2000"></textarea>`;

/** The decision form, for someone the page already knows may decide (or, with a code, is about to prove it). */
export function decisionForm(action: string, csrf: string, mode: FormMode): string {
  let who: string;
  let proof = "";
  if (mode.kind === "member")
    who = `<p class="ap-who">Signed in as <strong>${e(mode.name)}</strong> (${e(mode.email)}), ${e(mode.role)} of ${e(mode.company)}.</p>`;
  else if (mode.kind === "link")
    who = `<p class="ap-who">${e(mode.company)} lets anyone with this link decide, including the agent that asked. Your decision is recorded as made by a link holder, and the company's owners and admins are told.</p>`;
  else {
    who = `<p class="ap-who">Deciding as <strong>${e(mode.email)}</strong>, with the code mailed to that address.</p>`;
    proof = `<input type="hidden" name="email" value="${e(mode.email)}">
<label for="ap-code">Code from the email</label>
<input id="ap-code" class="ap-code" type="text" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{8}" maxlength="8" required>`;
  }
  return `<form class="ap-card ap-decide" method="post" action="${e(action)}">
<input type="hidden" name="csrf" value="${e(csrf)}">
<h2 class="ap-h">Your decision</h2>
${who}
${proof}
${commentField}
${buttons}
</form>`;
}

/** Under `person` with nobody the page knows: sign in, or (when the company lists reviewers) get a code by email. */
export function waysToDecide(o: {
  action: string;
  csrf: string;
  loginUrl: string;
  reviewers: boolean;
  signedInAs?: { name: string; why: string } | null;
}): string {
  const signedIn = o.signedInAs
    ? `<p class="ap-who">Signed in as <strong>${e(o.signedInAs.name)}</strong>. ${e(o.signedInAs.why)}</p>`
    : "";
  const code = o.reviewers
    ? `<div class="ap-way"><h3>Get a code by email</h3>
<form class="ap-decide" method="post" action="${e(`${o.action}/code`)}">
<input type="hidden" name="csrf" value="${e(o.csrf)}">
<label for="ap-email">Your email address</label>
<input id="ap-email" type="email" name="email" maxlength="254" autocomplete="email" required>
<div class="ap-actions"><button class="send" type="submit">Send code</button></div>
<p class="ap-small">For reviewers the company lists. The code works once, for 10 minutes.</p>
</form></div>`
    : "";
  return `<section class="ap-card">
<h2 class="ap-h">Your decision</h2>
${signedIn}
<p>A person other than the one who asked decides this request.</p>
<div class="ap-ways">
<div class="ap-way"><h3>Members</h3><p>Owners and admins of the company decide after signing in.</p>
<a class="ap-button" href="${e(o.loginUrl)}">Sign in to decide</a></div>
${code}
</div>
</section>`;
}

export function unknownPage(nonce: string): string {
  return page({
    title: "Approval link not valid",
    nonce,
    body: `<section class="ap-card"><h1 class="ap-page">This approval link is not valid</h1>
<p>Check that the whole link was copied. If it came from an agent or a colleague, ask them for the link again.</p></section>`,
  });
}

export function messagePage(nonce: string, title: string, text: string): string {
  return page({
    title,
    nonce,
    body: `<section class="ap-card"><h1 class="ap-page">${e(title)}</h1><p>${e(text)}</p></section>`,
  });
}
