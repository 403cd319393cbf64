/**
 * The guides that tool descriptions point to, served as MCP resources
 * (`docs://<name>`, text/markdown) instead of file paths an agent cannot
 * open. The Markdown is imported as text by the domain that owns it, so the
 * compiled binary carries it and the resource is always the file in the
 * repository. Links between served guides are rewritten to their URIs.
 */
import { defineResource, type ResourceDef } from "./define";

/** Names of the guides served as docs://<name>; a link `(name.md)` in a guide becomes `(docs://name)`. */
const SERVED = new Set<string>();

export function guideUri(name: string): string {
  return `docs://${name}`;
}

/** Rewrites links to other served guides (`[x](events.md#y)`) to their resource URIs. */
export function linkGuides(markdown: string): string {
  return markdown.replace(/\]\(([a-z][a-z0-9-]*)\.md(#[^)]*)?\)/g, (whole, name: string, anchor?: string) =>
    SERVED.has(name) ? `](${guideUri(name)}${anchor ?? ""})` : whole,
  );
}

export function guideResource(o: {
  name: string;
  title: string;
  description: string;
  scope: string | null;
  markdown: string;
}): ResourceDef {
  SERVED.add(o.name);
  return defineResource({
    uri: guideUri(o.name),
    name: o.title,
    description: o.description,
    mimeType: "text/markdown",
    scope: o.scope,
    read: () => linkGuides(o.markdown),
  });
}
