/**
 * The memory guard (src/ops/memory.ts): collects when RSS is above the soft
 * limit; backs off when a collection freed nothing and left RSS above it;
 * collects at once when RSS grows by another flood; keeps its cadence while
 * collections free memory, within 1 % of wall time.
 */
import { expect, test } from "bun:test";
import { MemoryGuard } from "../../src/ops/memory";

const MB = 1024 * 1024;

function world(rss: number, freed = 0) {
  const w = { rss, freed, guard: null as unknown as MemoryGuard };
  w.guard = new MemoryGuard(
    160 * MB,
    () => w.rss,
    () => {
      w.rss -= w.freed;
    },
    () => 0, // collections take no time here: the time budget has its own test
  );
  return w;
}

/** Which of `n` ticks collected, as a string of 1s and 0s; `grow` is added to RSS before each tick. */
function ticks(w: ReturnType<typeof world>, n: number, grow = 0): string {
  let s = "";
  for (let i = 0; i < n; i++) {
    w.rss += grow;
    s += w.guard.tick() ? "1" : "0";
  }
  return s;
}

test("under the limit it never collects", () => {
  const w = world(160 * MB);
  expect(ticks(w, 10)).toBe("0000000000");
});

test("collections that free plenty and get under the limit keep the every-tick cadence", () => {
  // A flood: 100 MB of garbage between ticks, all of it freed.
  const w = world(150 * MB, 100 * MB);
  expect(ticks(w, 6, 100 * MB)).toBe("111111");
  expect(w.rss).toBe(150 * MB);
});

test("collections that free nothing back off 2, 4, 8… ticks, up to 32", () => {
  const w = world(200 * MB);
  const expected = ["1", "01", "0001", "00000001", "0000000000000001", "0".repeat(31) + "1", "0".repeat(31) + "1"].join(
    "",
  );
  expect(ticks(w, expected.length)).toBe(expected);
  expect(w.guard.collections).toBe(7);
});

test("collections that free something keep the cadence, even a few MB at a time", () => {
  // RSS creeps 2 MB a tick above the limit; each collection frees 6 MB.
  const w = world(161 * MB, 6 * MB);
  expect(ticks(w, 12, 2 * MB)).toBe("101001001001"); // each tick that finds RSS above the limit collects
  // Above the limit with a few MB freed each time: every tick.
  const v = world(300 * MB, 3 * MB);
  expect(ticks(v, 6, 3 * MB)).toBe("111111");
});

test("while backing off, growth of 32 MB collects at once", () => {
  const w = world(200 * MB);
  expect(ticks(w, 3)).toBe("101"); // backoff now 4: three ticks skipped
  w.rss = 200 * MB + 31 * MB;
  expect(ticks(w, 1)).toBe("0");
  w.rss = 200 * MB + 33 * MB; // 33 MB above what the last collection left
  expect(ticks(w, 1)).toBe("1");
  // Under the limit nothing is collected, whatever the backoff.
  w.rss = 100 * MB;
  expect(ticks(w, 20)).toBe("0".repeat(20));
});

test("under steady load collections keep to 1 % of the time; a flood still collects at once", () => {
  // Measured under MCP load: RSS above the limit, ~8 MB of churn between 2 s ticks, 50 ms collections that free it.
  let clock = 0;
  const w = { rss: 200 * MB };
  const guard = new MemoryGuard(
    160 * MB,
    () => w.rss,
    () => {
      clock += 50;
      w.rss -= 10 * MB;
    },
    () => clock,
  );
  let seen = "";
  for (let i = 0; i < 9; i++) {
    clock += 2000;
    w.rss += 8 * MB;
    seen += guard.tick() ? "1" : "0";
  }
  expect(seen).toBe("100100100"); // each 50 ms collection is followed by 5 s without one
  // 32 MB more than the last collection left, inside that rest: collected at once.
  clock += 100;
  w.rss += 40 * MB;
  expect(guard.tick()).toBe(true);
  expect(guard.collections).toBe(4);
});

test("once a flood is over (a collection freed 16 MB or more, then RSS holds steady) it shrinks, once", () => {
  let shrinks = 0;
  let clock = 0;
  const w = { rss: 300 * MB, garbage: 60 * MB }; // the flood's garbage
  const guard = new MemoryGuard(
    160 * MB,
    () => w.rss,
    () => {
      w.rss -= w.garbage;
      w.garbage = 0;
    },
    () => clock,
    () => {
      shrinks++;
      w.rss -= 20 * MB; // pages the allocators kept
    },
  );
  expect(guard.tick()).toBe(true); // collects: 300 → 240
  expect(shrinks).toBe(0);
  w.rss += 1 * MB; // steady: the flood is over
  expect(guard.tick()).toBe(true);
  expect(shrinks).toBe(1);
  // Not again until another flood's collection.
  for (let i = 0; i < 40; i++) guard.tick();
  expect(shrinks).toBe(1);
  // Another flood within 20 s: collected, not shrunk; after them, shrunk.
  const flood = () => {
    w.rss += 60 * MB;
    w.garbage = 60 * MB;
    clock += 5000;
    guard.tick();
    clock += 500;
    guard.tick();
  };
  flood();
  expect(shrinks).toBe(1);
  clock += 20_000;
  flood();
  expect(shrinks).toBe(2);
  // A collection that frees little (steady churn) is no flood.
  const v = { rss: 300 * MB, n: 0 };
  const calm = new MemoryGuard(
    160 * MB,
    () => v.rss,
    () => {
      v.rss -= 8 * MB;
    },
    () => 0,
    () => v.n++,
  );
  for (let i = 0; i < 10; i++) {
    v.rss += 8 * MB;
    calm.tick();
  }
  expect(v.n).toBe(0);
  // Nor is one that ends under the limit: nothing is left to hand back.
  const u = { rss: 200 * MB, n: 0 };
  const low = new MemoryGuard(
    160 * MB,
    () => u.rss,
    () => {
      u.rss = 150 * MB;
    },
    () => 0,
    () => u.n++,
  );
  low.tick();
  low.tick();
  expect(u.n).toBe(0);
});
