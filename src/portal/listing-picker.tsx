/**
 * Choosing a credential's MCP listing mode (src/mcp/listing.ts), in words a
 * person reads: for the scopes being granted, how many tools the connection
 * lists in each mode and which clients accept that many (Cursor takes about
 * 40, Claude Desktop and the Copilots 128, the rest drop tools silently),
 * then a radio: automatic, full, discovery or chosen toolsets. One component
 * for the OAuth consent screen, the API keys page and the connections page.
 * Works without JavaScript: the counts are for the scopes as the page was
 * rendered, and the page's Preview button recomputes them.
 */
import type { FC } from "hono/jsx";
import { invalid } from "../core/errors";
import { AUTOMATIC_MAX, choosableToolsets, clientsAccepting, listingCounts, parseListingMode } from "../mcp/listing";
import { registry } from "../mcp/routes";
import type { Form } from "../ui/form-data";

const CHOICES = ["auto", "full", "discovery", "toolsets"] as const;
type Choice = (typeof CHOICES)[number];

/** The radio a stored mode shows as, and its chosen toolsets. */
function split(mode: string | null): { choice: Choice; toolsets: string[] } {
  if (!mode) return { choice: "auto", toolsets: [] };
  if (mode === "full" || mode === "discovery") return { choice: mode, toolsets: [] };
  return { choice: "toolsets", toolsets: mode.slice("toolsets:".length).split(",") };
}

/** Reads the chooser's fields (`<prefix>listing`, `<prefix>listing_toolset`): the stored mode, checked; null = automatic. */
export function readListing(form: Form, prefix = ""): string | null {
  const choice = form.text(`${prefix}listing`, { label: "Tool listing", max: 20 }) || "auto";
  if (!(CHOICES as readonly string[]).includes(choice)) throw invalid("Choose a tool listing from the list.");
  if (choice !== "toolsets") return parseListingMode(choice, registry());
  const sets = form.list(`${prefix}listing_toolset`, { max: 50, maxLength: 40 });
  if (!sets.length) throw invalid("Tick at least one toolset for the chosen-toolsets listing.");
  return parseListingMode(`toolsets:${sets.join(",")}`, registry());
}

/** "12 tools", said with the clients that take it. */
const Count: FC<{ n: number }> = ({ n }) => (
  <>
    <strong>{n} tools</strong> <span class="muted">({clientsAccepting(n)})</span>
  </>
);

/** One line for a list: the mode and how many tools it lists for these scopes. */
export function listingSummary(mode: string | null, scopes: readonly string[]): string {
  const { choice, toolsets } = split(mode);
  const counts = listingCounts(registry(), scopes, toolsets);
  const n =
    choice === "full" || (choice === "auto" && counts.automatic === "full")
      ? counts.full
      : choice === "toolsets"
        ? counts.toolsets!
        : counts.discovery;
  const name =
    choice === "auto"
      ? `automatic (${counts.automatic})`
      : choice === "toolsets"
        ? `toolsets ${toolsets.join(", ")}`
        : choice;
  return `${name}: ${n} tools listed`;
}

/**
 * The fieldset. `scopes`: what the credential is granted as the page stands;
 * `mode`: the stored or chosen mode; `prefix` keeps several choosers on one
 * page apart (one per key).
 */
export const ListingChooser: FC<{ scopes: readonly string[]; mode: string | null; prefix?: string; id?: string }> = ({
  scopes,
  mode,
  prefix = "",
  id = "listing",
}) => {
  const { choice, toolsets } = split(mode);
  const counts = listingCounts(registry(), scopes, toolsets);
  const radio = (value: Choice, label: string, detail: unknown) => (
    <label class="inline">
      <input type="radio" name={`${prefix}listing`} value={value} checked={choice === value} /> {label}{" "}
      <span class="small">— {detail}</span>
    </label>
  );
  return (
    <fieldset class="listing" id={id}>
      <legend>Tool listing</legend>
      <p class="muted small">
        Clients load a limited number of tools and silently drop the rest (Cursor about 40; Claude Desktop, VS Code and
        JetBrains Copilot, Copilot CLI 128). Every tool these scopes allow stays usable in every mode: in discovery or
        chosen toolsets the AI finds the others with a search tool and runs them through a router tool.
      </p>
      {radio(
        "auto",
        "Automatic",
        <>
          full when that is at most {AUTOMATIC_MAX} tools, else discovery: here {counts.automatic},{" "}
          <Count n={counts.automatic === "full" ? counts.full : counts.discovery} />
        </>,
      )}
      {radio("full", "Full", <Count n={counts.full} />)}
      {radio("discovery", "Discovery", <Count n={counts.discovery} />)}
      {radio(
        "toolsets",
        "Chosen toolsets",
        counts.toolsets === null ? "tick toolsets below" : <Count n={counts.toolsets} />,
      )}
      <details open={choice === "toolsets"}>
        <summary class="small">Toolsets to list</summary>
        <div class="toolsets">
          {choosableToolsets(registry(), scopes).map((t) => (
            <label class="inline">
              <input
                type="checkbox"
                name={`${prefix}listing_toolset`}
                value={t.name}
                checked={toolsets.includes(t.name)}
              />{" "}
              {t.name}
            </label>
          ))}
        </div>
      </details>
    </fieldset>
  );
};
