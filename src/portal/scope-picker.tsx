/**
 * The scope table of interface.md 5.3 as a form control: one row per
 * domain, a checkbox per scope, plus the wildcards (`*`, `<domain>:*`).
 * Used by API key creation (everything offered) and the OAuth consent
 * screen (only what the client asked for, all ticked; a person unticks what
 * they will not grant).
 */
import type { FC } from "hono/jsx";
import { SCOPES } from "../core/scopes";

const DOMAIN_TITLES: Record<string, string> = {
  profile: "Profile",
  projects: "Projects",
  tickets: "Tickets",
  crm: "CRM",
  sites: "Sites & content",
  media: "Media",
  email: "Email",
  decks: "Pitch decks",
  surveys: "Surveys",
  bookings: "Bookings",
  automations: "Automations",
  team: "Team",
  integrations: "Integrations",
  services: "Services",
  store: "Store",
  billing: "Billing",
  hosting: "Hosting",
  ai: "AI history & credits",
  brain: "Knowledge base",
  approvals: "Approvals",
  chat: "Live chat",
  notifications: "Notifications",
  branding: "Branding",
};

/** What each scope lets a connection do, in the words of the scope table. */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  "profile:read": "read your portal profile",
  "profile:write": "update your portal profile",
  "projects:read": "list and view projects, boards, cards, sprints, labels",
  "projects:write": "create, change and delete projects, boards, cards, sprints; log time",
  "tickets:read": "list and view tickets",
  "tickets:write": "create tickets, post replies, update status",
  "crm:read": "search contacts, companies, deals, pipelines, activities",
  "crm:write": "create and update contacts, companies, deals; manage pipelines",
  "sites:read": "list sites, domains, navigation, posts, templates, taxonomies, media",
  "sites:write": "create, change and delete posts, post types, templates, navigation, domains",
  "media:read": "list media assets",
  "media:write": "upload, register and delete media assets",
  "email:read": "list campaigns, lists, subscribers, templates, segments",
  "email:write": "create, change and delete campaigns, lists, subscribers, templates",
  "email:send": "send and schedule campaigns",
  "decks:read": "list and view pitch decks",
  "decks:write": "create, change, delete and publish decks",
  "surveys:read": "list surveys and responses",
  "surveys:write": "create, change and fork surveys",
  "bookings:read": "list booking pages, bookings, availability",
  "bookings:write": "manage booking pages; change and cancel bookings",
  "automations:read": "list automations",
  "automations:write": "create, change, delete and toggle automations",
  "team:read": "list members and roles",
  "team:write": "invite members, change roles, remove members",
  "integrations:read": "list connected integrations",
  "integrations:write": "revoke integrations",
  "services:read": "list the service catalogue and requests",
  "services:write": "submit service requests",
  "store:read": "list products, orders, customers, discounts, reviews",
  "store:write": "manage products, orders, discounts; moderate reviews; reply to customers",
  "billing:read": "read invoices and subscription data",
  "hosting:read": "read hosting and domain status",
  "ai:read": "read AI conversation history and credits",
  "brain:read": "query the knowledge base",
  "brain:write": "create, change and delete knowledge-base records",
  "brain:approve": "approve knowledge-base review items",
  "approvals:read": "list and inspect pending approval links",
  "approvals:manage": "approve or reject pending approval links",
  "chat:read": "read live chat conversations",
  "chat:write": "send messages and manage conversations",
  "notifications:read": "list notifications",
  "notifications:write": "create and manage notifications",
  "branding:read": "read brand profiles and messaging, run checks",
  "branding:write": "create, change and delete brand profiles and messaging",
};

export const DOMAINS: string[] = [...new Set(SCOPES.map((s) => s.split(":")[0]!))];

/** Every scope the picker can offer, in display order: `*`, then per domain its scopes and wildcard. */
export const ALL_PICKABLE: string[] = ["*", ...DOMAINS.flatMap((d) => [...SCOPES.filter((s) => s.startsWith(`${d}:`)), `${d}:*`])];

export function describeScope(scope: string): string {
  if (scope === "*") return "everything, in every domain, including scopes added later";
  if (scope.endsWith(":*")) return `everything in ${DOMAIN_TITLES[scope.slice(0, -2)] ?? scope.slice(0, -2)}`;
  return SCOPE_DESCRIPTIONS[scope] ?? scope;
}

export const ScopePicker: FC<{ offered: readonly string[]; checked: ReadonlySet<string>; name?: string }> = ({
  offered,
  checked,
  name = "scope",
}) => {
  const offer = new Set(offered);
  const box = (scope: string, label: string) => (
    <label class="inline" title={describeScope(scope)}>
      <input type="checkbox" name={name} value={scope} checked={checked.has(scope)} /> <code>{label}</code>
    </label>
  );
  return (
    <div class="scopes">
      {offer.has("*") && (
        <div class="row">
          <div class="what">
            <strong>All scopes</strong>
            <span class="muted small">{describeScope("*")}</span>
          </div>
          {box("*", "*")}
        </div>
      )}
      {DOMAINS.filter((d) => ALL_PICKABLE.some((s) => s.startsWith(`${d}:`) && offer.has(s))).map((d) => {
        const scopes = SCOPES.filter((s) => s.startsWith(`${d}:`) && offer.has(s));
        return (
          <div class="row">
            <div class="what">
              <strong>{DOMAIN_TITLES[d] ?? d}</strong>
              <span class="muted small">{scopes.map((s) => describeScope(s)).join("; ")}</span>
            </div>
            {scopes.map((s) => box(s, s.split(":")[1]!))}
            {offer.has(`${d}:*`) && box(`${d}:*`, `${d}:*`)}
          </div>
        );
      })}
    </div>
  );
};
