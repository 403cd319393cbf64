/**
 * Invoice arithmetic, in integer cents, with one rounding rule: half up
 * (away from zero for the non-negative amounts invoices hold), applied once
 * per computed amount — a time line's amount (minutes × hourly rate ÷ 60)
 * and the invoice's tax (subtotal × basis points ÷ 10 000). BigInt inside,
 * so no product loses precision whatever the sizes.
 *
 * Billing periods: period n of a subscription starts at anchor + n
 * intervals, counted from the anchor (not from the previous period), so a
 * monthly plan anchored on 31 January runs 31 Jan → 28 Feb → 31 Mar: the
 * day is clamped to the month's last day only where the month is short.
 */

/** round(n / d) half up, for n ≥ 0, d > 0. */
export function divRoundHalfUp(n: bigint, d: bigint): bigint {
  if (n < 0n || d <= 0n) throw new Error("divRoundHalfUp takes n >= 0, d > 0");
  return (n * 2n + d) / (2n * d);
}

/** Amount of a time line: minutes at an hourly rate. */
export function timeAmount(minutes: number, hourlyRateCents: number): number {
  return Number(divRoundHalfUp(BigInt(minutes) * BigInt(hourlyRateCents), 60n));
}

/** Tax on a subtotal at a rate in basis points (825 = 8.25 %). */
export function taxOf(subtotalCents: number, basisPoints: number): number {
  return Number(divRoundHalfUp(BigInt(subtotalCents) * BigInt(basisPoints), 10_000n));
}

export function totals(lineAmounts: readonly number[], basisPoints: number) {
  const subtotalCents = lineAmounts.reduce((a, b) => a + b, 0);
  const taxCents = taxOf(subtotalCents, basisPoints);
  return { subtotalCents, taxCents, totalCents: subtotalCents + taxCents };
}

/** `anchor` plus `months` calendar months (UTC), the day clamped to the month's last. */
export function addMonths(anchor: Date, months: number): Date {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const ty = y + Math.floor(m / 12);
  const tm = ((m % 12) + 12) % 12;
  const last = new Date(Date.UTC(ty, tm + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      ty,
      tm,
      Math.min(anchor.getUTCDate(), last),
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds(),
    ),
  );
}

export function monthsPer(interval: "month" | "year", count: number): number {
  return (interval === "year" ? 12 : 1) * count;
}

/** Start and end of period `n` (0-based). */
export function periodOf(
  anchor: Date,
  interval: "month" | "year",
  count: number,
  n: number,
): { start: Date; end: Date } {
  const k = monthsPer(interval, count);
  return { start: addMonths(anchor, n * k), end: addMonths(anchor, (n + 1) * k) };
}

/** "$1,234.50"-style text for the PDF and the portal. */
export function formatMoney(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

/** Minutes as hours with up to two decimals: 90 → "1.5". */
export function hoursText(minutes: number): string {
  return String(Math.round((minutes / 60) * 100) / 100);
}
