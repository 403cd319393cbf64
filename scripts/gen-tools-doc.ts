/** Writes docs/tools.md from the tool registry (`make docs`). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { registry } from "../src/mcp/routes";
import { renderToolsDoc } from "../src/mcp/tools-doc";

const path = join(import.meta.dir, "..", "docs", "tools.md");
writeFileSync(path, renderToolsDoc(registry()));
console.log(`wrote ${path}`);
