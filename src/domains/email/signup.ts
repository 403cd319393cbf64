/**
 * The public signup form of a list (/e/s/<key>), for visitors of the
 * agency's or the client's site: the hosted page, or the same form embedded
 * as plain HTML on any site (it posts here; no script, no cookie needed).
 *
 * Every signup is double opt-in whatever the list's own setting: an address
 * typed by a stranger is not consent until its owner clicks the mailed link.
 * That is also what makes the form safe to post from anywhere: the worst a
 * forged or scripted signup can do is send one confirmation, so
 * - the answer is the same whatever the address's state (a visitor learns
 *   nothing about who is subscribed);
 * - one address gets at most one confirmation per list an hour, so the form
 *   cannot be used to flood someone's inbox;
 * - subscribed, bounced, complained and blocklisted addresses get no mail;
 *   someone who unsubscribed may come back, through the confirmation;
 * - a honeypot field and the per-client-address rate limit of the public
 *   pages turn away the simple bots (no third-party captcha).
 */
import { and, eq } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { emit } from "../../core/events";
import { normalEmail, publicBase, type ListRow } from "./access";
import { subscriberAdded } from "./events";
import { foldSubscriber } from "./segment-rules";
import { queueConfirmation } from "./subscribers";
import { emailLists, emailMemberships, emailSubscribers } from "./tables";
import { companies } from "../../core/tables";

/** 24 random bytes: the key is the form's only authority, like a share link. */
export const SIGNUP_KEY_BYTES = 24;
const KEY = new RegExp(`^[0-9a-f]{${SIGNUP_KEY_BYTES * 2}}$`);
/** One confirmation per address and list within this time, however often the form is posted. */
export const RESEND_AFTER_MS = 3600_000;

export const signupUrl = (deps: Pick<Deps, "config">, key: string) => `${publicBase(deps)}/s/${key}`;

/** The list behind a signup key, with its company's name; null for an unknown or switched-off key. */
export async function signupList(deps: Deps, key: string): Promise<{ list: ListRow; companyName: string } | null> {
  if (!KEY.test(key)) return null;
  const hit = (
    await deps.db
      .select({ list: emailLists, companyName: companies.name })
      .from(emailLists)
      .innerJoin(companies, eq(companies.id, emailLists.companyId))
      .where(eq(emailLists.signupKey, key))
      .limit(1)
  )[0];
  return hit ?? null;
}

export type SignupOutcome = "confirmation_sent" | "nothing_sent";

/**
 * A visitor's signup: the address is added (or found) and its membership
 * made unconfirmed with a confirmation queued, when that is what it needs.
 * Throws a validation error for an address that is not one; the caller
 * answers every other case the same way.
 */
export async function signupByForm(
  deps: Deps,
  key: string,
  form: { email: string; name?: string | null },
): Promise<SignupOutcome | null> {
  const email = normalEmail(form.email);
  const name = form.name?.trim() ? form.name.trim().slice(0, 200) : null;
  return deps.db.transaction(async (tx) => {
    const hit = await signupList(deps, key);
    if (!hit) return null;
    const { list } = hit;
    const company = { id: list.companyId, name: hit.companyName };
    const now = deps.clock.now();
    const mine = and(eq(emailSubscribers.companyId, company.id), eq(emailSubscribers.email, email));
    let s = (await tx.select().from(emailSubscribers).where(mine).limit(1))[0];
    let created = false;
    if (!s) {
      // A stranger's typing does not become attributes or overwrite a known name: only a new address takes the name.
      s = (
        await tx
          .insert(emailSubscribers)
          .values({
            companyId: company.id,
            email,
            name,
            attributes: {},
            fold: foldSubscriber({ email, name, attributes: {} }),
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
          .returning()
      )[0];
      created = s !== undefined;
      s ??= (await tx.select().from(emailSubscribers).where(mine).limit(1))[0]!;
    }
    const m = (
      await tx
        .select()
        .from(emailMemberships)
        .where(and(eq(emailMemberships.listId, list.id), eq(emailMemberships.subscriberId, s.id)))
        .limit(1)
    )[0];
    const settled = m && (m.status === "subscribed" || m.status === "bounced" || m.status === "complained");
    const recent = m?.status === "unconfirmed" && now.getTime() - m.updatedAt.getTime() < RESEND_AFTER_MS;
    if (s.blocklisted || settled || recent) return "nothing_sent";
    const tokenHash = await queueConfirmation(tx, deps, company, s, list);
    if (m)
      await tx
        .update(emailMemberships)
        .set({ status: "unconfirmed", confirmTokenHash: tokenHash, confirmedAt: null, updatedAt: now })
        .where(eq(emailMemberships.id, m.id));
    else
      await tx
        .insert(emailMemberships)
        .values({
          companyId: company.id,
          listId: list.id,
          subscriberId: s.id,
          status: "unconfirmed",
          confirmTokenHash: tokenHash,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing();
    await emit(
      tx,
      { deps, company },
      subscriberAdded,
      { id: s.id },
      {
        email: s.email,
        name: s.name,
        created,
        lists: [{ listId: list.id, listName: list.name, status: "unconfirmed" }],
        source: "signup_form",
      },
    );
    return "confirmation_sent";
  });
}
