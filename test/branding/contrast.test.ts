/** WCAG 2.x contrast maths against published values. */
import { describe, expect, test } from "bun:test";
import {
  contrast,
  contrastRatio,
  nearestPassing,
  normalizeHex,
  relativeLuminance,
} from "../../src/domains/branding/contrast";

describe("contrast ratio", () => {
  test("published examples", () => {
    // WebAIM / WCAG understanding docs: #777777 on white is 4.48:1 (fails AA for normal text).
    expect(contrast("#777777", "#ffffff")).toEqual({
      ratio: 4.48,
      aa: { normal: false, large: true },
      aaa: { normal: false, large: false },
    });
    // #767676 is the lightest grey that passes AA on white (4.54:1).
    expect(contrast("#767676", "#ffffff")).toEqual({
      ratio: 4.54,
      aa: { normal: true, large: true },
      aaa: { normal: false, large: true },
    });
    // #595959 on white reaches 7:1 (AAA).
    expect(contrast("#595959", "#ffffff").aaa.normal).toBe(true);
    expect(contrast("#000000", "#ffffff").ratio).toBe(21);
    expect(contrast("#0000ff", "#ffffff").ratio).toBe(8.59);
    expect(contrast("#ffffff", "#ffffff")).toEqual({
      ratio: 1,
      aa: { normal: false, large: false },
      aaa: { normal: false, large: false },
    });
  });
  test("never rounds up into a pass: pure red on white is 3.998:1", () => {
    const r = contrast("#ff0000", "#ffffff");
    expect(r.ratio).toBe(4);
    expect(r.aa).toEqual({ normal: false, large: true });
    expect(contrastRatio("#ff0000", "#ffffff")).toBeLessThan(4);
  });
  test("symmetric, and shorthand equals the long form, case-insensitively", () => {
    expect(contrastRatio("#2563eb", "#fff")).toBe(contrastRatio("#FFFFFF", "#2563EB"));
    expect(normalizeHex("#AbC")).toBe("#aabbcc");
    expect(relativeLuminance("#fff")).toBe(1);
    expect(relativeLuminance("#000")).toBe(0);
  });
  test("rejects what is not a hex colour", () => {
    expect(() => normalizeHex("red")).toThrow();
    expect(() => normalizeHex("#12345")).toThrow();
  });
});

describe("nearestPassing", () => {
  test("moves #777777 just far enough on white", () => {
    expect(nearestPassing("#777777", "#ffffff", 4.5)).toBe("#767676");
  });
  test("returns the colour itself when it already passes", () => {
    expect(nearestPassing("#111827", "#ffffff", 4.5)).toBe("#111827");
  });
  test("keeps the hue: yellow on white becomes a dark yellow that passes", () => {
    const s = nearestPassing("#ffff00", "#ffffff", 4.5)!;
    expect(contrastRatio(s, "#ffffff")).toBeGreaterThanOrEqual(4.5);
    expect(s.slice(1, 3)).toBe(s.slice(3, 5)); // red = green, blue = 0: still a yellow
    expect(s.slice(5, 7)).toBe("00");
  });
  test("goes lighter on a dark background", () => {
    const s = nearestPassing("#333333", "#000000", 4.5)!;
    expect(relativeLuminance(s)).toBeGreaterThan(relativeLuminance("#333333"));
    expect(contrastRatio(s, "#000000")).toBeGreaterThanOrEqual(4.5);
  });
  test("null when no lightness can reach the target", () => {
    expect(nearestPassing("#777777", "#777777", 7)).toBeNull();
  });
});
