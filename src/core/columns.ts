/**
 * Column helpers shared by every tables.ts. Times are stored as epoch
 * milliseconds (integer) and come back as Date, so every date-time can leave
 * the API as ISO 8601 UTC without timezone guesswork.
 */
import { integer, text } from "drizzle-orm/sqlite-core";

export const id = () => integer("id").primaryKey({ autoIncrement: true });
export const createdAt = () =>
  integer("created_at", { mode: "timestamp_ms" }).notNull().$defaultFn(() => new Date());
export const updatedAt = () =>
  integer("updated_at", { mode: "timestamp_ms" }).notNull().$defaultFn(() => new Date());
export const time = (name: string) => integer(name, { mode: "timestamp_ms" });
export const bool = (name: string) => integer(name, { mode: "boolean" });
export const json = <T>(name: string) => text(name, { mode: "json" }).$type<T>();
