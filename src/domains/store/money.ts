/**
 * Money and quantity limits. Money is integer cents everywhere; every amount
 * a caller can set is capped well inside 2^53 so that sums and products of
 * them stay exact, and order arithmetic runs in BigInt before being checked
 * against the order cap and converted back.
 */
import * as v from "valibot";

/** Largest single price or amount: 10,000,000,000 cents = 100 million in major units. */
export const MAX_CENTS = 10_000_000_000;
/** Largest stock level or line quantity. */
export const MAX_QUANTITY = 1_000_000;
/** Largest order subtotal: 10^15 cents, so every line and every total is a safe integer. */
export const MAX_ORDER_CENTS = 1_000_000_000_000_000;
/** Basis points: 10000 = 100 %. */
export const MAX_BASIS_POINTS = 10_000;

export const cents = (what = "Amount") =>
  v.pipe(
    v.number(`${what} must be a number of cents.`),
    v.integer(`${what} must be whole cents (an integer).`),
    v.minValue(0, `${what} must not be negative.`),
    v.maxValue(MAX_CENTS, `${what} must be at most ${MAX_CENTS} cents.`),
  );

export const quantity = (what = "Quantity", min = 0) =>
  v.pipe(
    v.number(`${what} must be a number.`),
    v.integer(`${what} must be an integer.`),
    v.minValue(min, `${what} must be at least ${min}.`),
    v.maxValue(MAX_QUANTITY, `${what} must be at most ${MAX_QUANTITY}.`),
  );

/** Round-half-up integer division for non-negative BigInts: round(n / d). */
export function divRoundHalfUp(n: bigint, d: bigint): bigint {
  return (n * 2n + d) / (d * 2n);
}
