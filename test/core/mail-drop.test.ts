/**
 * A pooled SMTP connection dropped before the server answered is sent again
 * once at once (sendMailRetryingDrop); any answer from the server is final
 * for the attempt, as before. The rule alone, with a transport that fails as
 * nodemailer does; the real wire is test/email/*.test.ts against a real SMTP
 * server.
 */
import { expect, test } from "bun:test";
import { sendMailRetryingDrop } from "../../src/core/mail";

const failing = (errors: Record<string, unknown>[]) => {
  let calls = 0;
  const transport = {
    async sendMail() {
      const e = errors[calls++];
      if (e) throw Object.assign(new Error(String(e.message ?? "failed")), e);
      return { response: "250 ok", rejected: [] };
    },
  };
  return { transport: transport as unknown as Parameters<typeof sendMailRetryingDrop>[0], calls: () => calls };
};

test("a dropped connection (no answer from the server) is sent again once, at once", async () => {
  for (const code of ["ECONNECTION", "ESOCKET", "ECONNRESET", "EPIPE"]) {
    const t = failing([{ code, message: "Connection closed" }]);
    expect(await sendMailRetryingDrop(t.transport, { to: "a@example.com" })).toEqual({
      response: "250 ok",
      rejected: [],
    });
    expect({ code, calls: t.calls() }).toEqual({ code, calls: 2 });
  }
});

test("dropped twice: the second failure is the attempt's, no third try", async () => {
  const t = failing([{ code: "ECONNECTION" }, { code: "ECONNECTION", message: "again" }]);
  await expect(sendMailRetryingDrop(t.transport, {})).rejects.toThrow("again");
  expect(t.calls()).toBe(2);
});

test("an answer from the server, a bad password or a timeout is not sent again here", async () => {
  for (const e of [
    { code: "EENVELOPE", responseCode: 451, message: "try later" },
    { code: "EMESSAGE", responseCode: 550, message: "no such user" },
    { code: "ECONNECTION", responseCode: 421, message: "closing" },
    { code: "EAUTH", message: "bad password" },
    { code: "ETIMEDOUT", message: "timed out" },
    { message: "no code" },
  ]) {
    const t = failing([e]);
    await expect(sendMailRetryingDrop(t.transport, {})).rejects.toThrow(e.message);
    expect({ e: e.message, calls: t.calls() }).toEqual({ e: e.message, calls: 1 });
  }
});
