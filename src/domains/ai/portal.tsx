/**
 * AI credits in the portal (`/ai/credits`, the link budget notifications
 * carry): the active company's balance, this month's budget and the ledger
 * (newest first, 25 a page, filter grants / debits). Grants and budgets are
 * the agency's decision: its people are the company's owners and admins, as
 * on the billing page, so they get the forms (grant with a note; set or
 * remove the monthly budget) and viewers read. The forms call the same
 * operator verbs as `plinth credits` (grantCredits / setBudget, audited as
 * the person's portal session); posts pass the portal's formGuard like
 * every other.
 */
import { inArray } from "drizzle-orm";
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { invalid, isAppError } from "../../core/errors";
import type { Form } from "../../ui/form-data";
import { when } from "../../ui/format";
import { Csrf, DangerButton } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { Pager } from "../../ui/pager";
import { StatusBadge } from "../../ui/badge";
import { DataTable } from "../../ui/table";
import { actorOf, viewerOf, canManage, type PageEnv, type Viewer } from "../../ui/signed-in";
import { users } from "../../core/tables";
import { creditBalance, creditLedger, DEFAULT_THRESHOLDS, grantCreditsAs, MAX_AMOUNT, setBudgetAs } from "./credits";

export const CREDITS_PATH = "/ai/credits";
const PER_PAGE = 25;
const KINDS = ["grant", "debit", "refund"] as const;
const KIND_LABEL: Record<Kind, string> = { grant: "Grants", debit: "Debits", refund: "Refunds" };
type Kind = (typeof KINDS)[number];

const fmt = (n: number) => n.toLocaleString("en-US");

/** "5000" or "5,000" → 5000; anything else (0, -5, 1.5, 1e9, "abc", past the maximum) is refused with the range. */
export function creditsOf(raw: string, label: string): number {
  const t = raw.replace(/[,\s_]/g, "");
  if (!raw) throw invalid(`${label} is required.`);
  if (!/^\d{1,13}$/.test(t) || Number(t) < 1 || Number(t) > MAX_AMOUNT)
    throw invalid(
      `${label} must be a whole number of credits from 1 to ${fmt(MAX_AMOUNT)}; "${raw.slice(0, 40)}" is not.`,
    );
  return Number(t);
}

/** "50, 80,100" → [50, 80, 100]; empty → the defaults. */
export function thresholdsOf(raw: string): number[] {
  if (!raw) return DEFAULT_THRESHOLDS;
  const parts = raw.split(",").map((p) => p.trim());
  if (parts.length > 10 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) < 1 || Number(p) > 100))
    throw invalid(
      "Alert thresholds are up to 10 whole percentages from 1 to 100, separated by commas, e.g. 50, 80, 100.",
    );
  return parts.map(Number);
}

type Which = "grant" | "budget";
interface View {
  kind: Kind | null;
  pageNo: number;
}
interface Extra {
  error?: { form: Which; message: string };
  notice?: string;
  values?: Record<string, string>;
}

function here(v: View, pageNo = v.pageNo) {
  const q = new URLSearchParams();
  if (v.kind) q.set("kind", v.kind);
  if (pageNo > 1) q.set("page", String(pageNo));
  const s = q.toString();
  return s ? `${CREDITS_PATH}?${s}` : CREDITS_PATH;
}

const NOTICES: Record<string, string> = {
  granted: "Credits granted; the ledger shows the new balance.",
  budget: "Monthly budget saved.",
  removed: "Monthly budget removed.",
};

type Balance = Awaited<ReturnType<typeof creditBalance>>;
type Ledger = Awaited<ReturnType<typeof creditLedger>>;

const Page = (p: { viewer: Viewer; bal: Balance; ledger: Ledger; names: Map<number, string>; view: View } & Extra) => {
  const manage = canManage(p.viewer);
  const b = p.bal.budget;
  const val = (k: string, dflt = "") => p.values?.[k] ?? dflt;
  const err = (f: Which) => p.error?.form === f && <Notice kind="error">{p.error.message}</Notice>;
  const pages = Math.max(1, Math.ceil(p.ledger.total / PER_PAGE));
  return (
    <Layout title="AI credits" viewer={p.viewer} path={CREDITS_PATH}>
      <h1>AI credits of {p.viewer.active!.name}</h1>
      <p class="lead" id="balance">
        Balance <strong>{fmt(p.bal.balance)}</strong> credits
        {b && (
          <>
            {" "}
            · this month {fmt(b.spent)} of {fmt(b.monthlyLimit)} spent ({b.percentUsed}%)
          </>
        )}
      </p>
      {p.notice && <Notice kind="ok">{p.notice}</Notice>}
      {p.error && !manage && <Notice kind="error">{p.error.message}</Notice>}
      <p class="muted small">
        Metered operations (email sends, embeddings, PDF exports) spend credits; an operation the balance cannot cover
        is refused and changes nothing. Credits paid for campaign recipients never sent (a cancelled campaign) come back
        as refunds.
        {!manage && " Grants and budgets are set by the company's owners and admins."}
      </p>

      <h2>Monthly budget</h2>
      <div class="card" id="budget">
        {b ? (
          <p>
            {fmt(b.monthlyLimit)} credits a month (UTC),{" "}
            {b.hard ? "hard: debits past it are refused" : "soft: owners and admins are alerted, nothing is refused"}.
            Alerts at {b.thresholds.join(", ")}%. Spent {fmt(b.spent)}, {fmt(b.remaining)} left; resets{" "}
            {when(new Date(b.resetsAt!))}.
          </p>
        ) : (
          <p class="muted">No budget: credits are spent until the balance runs out.</p>
        )}
        {manage && (
          <>
            <form method="post" action={`${CREDITS_PATH}/budget`}>
              <Csrf viewer={p.viewer} />
              {err("budget")}
              <label for="budget-limit">Credits per month</label>
              <input
                id="budget-limit"
                name="monthly_limit"
                inputmode="numeric"
                maxlength={20}
                required
                value={val("monthly_limit", b ? String(b.monthlyLimit) : "")}
              />
              <label for="budget-thresholds">Alert owners and admins at (% of the budget)</label>
              <input
                id="budget-thresholds"
                name="thresholds"
                maxlength={60}
                value={val("thresholds", (b?.thresholds ?? DEFAULT_THRESHOLDS).join(", "))}
              />
              <label>
                <input
                  type="checkbox"
                  name="hard"
                  value="1"
                  checked={p.values ? p.values.hard === "1" : (b?.hard ?? false)}
                />{" "}
                Hard limit: refuse debits past the budget
              </label>
              <div class="actions">
                <button type="submit">{b ? "Save budget" : "Set budget"}</button>
              </div>
            </form>
            {b && <DangerButton viewer={p.viewer} action={`${CREDITS_PATH}/budget/remove`} label="Remove budget" />}
          </>
        )}
      </div>

      {manage && (
        <>
          <h2>Grant credits</h2>
          <form class="card" method="post" action={`${CREDITS_PATH}/grant`} id="grant">
            <Csrf viewer={p.viewer} />
            {err("grant")}
            <label for="grant-amount">Credits</label>
            <input id="grant-amount" name="amount" inputmode="numeric" maxlength={20} required value={val("amount")} />
            <label for="grant-note">Note (shown in the ledger)</label>
            <input id="grant-note" name="note" maxlength={500} value={val("note")} placeholder="Q3 allowance" />
            <div class="actions">
              <button type="submit">Grant</button>
            </div>
          </form>
        </>
      )}

      <h2>Ledger</h2>
      <nav class="tabs" aria-label="Ledger entries">
        {([null, ...KINDS] as (Kind | null)[]).map((k) => (
          <a href={here({ kind: k, pageNo: 1 })} aria-current={k === p.view.kind ? "page" : undefined}>
            {k === null ? "All" : KIND_LABEL[k]}
          </a>
        ))}
      </nav>
      <DataTable
        id="ledger"
        columns={["When", "Entry", "Credits", "Balance after", { label: "Note", hideSm: true }]}
        empty={p.ledger.items.length === 0 && <>No entries{p.view.kind ? ` of this kind` : ""} yet.</>}
      >
        {p.ledger.items.map((e) => (
          <tr id={`entry-${e.id}`}>
            <td>{when(e.at ? new Date(e.at) : null)}</td>
            <td>
              <StatusBadge tone={e.kind === "refund" ? "ok" : "neutral"}>{e.kind}</StatusBadge>{" "}
              {e.kind !== "grant" && <>{e.reason}</>}
              {e.ref && <span class="muted small"> {e.ref}</span>}
              {e.userId !== null && <span class="muted small"> · {p.names.get(e.userId) ?? `user ${e.userId}`}</span>}
            </td>
            <td>{e.amount > 0 ? `+${fmt(e.amount)}` : `−${fmt(-e.amount)}`}</td>
            <td>{fmt(e.balanceAfter)}</td>
            <td class="hide-sm">{e.note ?? ""}</td>
          </tr>
        ))}
      </DataTable>
      <Pager pageNo={p.view.pageNo} pages={pages} href={(n) => here(p.view, n)} />
    </Layout>
  );
};

function viewOf(c: Context): View {
  const k = c.req.query("kind");
  const raw = c.req.query("page") ?? "1";
  return {
    kind: (KINDS as readonly string[]).includes(k ?? "") ? (k as Kind) : null,
    pageNo: /^\d{1,6}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : 1,
  };
}

export function creditRoutes(app: Hono<PageEnv>, deps: Deps) {
  const page = async (c: Context<PageEnv>, extra: Extra = {}, view: View = viewOf(c)) => {
    const viewer = viewerOf(c);
    const ctx = actorOf(c);
    const bal = await creditBalance(ctx);
    const ledger = await creditLedger(ctx, {
      kind: view.kind ?? undefined,
      limit: PER_PAGE,
      offset: (view.pageNo - 1) * PER_PAGE,
    });
    const ids = [...new Set(ledger.items.map((e) => e.userId).filter((u): u is number => u !== null))];
    const names = new Map(
      (ids.length
        ? await deps.db
            .select({ id: users.id, name: users.name, email: users.email })
            .from(users)
            .where(inArray(users.id, ids))
        : []
      ).map((u) => [u.id, u.name ?? u.email]),
    );
    return <Page viewer={viewer} bal={bal} ledger={ledger} names={names} view={view} {...extra} />;
  };

  /** Runs a form's verb; a refusal re-shows the page with the reason beside that form and what was typed. */
  const attempt = async (
    c: Context<PageEnv>,
    which: Which,
    fields: string[],
    fn: (f: Form) => Promise<unknown>,
    done: string,
  ) => {
    const form = c.get("form");
    try {
      await fn(form);
      return c.redirect(`${CREDITS_PATH}?done=${done}`, 303);
    } catch (e) {
      if (!isAppError(e) || !["validation", "forbidden", "conflict"].includes(e.code)) throw e;
      const values = Object.fromEntries(fields.map((k) => [k, (form.params.get(k) ?? "").slice(0, 500)]));
      const status = e.code === "forbidden" ? 403 : e.code === "conflict" ? 409 : 400;
      return render(
        c,
        await page(c, { error: { form: which, message: e.message }, values }, { kind: null, pageNo: 1 }),
        { status },
      );
    }
  };

  app.get(CREDITS_PATH, async (c) => render(c, await page(c, { notice: NOTICES[c.req.query("done") ?? ""] })));

  app.post(`${CREDITS_PATH}/grant`, async (c) =>
    attempt(
      c,
      "grant",
      ["amount", "note"],
      async (f) => {
        const amount = creditsOf(f.text("amount", { label: "Credits", max: 40 }), "Credits");
        await grantCreditsAs(actorOf(c), {
          amount,
          note: f.text("note", { label: "Note", max: 500 }) || null,
        });
      },
      "granted",
    ),
  );

  app.post(`${CREDITS_PATH}/budget`, async (c) =>
    attempt(
      c,
      "budget",
      ["monthly_limit", "thresholds", "hard"],
      async (f) => {
        const monthlyLimit = creditsOf(
          f.text("monthly_limit", { label: "Credits per month", max: 40 }),
          "Credits per month",
        );
        const thresholds = thresholdsOf(f.text("thresholds", { label: "Alert thresholds", max: 60 }));
        await setBudgetAs(actorOf(c), { monthlyLimit, thresholds, hard: f.bool("hard") });
      },
      "budget",
    ),
  );

  app.post(`${CREDITS_PATH}/budget/remove`, async (c) =>
    attempt(c, "budget", [], async () => setBudgetAs(actorOf(c), { monthlyLimit: null }), "removed"),
  );
}
