/**
 * The bundled demo site. Seeded into an empty data dir on first `serve`, and
 * by `plinth seed --demo`.
 */
import { sites } from "../../src/domains/sites/tables";
import type { Deps } from "../../src/core/context";

export interface DemoCredentials {
  siteId: number;
  restKey: string;
  mcpKey: string;
  email: string;
  password: string;
}

export function isEmpty(deps: Deps): boolean {
  return deps.db.select({ id: sites.id }).from(sites).limit(1).all().length === 0;
}

export async function seedDemo(_deps: Deps): Promise<DemoCredentials | null> {
  return null;
}
