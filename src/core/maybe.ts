/**
 * Hot paths answer synchronously when they can (a cache hit, a bun:sqlite
 * statement) and return a promise only when they must (PostgreSQL, Redis):
 * REST on SQLite then runs without a single promise per request.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Applies `fn` to a value that may still be on its way, staying synchronous when it is not. */
export function then<T, U>(v: MaybePromise<T>, fn: (x: T) => MaybePromise<U>): MaybePromise<U> {
  return v instanceof Promise ? v.then(fn) : fn(v);
}

/** `xs.map(fn)` for an async `fn`, one at a time (queries inside a transaction run in order). */
export async function mapSeq<T, U>(xs: readonly T[], fn: (x: T, i: number) => Promise<U>): Promise<U[]> {
  const out: U[] = [];
  for (let i = 0; i < xs.length; i++) out.push(await fn(xs[i]!, i));
  return out;
}
