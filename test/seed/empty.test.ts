/** The demo is seeded only into a database nobody has started using (src/server.ts, db/seed/demo.ts isEmpty). */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Store } from "../../src/core/db";
import { isEmpty } from "../../db/seed/demo";
import { companies, users } from "../../src/domains/accounts/tables";
import { openTestStore } from "../db";

let store: Store;
beforeAll(async () => void (store = await openTestStore()));
afterAll(() => store.close());

const deps = () => ({ db: store.db }) as Parameters<typeof isEmpty>[0];

test("a fresh database is empty; one user, or one company, without any site is not", async () => {
  expect(await isEmpty(deps())).toBe(true);
  const u = (await store.db.insert(users).values({ email: "first@acme.test", name: "First" }).returning())[0]!;
  expect(await isEmpty(deps())).toBe(false);
  await store.db.delete(users).where(eq(users.id, u.id));
  expect(await isEmpty(deps())).toBe(true);
  await store.db.insert(companies).values({ name: "Acme" });
  expect(await isEmpty(deps())).toBe(false);
});
