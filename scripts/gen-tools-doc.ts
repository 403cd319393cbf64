/** Writes docs/tools.md from the tool registry and docs/events.md from the domains' events (`make docs`). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderEventsDoc } from "../src/core/events-doc";
import { domains } from "../src/domains";
import { registry } from "../src/mcp/routes";
import { renderToolsDoc } from "../src/mcp/tools-doc";

for (const [file, text] of [
  ["tools.md", renderToolsDoc(registry())],
  ["events.md", renderEventsDoc(domains)],
] as const) {
  const path = join(import.meta.dir, "..", "docs", file);
  writeFileSync(path, text);
  console.log(`wrote ${path}`);
}
