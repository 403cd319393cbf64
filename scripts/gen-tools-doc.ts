/**
 * Writes docs/tools.md from the tool registry, docs/events.md from the
 * domains' events, docs/approvals.md's list of supervised tools from the
 * tools' declarations and the README's settings table from every setting
 * (`make docs`).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderEventsDoc } from "../src/core/events-doc";
import { catalog } from "../src/catalog";
import { withSettingsTable } from "../src/cli/settings-doc";
import { withSupervisedList } from "../src/domains/approvals/supervision-doc";
import { registry } from "../src/mcp/routes";
import { renderToolsDoc } from "../src/mcp/tools-doc";

for (const [file, text] of [
  ["tools.md", renderToolsDoc(registry())],
  ["events.md", renderEventsDoc(catalog.domains)],
] as const) {
  const path = join(import.meta.dir, "..", "docs", file);
  writeFileSync(path, text);
  console.log(`wrote ${path}`);
}

const readme = join(import.meta.dir, "..", "README.md");
writeFileSync(readme, withSettingsTable(readFileSync(readme, "utf8")));
console.log(`wrote ${readme} (settings table)`);

const approvals = join(import.meta.dir, "..", "docs", "approvals.md");
writeFileSync(approvals, withSupervisedList(readFileSync(approvals, "utf8"), catalog.tools.values()));
console.log(`wrote ${approvals} (supervised tools)`);
