/**
 * The catalog of this build: every domain of src/domains/index.ts, collected
 * and checked once (src/mcp/catalog.ts). This is the one importer of the
 * domain list; the entry points (server, app, CLI, scripts) take the catalog
 * from here and hand it down (Deps.catalog), so no domain ever loads the
 * list that contains it.
 */
import { domains } from "./domains";
import { buildCatalog } from "./mcp/catalog";

export const catalog = buildCatalog(domains);
