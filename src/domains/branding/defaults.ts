/**
 * The colours a brand falls back to (interface.md 2.6), in a module of
 * their own: the profile verbs and the brand audit both read them, and
 * the audit is imported by the profile verbs.
 */
/** The spec's defaults (interface.md 2.6); a cleared colour falls back to these. */
export const BRANDING_DEFAULTS = {
  primaryColor: "#2563eb",
  secondaryColor: "#1e40af",
  accentColor: "#f59e0b",
  backgroundColor: "#ffffff",
  textColor: "#111827",
} as const;
