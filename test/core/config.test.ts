import { describe, expect, test } from "bun:test";
import { ConfigError, loadConfig, parseFlags } from "../../src/config";

describe("config", () => {
  test("defaults", () => {
    const c = loadConfig({}, {});
    expect(c.port).toBe(8787);
    expect(c.host).toBe("127.0.0.1");
    expect(c.dataDir).toBe("./data");
    expect(c.publicUrl).toBe("http://localhost:8787");
    expect(c.rateLimit).toBe(600);
  });
  test("flags win over environment", () => {
    const { flags } = parseFlags(["--port", "9000", "--rate-limit=5"]);
    const c = loadConfig(flags, { PLINTH_PORT: "8000", PLINTH_RATE_LIMIT: "7" });
    expect(c.port).toBe(9000);
    expect(c.rateLimit).toBe(5);
    expect(c.publicUrl).toBe("http://localhost:9000");
  });
  test.each([
    [{ PLINTH_PORT: "abc" }, /PLINTH_PORT/],
    [{ PLINTH_PORT: "70000" }, /PLINTH_PORT/],
    [{ PLINTH_RATE_LIMIT: "0" }, /PLINTH_RATE_LIMIT/],
    [{ PLINTH_RATE_LIMIT: "-3" }, /PLINTH_RATE_LIMIT/],
    [{ PLINTH_PUBLIC_URL: "not a url" }, /PLINTH_PUBLIC_URL/],
    [{ PLINTH_PUBLIC_URL: "ftp://x" }, /PLINTH_PUBLIC_URL/],
    [{ PLINTH_HOST: "a b" }, /PLINTH_HOST/],
  ])("bad value %p fails naming the setting", (env, re) => {
    expect(() => loadConfig({}, env)).toThrow(ConfigError);
    expect(() => loadConfig({}, env)).toThrow(re);
  });
});
