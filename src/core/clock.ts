/**
 * Injectable time. Everything that compares against "now" (key expiry,
 * approval-link lifetime, rate-limit windows, OAuth codes) asks a Clock, so
 * tests can move time forward without sleeping.
 */
export interface Clock {
  now(): Date;
  /** Milliseconds since the epoch; the same instant as now(). */
  ms(): number;
}

export const systemClock: Clock = {
  now: () => new Date(),
  ms: () => Date.now(),
};

/** A clock whose time only moves when told; for tests. */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: Date | number = Date.now()) {
    this.t = typeof start === "number" ? start : start.getTime();
  }
  now() {
    return new Date(this.t);
  }
  ms() {
    return this.t;
  }
  advance(ms: number) {
    this.t += ms;
  }
  set(t: Date | number) {
    this.t = typeof t === "number" ? t : t.getTime();
  }
}

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Every date-time leaves Plinth as ISO 8601 UTC. */
export function iso(d: Date | number | null | undefined): string | null {
  if (d === null || d === undefined) return null;
  return (typeof d === "number" ? new Date(d) : d).toISOString();
}
