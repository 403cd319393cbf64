/**
 * A real SMTP server for tests, in this process, on a free loopback port:
 * nodemailer's own `smtp-server`, so the mail code is tested over the wire
 * (EHLO, STARTTLS, AUTH, MAIL FROM, RCPT TO, DATA) rather than against a
 * stub. Each received message is kept raw (exactly the bytes the client
 * sent after DATA) with its envelope and what the session looked like
 * (encrypted? authenticated as whom?).
 *
 * Options make it behave like the servers people run into: require AUTH,
 * require STARTTLS before AUTH, speak TLS from the start (smtps), refuse
 * some recipients, or answer the next messages with a temporary or
 * permanent error. TLS uses smtp-server's built-in self-signed certificate,
 * so clients connect with `?tls.rejectUnauthorized=false`.
 *
 * @example
 * const smtp = await startSmtp({ auth: { user: "plinth", pass: "s3cret" } });
 * config.smtpUrl = smtp.url({ user: "plinth", pass: "s3cret" });
 * … await smtp.waitFor(1);
 * smtp.messages[0].raw  // "From: …\r\nTo: …"
 * await smtp.stop();
 */
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer, type SMTPServerOptions } from "smtp-server";

export interface ReceivedMail {
  /** MAIL FROM and RCPT TO, as the client gave them. */
  envelope: { from: string; to: string[] };
  /** The message as sent after DATA (headers and body, CRLF line ends). */
  raw: string;
  /** Whether the session was encrypted (smtps, or upgraded with STARTTLS) when DATA was sent. */
  secure: boolean;
  /** The user name the client authenticated as, or null. */
  user: string | null;
  /** The raw message parsed by mailparser (decoded bodies and attachments). */
  parse(): Promise<ParsedMail>;
}

export interface SmtpOptions {
  /** Require AUTH with these credentials (PLAIN or LOGIN). */
  auth?: { user: string; pass: string };
  /** Offer STARTTLS and refuse AUTH and MAIL before it (`smtp://`, upgraded). */
  requireTls?: boolean;
  /** Do not offer STARTTLS at all (an old or misconfigured relay). */
  noStartTls?: boolean;
  /** TLS from the first byte (`smtps://`). */
  secure?: boolean;
  /** RCPT TO refusals: address → [code, text]. */
  refuseRecipient?: Record<string, [number, string]>;
  /** Answers for the next DATA commands, used up in order: e.g. [[451, "Try later"], [554, "Spam"]]. */
  failData?: [number, string][];
}

export interface TestSmtp {
  port: number;
  messages: ReceivedMail[];
  /** AUTH attempts seen (user names), successful or not. */
  authAttempts: string[];
  /** The PLINTH_SMTP_URL that reaches this server; credentials optional. */
  url(creds?: { user: string; pass: string }, host?: string): string;
  /** Waits until at least n messages arrived (fails after 10 s). */
  waitFor(n: number): Promise<ReceivedMail[]>;
  /** Queue more DATA answers (see SmtpOptions.failData). */
  failNext(...answers: [number, string][]): void;
  /** Holds every DATA answer until the returned release is called (a slow server: messages stay "in flight"); `held` counts those waiting. */
  hold(): () => void;
  readonly held: number;
  stop(): Promise<void>;
}

function smtpError(code: number, text: string): Error & { responseCode: number } {
  return Object.assign(new Error(text), { responseCode: code });
}

export async function startSmtp(opts: SmtpOptions = {}, host = "127.0.0.1"): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  const authAttempts: string[] = [];
  const failures = [...(opts.failData ?? [])];
  let gate: Promise<void> | null = null;
  let held = 0;
  const options: SMTPServerOptions = {
    secure: opts.secure ?? false,
    // Plinth keeps pooled connections open between messages, as a relay expects;
    // stop() closes them after this instead of waiting 30 s for the client to leave.
    closeTimeout: 100,
    authOptional: !opts.auth,
    authMethods: ["PLAIN", "LOGIN"],
    // Without this smtp-server refuses AUTH on a plain connection; requireTls below says when that is wanted.
    allowInsecureAuth: !opts.requireTls,
    disabledCommands: opts.noStartTls ? ["STARTTLS"] : [],
    hideSTARTTLS: false,
    logger: false,
    disableReverseLookup: true,
    size: 20 * 1024 * 1024,
    onAuth(auth, _session, cb) {
      authAttempts.push(auth.username ?? "");
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass)
        return cb(null, { user: auth.username });
      return cb(smtpError(535, "5.7.8 Authentication credentials invalid"));
    },
    onMailFrom(_address, session, cb) {
      if (opts.requireTls && !session.secure) return cb(smtpError(530, "5.7.0 Must issue a STARTTLS command first"));
      if (opts.auth && !session.user) return cb(smtpError(530, "5.7.0 Authentication required"));
      cb();
    },
    onRcptTo(address, _session, cb) {
      const refusal = opts.refuseRecipient?.[address.address.toLowerCase()];
      if (refusal) return cb(smtpError(refusal[0], refusal[1]));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", async () => {
        if (gate) {
          held++;
          await gate;
          held--;
        }
        const failure = failures.shift();
        if (failure) return cb(smtpError(failure[0], failure[1]));
        const raw = Buffer.concat(chunks).toString("utf8");
        messages.push({
          envelope: {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
          },
          raw,
          secure: session.secure,
          user: (session.user as string | undefined) ?? null,
          parse: () => simpleParser(raw),
        });
        cb();
      });
    },
  };
  const server = new SMTPServer(options);
  // smtp-server warns on stderr about its built-in certificate; for tests that is the point.
  server.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    messages,
    authAttempts,
    hold() {
      let release = () => {};
      gate = new Promise<void>((r) => (release = r));
      return () => {
        gate = null;
        release();
      };
    },
    get held() {
      return held;
    },
    url(creds, h = host) {
      const scheme = opts.secure ? "smtps" : "smtp";
      const who = creds ? `${encodeURIComponent(creds.user)}:${encodeURIComponent(creds.pass)}@` : "";
      return `${scheme}://${who}${h}:${port}/?tls.rejectUnauthorized=false`;
    },
    async waitFor(n) {
      const until = Date.now() + 10_000;
      while (messages.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} messages, got ${messages.length}`);
        await Bun.sleep(10);
      }
      return messages;
    },
    failNext(...answers) {
      failures.push(...answers);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
