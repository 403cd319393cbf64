/**
 * What a signed-in page answers a form post with: a 303 to where the verb
 * says on success, or, when the verb refuses in a way the person can act
 * on, the page they came from again with the reason, as a 400 (what was
 * typed is wrong) or a 409 (the thing moved on meanwhile). Any other error
 * (403, 404, ...) goes on to the one error mapper. Who may act is checked
 * by the caller before this, so a viewer is refused whatever the form holds.
 */
import type { Context } from "hono";
import { isAppError } from "../core/errors";

export async function answerForm(
  c: Context,
  act: () => Promise<string>,
  again: (error: string) => Promise<Response>,
): Promise<Response> {
  try {
    return c.redirect(await act(), 303);
  } catch (e) {
    if (!isAppError(e) || !["validation", "conflict"].includes(e.code)) throw e;
    const page = await again(e.message);
    return new Response(page.body, { status: e.code === "conflict" ? 409 : 400, headers: page.headers });
  }
}
