/**
 * Configuration from flags (`--port 9000`) or environment (PLINTH_PORT).
 * Flags win. A bad value stops start-up with one line naming the setting.
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
  s3: { bucket: string | null; endpoint: string | null; region: string | null; accessKeyId: string | null; secretAccessKey: string | null };
}

export class ConfigError extends Error {}

type Source = Record<string, string | undefined>;

function int(name: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function list(raw: string | undefined): string[] {
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
    const f = flags[flag];
    if (f === true) throw new ConfigError(`--${flag} needs a value`);
    return f ?? env[envName];
  };
  const portRaw = get("port", "PLINTH_PORT");
  const port = portRaw === undefined ? 8787 : int("PLINTH_PORT", portRaw, 0, 65535);
  const host = get("host", "PLINTH_HOST") ?? "127.0.0.1";
  if (!/^[A-Za-z0-9.:\-\[\]]+$/.test(host)) throw new ConfigError(`PLINTH_HOST is not a host name or address: "${host}"`);
  const dataDir = get("data-dir", "PLINTH_DATA_DIR") ?? "./data";
  if (!dataDir) throw new ConfigError("PLINTH_DATA_DIR must not be empty");
  const publicRaw = get("public-url", "PLINTH_PUBLIC_URL");
  let publicUrl = `http://localhost:${port}`;
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
  const maxUploadBytes = upRaw === undefined ? 10 * 1024 * 1024 : int("PLINTH_MAX_UPLOAD_BYTES", upRaw, 1024, 1024 * 1024 * 1024);
  const databaseUrl = get("database-url", "PLINTH_DATABASE_URL") || null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\/\S+$/i.test(databaseUrl))
    throw new ConfigError(`PLINTH_DATABASE_URL must be a postgres:// or postgresql:// URL (leave it unset for the embedded SQLite store)`);
  const redisUrl = get("redis-url", "PLINTH_REDIS_URL") || null;
  if (redisUrl !== null && !/^rediss?:\/\/\S+$/i.test(redisUrl)) throw new ConfigError(`PLINTH_REDIS_URL must be a redis:// or rediss:// URL`);
  const poolRaw = get("db-pool-size", "PLINTH_DB_POOL_SIZE");
  const dbPoolSize = poolRaw === undefined ? 10 : int("PLINTH_DB_POOL_SIZE", poolRaw, 1, 500);
  const mediaRaw = get("media-store", "PLINTH_MEDIA_STORE");
  const mediaStore = (mediaRaw ?? (databaseUrl ? "db" : "local")) as Config["mediaStore"];
  if (!["local", "db", "s3"].includes(mediaStore)) throw new ConfigError(`PLINTH_MEDIA_STORE must be local, db or s3, got "${mediaRaw}"`);
  if (mediaStore === "db" && !databaseUrl)
    throw new ConfigError(`PLINTH_MEDIA_STORE=db needs PostgreSQL (PLINTH_DATABASE_URL); the SQLite store keeps media in the data dir`);
  const s3 = {
    bucket: get("s3-bucket", "PLINTH_S3_BUCKET") ?? null,
    endpoint: get("s3-endpoint", "PLINTH_S3_ENDPOINT") ?? null,
    region: get("s3-region", "PLINTH_S3_REGION") ?? null,
    accessKeyId: env.PLINTH_S3_ACCESS_KEY_ID ?? null,
    secretAccessKey: env.PLINTH_S3_SECRET_ACCESS_KEY ?? null,
  };
  if (mediaStore === "s3" && !s3.bucket) throw new ConfigError(`PLINTH_MEDIA_STORE=s3 needs PLINTH_S3_BUCKET`);
  return {
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
  };
}
