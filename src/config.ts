/**
 * Configuration from flags (`--port 9000`) or environment (PLINTH_PORT).
 * Flags win. A bad value stops start-up with one line naming the setting.
 * SETTINGS lists every setting of the core once (flag, variable, help);
 * domains declare theirs on their Domain (settings), and allSettings() is
 * both: loadConfig reads through them, and the command line's parser and
 * help texts are made from them.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  /** REST requests per minute per key (or per client address when unauthenticated). */
  rateLimit: number;
  /** MCP JSON-RPC messages per minute per credential. */
  mcpRateLimit: number;
  /** Approval link lifetime in days. */
  approvalTtlDays: number;
  /** Extra Host/Origin values accepted by the MCP endpoint (DNS-rebinding protection). */
  allowedHosts: string[];
  allowedOrigins: string[];
  /** Largest media upload, in bytes. */
  maxUploadBytes: number;
  /**
   * Accept OAuth client ids that are http URLs on a loopback address (Client
   * ID Metadata Documents served by a local test client). Off in production.
   */
  oauthDevLoopbackClientIds: boolean;
  /** postgres://… runs on PostgreSQL; null keeps the embedded SQLite file in dataDir. */
  databaseUrl: string | null;
  /** PostgreSQL connections per instance. */
  dbPoolSize: number;
  /** redis://… shares rate limits, sign-in throttling and cache invalidation between instances. */
  redisUrl: string | null;
  /** Where media bytes live: the data dir (SQLite default), the database (PostgreSQL default) or an S3 bucket. */
  mediaStore: "local" | "db" | "s3";
  /** S3-compatible bucket settings (mediaStore "s3"); credentials also come from the usual S3_* / AWS_* variables. */
  s3: {
    bucket: string | null;
    endpoint: string | null;
    region: string | null;
    accessKeyId: string | null;
    secretAccessKey: string | null;
  };
  /** "access": one JSON line per request on stdout; "off": none. */
  log: "off" | "access";
  /** Take the client address from X-Forwarded-For (set only behind your own proxy). */
  trustProxy: boolean;
  /** Serve GET /metrics on the public listener to `Authorization: Bearer <token>`; null: not there. */
  metricsToken: string | null;
  /** PLINTH_SECRET_KEY: the 32-byte key that seals stored secrets (src/core/sealed.ts); null: the data dir's key file. */
  secretKey: Uint8Array | null;
  /** Serve GET /metrics on 127.0.0.1:<port> without a token; null: no such listener (0 picks a free port). */
  metricsPort: number | null;
  /** How long SIGTERM/SIGINT waits for requests in flight before cutting them off. */
  shutdownGraceMs: number;
  /** Above this resident size (MB) a full garbage collection runs every few seconds; 0: never. */
  memorySoftLimitMb: number;
  /**
   * Outgoing mail (src/core/mail.ts): smtp:// (STARTTLS when offered; required
   * when credentials go to a non-loopback host) or smtps:// (TLS from the
   * start), credentials in the URL. null: mail is recorded as no_transport.
   */
  smtpUrl: string | null;
  /** The From of every message Plinth sends, `Name <address>` or an address; required with smtpUrl. */
  mailFrom: string | null;
}

/**
 * One setting: its flag (null for secrets, which stay out of `ps`), its
 * environment variable, and how help shows it. `group` says which commands
 * take it: "store" settings every command that opens the data, "server"
 * settings only `serve`.
 */
export interface Setting {
  flag: string | null;
  env: string;
  value: string;
  help: string;
  group: "store" | "server";
}

export const SETTINGS: readonly Setting[] = [
  {
    flag: "data-dir",
    env: "PLINTH_DATA_DIR",
    value: "<dir>",
    group: "store",
    help: "SQLite database and local media files (default ./data)",
  },
  {
    flag: "database-url",
    env: "PLINTH_DATABASE_URL",
    value: "<url>",
    group: "store",
    help: "postgres://… runs on PostgreSQL instead of the SQLite file",
  },
  {
    flag: "db-pool-size",
    env: "PLINTH_DB_POOL_SIZE",
    value: "<n>",
    group: "store",
    help: "PostgreSQL connections per instance (default 10)",
  },
  {
    flag: "redis-url",
    env: "PLINTH_REDIS_URL",
    value: "<url>",
    group: "store",
    help: "redis://… shares rate limits and sign-in throttling between instances",
  },
  {
    flag: "media-store",
    env: "PLINTH_MEDIA_STORE",
    value: "local|db|s3",
    group: "store",
    help: "where media bytes live (default: local on SQLite, db on PostgreSQL)",
  },
  { flag: "s3-bucket", env: "PLINTH_S3_BUCKET", value: "<name>", group: "store", help: "bucket for --media-store s3" },
  {
    flag: "s3-endpoint",
    env: "PLINTH_S3_ENDPOINT",
    value: "<url>",
    group: "store",
    help: "S3-compatible endpoint (default: AWS)",
  },
  { flag: "s3-region", env: "PLINTH_S3_REGION", value: "<region>", group: "store", help: "S3 region" },
  {
    flag: null,
    env: "PLINTH_S3_ACCESS_KEY_ID",
    value: "<id>",
    group: "store",
    help: "S3 access key id (or the usual AWS_* variables)",
  },
  { flag: null, env: "PLINTH_S3_SECRET_ACCESS_KEY", value: "<secret>", group: "store", help: "S3 secret access key" },
  {
    flag: "port",
    env: "PLINTH_PORT",
    value: "<n>",
    group: "server",
    help: "TCP port (default 8787; 0 picks a free one)",
  },
  {
    flag: "host",
    env: "PLINTH_HOST",
    value: "<addr>",
    group: "server",
    help: "address to listen on (default 127.0.0.1; 0.0.0.0 or :: for all)",
  },
  {
    flag: "public-url",
    env: "PLINTH_PUBLIC_URL",
    value: "<url>",
    group: "server",
    help: "the address clients use: OAuth issuer, MCP resource, base of links (default http://<host>:<port>)",
  },
  {
    flag: "rate-limit",
    env: "PLINTH_RATE_LIMIT",
    value: "<n>",
    group: "server",
    help: "REST requests per minute per key or client address (default 600)",
  },
  {
    flag: "mcp-rate-limit",
    env: "PLINTH_MCP_RATE_LIMIT",
    value: "<n>",
    group: "server",
    help: "MCP messages per minute per credential (default 1200)",
  },
  {
    flag: "approval-ttl-days",
    env: "PLINTH_APPROVAL_TTL_DAYS",
    value: "<days>",
    group: "server",
    help: "approval link lifetime (default 14)",
  },
  {
    flag: "max-upload-bytes",
    env: "PLINTH_MAX_UPLOAD_BYTES",
    value: "<n>",
    group: "server",
    help: "largest media upload (default 10485760)",
  },
  {
    flag: "allowed-hosts",
    env: "PLINTH_ALLOWED_HOSTS",
    value: "<a,b>",
    group: "server",
    help: "Host names the MCP endpoint accepts besides loopback and the public URL's",
  },
  {
    flag: "allowed-origins",
    env: "PLINTH_ALLOWED_ORIGINS",
    value: "<a,b>",
    group: "server",
    help: "browser origins the MCP endpoint accepts besides loopback and the public URL's",
  },
  {
    flag: "oauth-dev-loopback-client-ids",
    env: "PLINTH_OAUTH_DEV_LOOPBACK_CLIENT_IDS",
    value: "1",
    group: "server",
    help: "accept http://127.0.0.1 OAuth client id URLs (local development only)",
  },
  {
    flag: "log",
    env: "PLINTH_LOG",
    value: "access|off",
    group: "server",
    help: "access: one JSON line per request on stdout (default); off: none",
  },
  {
    flag: "trust-proxy",
    env: "PLINTH_TRUST_PROXY",
    value: "1|0",
    group: "server",
    help: "log the client address from X-Forwarded-For (only behind your own proxy)",
  },
  {
    flag: "metrics-port",
    env: "PLINTH_METRICS_PORT",
    value: "<n>",
    group: "server",
    help: "serve GET /metrics on 127.0.0.1:<n>, no token (default: no such listener)",
  },
  {
    flag: null,
    env: "PLINTH_METRICS_TOKEN",
    value: "<token>",
    group: "server",
    help: "serve GET /metrics on the main port to Authorization: Bearer <token>",
  },
  {
    flag: "memory-soft-limit-mb",
    env: "PLINTH_MEMORY_SOFT_LIMIT_MB",
    value: "<mb>",
    group: "server",
    help: "above this RSS, full garbage collections, at most 1 % of the time (default 160; 0: off)",
  },
  {
    flag: null,
    env: "PLINTH_SMTP_URL",
    value: "<url>",
    group: "server",
    help: "send mail through smtp://user:pass@host:587 (STARTTLS) or smtps://…:465; unset: mail is only recorded",
  },
  {
    flag: "mail-from",
    env: "PLINTH_MAIL_FROM",
    value: "<from>",
    group: "server",
    help: 'From of outgoing mail, e.g. "Plinth <plinth@example.com>" (required with PLINTH_SMTP_URL)',
  },
  {
    flag: null,
    env: "PLINTH_SECRET_KEY",
    value: "<key>",
    group: "server",
    help: "key that seals stored secrets Plinth reads back (64 hex characters; unset: <data-dir>/secret.key, made on first use; every instance sharing a database needs the same)",
  },
  {
    flag: "shutdown-grace-ms",
    env: "PLINTH_SHUTDOWN_GRACE_MS",
    value: "<ms>",
    group: "server",
    help: "on SIGTERM/SIGINT, how long requests in flight may finish (default 10000)",
  },
];

/**
 * Settings a domain declares (Domain.settings), with the Config field they
 * fill. The domain adds that field to Config itself (declaration merging:
 * `declare module "../../config" { interface Config { … } }` in its
 * settings file), so this file names no domain's setting.
 */
export interface DomainSettings {
  /** The Config field the settings fill, e.g. "hosting". */
  key: string;
  settings: Setting[];
  /** The field's value from each setting's raw text (by environment variable name; undefined when not given). Throws ConfigError naming a bad one. */
  read(raw: (env: string) => string | undefined): unknown;
}

const DECLARED: DomainSettings[] = [];

/**
 * Called when the catalog is built (src/mcp/catalog.ts) with every domain's
 * settings, before any configuration is read (the entry builds the catalog
 * when it loads); declaring the same group again changes nothing.
 */
export function declareSettings(groups: readonly DomainSettings[]): void {
  for (const g of groups) {
    if (DECLARED.some((d) => d.key === g.key)) continue;
    for (const s of g.settings)
      if (allSettings().some((x) => x.env === s.env || (s.flag && x.flag === s.flag)))
        throw new Error(`setting ${s.env} of ${g.key} is declared twice`);
    DECLARED.push(g);
  }
}

/** Every setting, the core's and the domains' (the command line's parser and help are made from these). */
export function allSettings(): Setting[] {
  return [...SETTINGS, ...DECLARED.flatMap((g) => g.settings)];
}

const BY_FLAG = new Map(SETTINGS.filter((s) => s.flag).map((s) => [s.flag!, s]));
const BY_ENV = new Map(SETTINGS.map((s) => [s.env, s]));

/** The public URL Plinth assumes when none is configured: where it listens; localhost when that is every interface. */
export function defaultPublicUrl(host: string, port: number): string {
  if (isWildcardHost(host)) return `http://localhost:${port}`;
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** 0.0.0.0 or :: — every interface, not an address a client can use. */
export function isWildcardHost(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "0:0:0:0:0:0:0:0";
}

export class ConfigError extends Error {}

type Source = Record<string, string | undefined>;

/** A whole number between min and max, or a ConfigError naming the setting. */
export function int(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** A comma-separated list, trimmed and lower-cased, empty items dropped. */
export function list(raw: string | undefined): string[] {
  return (raw ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/** Parses `--name value` / `--name=value` flags into a map keyed by flag name. */
export function parseFlags(argv: string[]): { flags: Record<string, string | true>; rest: string[] } {
  const flags: Record<string, string | true> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) flags[a.slice(2, eq)] = a.slice(eq + 1);
      else if (i + 1 < argv.length && !argv[i + 1]!.startsWith("--")) flags[a.slice(2)] = argv[++i]!;
      else flags[a.slice(2)] = true;
    } else rest.push(a);
  }
  return { flags, rest };
}

export function loadConfig(flags: Record<string, string | true> = {}, env: Source = process.env): Config {
  const get = (flag: string, envName: string): string | undefined => {
    // Every setting read here is listed in SETTINGS (the parser and help are made from that list).
    if (BY_FLAG.get(flag)?.env !== envName) throw new Error(`setting --${flag} / ${envName} is missing from SETTINGS`);
    const f = flags[flag];
    if (f === true) throw new ConfigError(`--${flag} needs a value`);
    return f ?? env[envName];
  };
  const secret = (envName: string): string | undefined => {
    if (!BY_ENV.has(envName)) throw new Error(`setting ${envName} is missing from SETTINGS`);
    return env[envName] || undefined;
  };
  const portRaw = get("port", "PLINTH_PORT");
  const port = portRaw === undefined ? 8787 : int("PLINTH_PORT", portRaw, 0, 65535);
  const hostRaw = get("host", "PLINTH_HOST") ?? "127.0.0.1";
  if (!/^[A-Za-z0-9.:\-[\]]+$/.test(hostRaw))
    throw new ConfigError(`PLINTH_HOST is not a host name or address: "${hostRaw}"`);
  // "[::1]" as written in URLs; the listener wants the bare address.
  const host = /^\[.*\]$/.test(hostRaw) ? hostRaw.slice(1, -1) : hostRaw;
  const dataDir = get("data-dir", "PLINTH_DATA_DIR") ?? "./data";
  if (!dataDir) throw new ConfigError("PLINTH_DATA_DIR must not be empty");
  const publicRaw = get("public-url", "PLINTH_PUBLIC_URL");
  let publicUrl = defaultPublicUrl(host, port);
  if (publicRaw !== undefined) {
    let u: URL;
    try {
      u = new URL(publicRaw);
    } catch {
      throw new ConfigError(`PLINTH_PUBLIC_URL is not a URL: "${publicRaw}"`);
    }
    if (u.protocol !== "http:" && u.protocol !== "https:")
      throw new ConfigError(`PLINTH_PUBLIC_URL must be http or https: "${publicRaw}"`);
    publicUrl = u.origin;
  }
  const rlRaw = get("rate-limit", "PLINTH_RATE_LIMIT");
  const rateLimit = rlRaw === undefined ? 600 : int("PLINTH_RATE_LIMIT", rlRaw, 1, 1_000_000_000);
  const mrlRaw = get("mcp-rate-limit", "PLINTH_MCP_RATE_LIMIT");
  const mcpRateLimit = mrlRaw === undefined ? 1200 : int("PLINTH_MCP_RATE_LIMIT", mrlRaw, 1, 1_000_000_000);
  const ttlRaw = get("approval-ttl-days", "PLINTH_APPROVAL_TTL_DAYS");
  const approvalTtlDays = ttlRaw === undefined ? 14 : int("PLINTH_APPROVAL_TTL_DAYS", ttlRaw, 1, 365);
  const upRaw = get("max-upload-bytes", "PLINTH_MAX_UPLOAD_BYTES");
  const maxUploadBytes =
    upRaw === undefined ? 10 * 1024 * 1024 : int("PLINTH_MAX_UPLOAD_BYTES", upRaw, 1024, 1024 * 1024 * 1024);
  const databaseUrl = get("database-url", "PLINTH_DATABASE_URL") || null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\/\S+$/i.test(databaseUrl))
    throw new ConfigError(
      `PLINTH_DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for the embedded SQLite store)`,
    );
  const redisUrl = get("redis-url", "PLINTH_REDIS_URL") || null;
  if (redisUrl !== null && !/^rediss?:\/\/\S+$/i.test(redisUrl))
    throw new ConfigError(`PLINTH_REDIS_URL must be a redis:// or rediss:// URL`);
  const poolRaw = get("db-pool-size", "PLINTH_DB_POOL_SIZE");
  const dbPoolSize = poolRaw === undefined ? 10 : int("PLINTH_DB_POOL_SIZE", poolRaw, 1, 500);
  const mediaRaw = get("media-store", "PLINTH_MEDIA_STORE");
  const mediaStore = (mediaRaw ?? (databaseUrl ? "db" : "local")) as Config["mediaStore"];
  if (!["local", "db", "s3"].includes(mediaStore))
    throw new ConfigError(`PLINTH_MEDIA_STORE must be local, db or s3, got "${mediaRaw}"`);
  if (mediaStore === "db" && !databaseUrl)
    throw new ConfigError(
      `PLINTH_MEDIA_STORE=db needs PostgreSQL (PLINTH_DATABASE_URL); the SQLite store keeps media in the data dir`,
    );
  const s3 = {
    bucket: get("s3-bucket", "PLINTH_S3_BUCKET") ?? null,
    endpoint: get("s3-endpoint", "PLINTH_S3_ENDPOINT") ?? null,
    region: get("s3-region", "PLINTH_S3_REGION") ?? null,
    accessKeyId: secret("PLINTH_S3_ACCESS_KEY_ID") ?? null,
    secretAccessKey: secret("PLINTH_S3_SECRET_ACCESS_KEY") ?? null,
  };
  if (mediaStore === "s3" && !s3.bucket) throw new ConfigError(`PLINTH_MEDIA_STORE=s3 needs PLINTH_S3_BUCKET`);
  const logRaw = get("log", "PLINTH_LOG");
  const log = (logRaw || "access") as Config["log"];
  if (log !== "access" && log !== "off") throw new ConfigError(`PLINTH_LOG must be access or off, got "${logRaw}"`);
  const trustRaw = get("trust-proxy", "PLINTH_TRUST_PROXY");
  if (trustRaw !== undefined && trustRaw !== "" && trustRaw !== "0" && trustRaw !== "1")
    throw new ConfigError(`PLINTH_TRUST_PROXY must be 1 or 0, got "${trustRaw}"`);
  const metricsToken = secret("PLINTH_METRICS_TOKEN") ?? null;
  if (metricsToken !== null && (metricsToken.length < 16 || /\s/.test(metricsToken)))
    throw new ConfigError(
      "PLINTH_METRICS_TOKEN must be at least 16 characters without spaces (e.g. `openssl rand -hex 32`)",
    );
  const secretKeyRaw = secret("PLINTH_SECRET_KEY")?.trim();
  if (secretKeyRaw !== undefined && !/^[0-9a-fA-F]{64}$/.test(secretKeyRaw))
    throw new ConfigError("PLINTH_SECRET_KEY must be 64 hex characters (32 bytes, e.g. `openssl rand -hex 32`)");
  const secretKey = secretKeyRaw === undefined ? null : Uint8Array.from(Buffer.from(secretKeyRaw, "hex"));
  const mpRaw = get("metrics-port", "PLINTH_METRICS_PORT");
  const metricsPort = mpRaw === undefined || mpRaw === "" ? null : int("PLINTH_METRICS_PORT", mpRaw, 0, 65535);
  const graceRaw = get("shutdown-grace-ms", "PLINTH_SHUTDOWN_GRACE_MS");
  const shutdownGraceMs = graceRaw === undefined ? 10_000 : int("PLINTH_SHUTDOWN_GRACE_MS", graceRaw, 0, 3_600_000);
  const memRaw = get("memory-soft-limit-mb", "PLINTH_MEMORY_SOFT_LIMIT_MB");
  const memorySoftLimitMb =
    memRaw === undefined || memRaw === "" ? 160 : int("PLINTH_MEMORY_SOFT_LIMIT_MB", memRaw, 0, 1_000_000);
  const smtpUrl = secret("PLINTH_SMTP_URL") ?? null;
  if (smtpUrl !== null) {
    let u: URL | null = null;
    try {
      u = new URL(smtpUrl);
    } catch {
      u = null;
    }
    // Never echo the URL: it holds the SMTP password.
    if (!u || (u.protocol !== "smtp:" && u.protocol !== "smtps:") || !u.hostname)
      throw new ConfigError(
        "PLINTH_SMTP_URL must be an smtp://host[:port] or smtps://host[:port] URL (credentials as user:password@)",
      );
  }
  const mailFromRaw = get("mail-from", "PLINTH_MAIL_FROM");
  const mailFrom = mailFromRaw === undefined || mailFromRaw.trim() === "" ? null : mailFromRaw.trim();
  if (
    mailFrom !== null &&
    !/^(?:[^<>\r\n"]{0,100}<[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+)$/.test(mailFrom)
  )
    throw new ConfigError(`PLINTH_MAIL_FROM must be an address or "Name <address>", got "${mailFrom.slice(0, 200)}"`);
  if (smtpUrl !== null && mailFrom === null)
    throw new ConfigError("PLINTH_SMTP_URL needs PLINTH_MAIL_FROM (the From of outgoing mail)");
  const config: Config = {
    smtpUrl,
    mailFrom,
    memorySoftLimitMb,
    log,
    trustProxy: trustRaw === "1",
    metricsToken,
    secretKey,
    metricsPort,
    shutdownGraceMs,
    databaseUrl,
    dbPoolSize,
    redisUrl,
    mediaStore,
    s3,
    port,
    host,
    dataDir,
    publicUrl,
    rateLimit,
    mcpRateLimit,
    approvalTtlDays,
    allowedHosts: list(get("allowed-hosts", "PLINTH_ALLOWED_HOSTS")),
    allowedOrigins: list(get("allowed-origins", "PLINTH_ALLOWED_ORIGINS")),
    maxUploadBytes,
    oauthDevLoopbackClientIds: get("oauth-dev-loopback-client-ids", "PLINTH_OAUTH_DEV_LOOPBACK_CLIENT_IDS") === "1",
  } as Config;
  // What the domains declare (Domain.settings), each group read into its own field.
  for (const group of DECLARED) {
    const raw = (envName: string): string | undefined => {
      const s = group.settings.find((x) => x.env === envName);
      if (!s) throw new Error(`setting ${envName} is not among ${group.key}'s settings`);
      if (!s.flag) return env[envName] || undefined;
      const f = flags[s.flag];
      if (f === true) throw new ConfigError(`--${s.flag} needs a value`);
      return f ?? env[envName];
    };
    (config as unknown as Record<string, unknown>)[group.key] = group.read(raw);
  }
  return config;
}
