/**
 * Form pieces of signed-in pages: the CSRF field every state-changing form
 * carries (the portal's guard refuses a post without it), the one-button
 * form for destructive actions, and the field row (label, control, hint,
 * error). Values are interpolated by Hono's JSX, so they are escaped.
 */
import type { Child, FC, PropsWithChildren } from "hono/jsx";
import type { Viewer } from "./signed-in";

/** The hidden `_csrf` field; put it first in every form that posts. */
export const Csrf: FC<{ viewer: Viewer }> = ({ viewer }) => (
  <input type="hidden" name="_csrf" value={viewer.csrfToken} />
);

/** A one-button POST form for a destructive action (revoke, disconnect, remove), CSRF token included; children are extra fields. */
export const DangerButton: FC<PropsWithChildren<{ viewer: Viewer; action: string; label: string }>> = ({
  viewer,
  action,
  label,
  children,
}) => (
  <form class="inline" method="post" action={action}>
    <Csrf viewer={viewer} />
    {children}
    <button class="danger" type="submit">
      {label}
    </button>
  </form>
);

/**
 * One field of a form: its label (tied to the control by `id`), the control
 * itself as the child (any input, select or textarea, with that `id`), a
 * hint under it, and the error that field was refused with, announced to
 * screen readers. Pages that show one error for the whole form use Notice.
 */
export const Field: FC<PropsWithChildren<{ id: string; label: Child; hint?: Child; error?: string | null }>> = (p) => (
  <>
    <label for={p.id}>{p.label}</label>
    {p.children}
    {p.hint && <p class="muted small">{p.hint}</p>}
    {p.error && (
      <p class="notice error" role="alert" id={`${p.id}-error`}>
        {p.error}
      </p>
    )}
  </>
);
