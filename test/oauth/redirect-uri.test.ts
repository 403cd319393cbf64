/**
 * Redirect URIs at registration (RFC 7591) must already be in canonical
 * form: exactly their WHATWG URL serialization, with RFC 3986 normal
 * percent-encoding. Spaces, control characters and non-canonical spellings
 * are refused with invalid_redirect_uri naming the problem (and the
 * canonical form, where there is one); nothing is stored. Client ID
 * Metadata Documents follow the same rule (client-metadata-document.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { row, startTestServer, type TestServer } from "../harness";
import { register } from "./helpers";

let s: TestServer;
let base: string;
let sent = 0;
beforeAll(async () => {
  s = await startTestServer({ seed: false });
  base = s.config.publicUrl;
}, 30_000);
afterAll(() => s.stop());

/** Registers, stepping the clock past the per-address registration limit (30 per 10 minutes) now and then. */
async function reg(redirectUris: string[]) {
  if (++sent % 20 === 0) s.clock.advance(10 * 60 * 1000 + 1);
  return register(base, { client_name: "Canonical", redirect_uris: redirectUris, token_endpoint_auth_method: "none" });
}
const clients = async () =>
  Number(((await row(s.deps, "SELECT count(*) AS n FROM oauth_clients")) as { n: number | string }).n);

describe("refused, naming the problem", () => {
  const cases: [string, string, string][] = [
    ["a leading space", " https://app.example/cb", "must not contain spaces (found a space (U+0020) at the start)"],
    ["a trailing space", "https://app.example/cb ", "must not contain spaces (found a space (U+0020) at the end)"],
    [
      "a space in the query",
      "https://app.example/cb?a=b c",
      "must not contain spaces (found a space (U+0020) at position 27)",
    ],
    [
      "an embedded tab",
      "https://app.exa\tmple/cb",
      "must not contain control characters (found a tab (U+0009) at position 16)",
    ],
    [
      "an embedded line feed",
      "https://app.example/c\nb",
      "must not contain control characters (found a line feed (U+000A) at position 22)",
    ],
    [
      "a trailing carriage return",
      "https://app.example/cb\r",
      "must not contain control characters (found a carriage return (U+000D) at the end)",
    ],
    [
      "a NUL",
      "https://app.example/\u0000cb",
      "must not contain control characters (found a NUL (U+0000) at position 21)",
    ],
    ["DEL", "https://app.example/c\u007fb", "must not contain control characters (found U+007F at position 22)"],
    [
      "a C1 control",
      "https://app.example/c\u0085b",
      "must not contain control characters (found U+0085 at position 22)",
    ],
    ["a no-break space", "https://app.example/c\u00a0b", "must not contain spaces (found U+00A0 at position 22)"],
    ["a zero-width space", "https://app.example/c\u200bb", "must not contain spaces (found U+200B at position 22)"],
    ["a backslash", "https://app.example\\cb", "must not contain backslashes"],
    [
      "non-ASCII in the path",
      "https://app.example/café",
      "must be ASCII (found U+00E9 at the end); its canonical form is https://app.example/caf%C3%A9",
    ],
    [
      "an internationalised host",
      "https://bücher.example/cb",
      "must be ASCII (found U+00FC at position 10); its canonical form is https://xn--bcher-kva.example/cb",
    ],
    ["lower-case percent-encoding", "https://app.example/a%2fb", "uses lower-case percent-encoding (%2f); write %2F"],
    [
      "an encoded unreserved character",
      "https://app.example/%7Euser/cb",
      'percent-encodes "~" (%7E), which must be written as is',
    ],
    ["an encoded letter", "https://app.example/c%62", 'percent-encodes "b" (%62), which must be written as is'],
    ["a stray %", "https://app.example/100%/cb", "has a % not followed by two hex digits at position 24"],
    [
      "an upper-case scheme",
      "HTTPS://app.example/cb",
      "is not in canonical form; register it as https://app.example/cb",
    ],
    ["an upper-case host", "https://App.Example/cb", "is not in canonical form; register it as https://app.example/cb"],
    [
      "the default port",
      "https://app.example:443/cb",
      "is not in canonical form; register it as https://app.example/cb",
    ],
    ["no path", "https://app.example", "is not in canonical form; register it as https://app.example/"],
    ["dot segments", "https://app.example/a/../cb", "is not in canonical form; register it as https://app.example/cb"],
    [
      "a character the parser escapes",
      'https://app.example/c"b',
      "is not in canonical form; register it as https://app.example/c%22b",
    ],
    ["a short IPv4 loopback", "http://127.1/cb", "is not in canonical form; register it as http://127.0.0.1/cb"],
    [
      "a private-use scheme with a space",
      "cursor://anysphere.cursor-retrieval/oauth/ callback",
      "must not contain spaces (found a space (U+0020) at position 43)",
    ],
  ];
  for (const [what, uri, message] of cases)
    test(`${what}: 400 invalid_redirect_uri, nothing stored`, async () => {
      const before = await clients();
      const r = await reg([uri]);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("invalid_redirect_uri");
      expect(r.body.error_description).toBe(`redirect_uris[0] ${message}.`);
      expect(await clients()).toBe(before);
    });

  test("the URI at fault is named by its index", async () => {
    const r = await reg(["https://app.example/cb", "https://app.example/other "]);
    expect(r.status).toBe(400);
    expect(r.body.error_description).toBe(
      "redirect_uris[1] must not contain spaces (found a space (U+0020) at the end).",
    );
  });
});

describe("accepted", () => {
  test("canonical URIs of every kind are stored exactly as given", async () => {
    const uris = [
      "http://127.0.0.1/callback",
      "http://[::1]:8080/cb",
      "http://localhost:6274/oauth/callback",
      "https://app.example/",
      "https://app.example/cb?x=1&y=%2F",
      "https://app.example/a%2Fb%C3%A9",
      "cursor://anysphere.cursor-retrieval/oauth/user-Github/callback",
      "com.example.app:/oauth2redirect",
      "https://xn--bcher-kva.example/cb",
    ];
    const r = await reg(uris);
    expect(r.status).toBe(201);
    expect(r.body.redirect_uris).toEqual(uris);
    const stored = (await row(
      s.deps,
      "SELECT redirect_uris FROM oauth_clients WHERE client_id = ?",
      r.body.client_id,
    )) as { redirect_uris: unknown };
    const list = typeof stored.redirect_uris === "string" ? JSON.parse(stored.redirect_uris) : stored.redirect_uris;
    expect(list).toEqual(uris);
  });
});
