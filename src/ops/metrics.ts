/**
 * The counters behind `GET /metrics`, and the Prometheus text exposition
 * format (version 0.0.4) they are rendered in.
 *
 * Hand-written rather than prom-client: updates run on the REST hot path,
 * and here they allocate nothing (series are found by route template, then
 * by a number made of status and method; histogram buckets are a typed
 * array), where a general library builds a label key string per update.
 * The format itself is a few lines of text per series.
 *
 * Label values are bounded by construction: routes are templates
 * ("/api/v1/sites/{siteId}/posts", never a raw URL), methods one of eight,
 * statuses 100–599, tools the registry's names or "(unknown)", outcomes and
 * limiters fixed lists. Nothing a client sends becomes a label as is.
 */

/** Latency buckets in seconds: REST answers in well under a millisecond, slow tools take seconds. */
export const DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
] as const;

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"] as const;
const OTHER_METHOD = METHODS.length - 1;

function methodIndex(method: string): number {
  switch (method) {
    case "GET":
      return 0;
    case "HEAD":
      return 1;
    case "POST":
      return 2;
    case "PUT":
      return 3;
    case "PATCH":
      return 4;
    case "DELETE":
      return 5;
    case "OPTIONS":
      return 6;
    default:
      return OTHER_METHOD;
  }
}

export type ToolOutcome = "ok" | "tool_error" | "protocol_error";
export const TOOL_OUTCOMES: readonly ToolOutcome[] = ["ok", "tool_error", "protocol_error"];
export type LimiterName = "rest" | "mcp";

/** One route template's requests: counts by status and method, and its latency histogram. */
class RouteSeries {
  /** status * 8 + method index → requests. */
  readonly counts = new Map<number, number>();
  /** Observations per bucket (not cumulative); the last slot is +Inf. */
  readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
  sum = 0;
  count = 0;
}

/** Past this many distinct routes, further ones are counted as "other" (a safety net: routes are templates). */
const MAX_ROUTES = 500;

/** Escapes a label value for the exposition format. */
export function labelValue(v: string): string {
  return v.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));
}

/** `name{a="x",b="y"} value`, or `name value` without labels. */
export function sample(name: string, labels: Record<string, string>, value: number): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${labelValue(v)}"`);
  return `${name}${parts.length ? `{${parts.join(",")}}` : ""} ${formatNumber(value)}`;
}

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  return String(n);
}

/** A metric family as text: HELP, TYPE and its samples. */
export function family(name: string, type: "counter" | "gauge" | "histogram", help: string, samples: string[]): string {
  return [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples].join("\n");
}

/** A gauge family from (labels, value) pairs. */
export function gauge(name: string, help: string, values: [Record<string, string>, number][]): string {
  return family(
    name,
    "gauge",
    help,
    values.map(([l, v]) => sample(name, l, v)),
  );
}

export class Metrics {
  private readonly routes = new Map<string, RouteSeries>();
  /** tool → [ok, tool_error, protocol_error]. */
  private readonly tools = new Map<string, [number, number, number]>();
  private readonly limited: Record<LimiterName, number> = { rest: 0, mcp: 0 };
  /** Requests whose response is not ready yet. */
  inFlight = 0;

  /** One finished request. Allocates only the first time a route/status/method combination is seen. */
  request(route: string, method: string, status: number, seconds: number): void {
    let s = this.routes.get(route);
    if (!s) {
      if (this.routes.size >= MAX_ROUTES) return this.request("other", method, status, seconds);
      this.routes.set(route, (s = new RouteSeries()));
    }
    const key = status * 8 + methodIndex(method);
    s.counts.set(key, (s.counts.get(key) ?? 0) + 1);
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    s.buckets[i]!++;
    s.sum += seconds;
    s.count++;
  }

  toolCall(tool: string, outcome: ToolOutcome): void {
    let t = this.tools.get(tool);
    if (!t) this.tools.set(tool, (t = [0, 0, 0]));
    t[TOOL_OUTCOMES.indexOf(outcome)]!++;
  }

  rateLimited(limiter: LimiterName): void {
    this.limited[limiter]++;
  }

  /** The in-process families as exposition text (scrape-time gauges are rendered by the caller). */
  render(): string {
    const requests: string[] = [];
    const durations: string[] = [];
    for (const [route, s] of [...this.routes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      for (const [key, n] of [...s.counts].sort(([a], [b]) => a - b)) {
        const status = Math.floor(key / 8);
        requests.push(
          sample("plinth_http_requests_total", { route, method: METHODS[key % 8]!, status: String(status) }, n),
        );
      }
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i]!;
        durations.push(sample("plinth_http_request_duration_seconds_bucket", { route, le: String(le) }, cumulative));
      });
      cumulative += s.buckets[DURATION_BUCKETS.length]!;
      durations.push(sample("plinth_http_request_duration_seconds_bucket", { route, le: "+Inf" }, cumulative));
      durations.push(sample("plinth_http_request_duration_seconds_sum", { route }, s.sum));
      durations.push(sample("plinth_http_request_duration_seconds_count", { route }, s.count));
    }
    const tools: string[] = [];
    for (const [tool, counts] of [...this.tools].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      TOOL_OUTCOMES.forEach((outcome, i) =>
        tools.push(sample("plinth_mcp_tool_calls_total", { tool, outcome }, counts[i]!)),
      );
    return [
      family("plinth_http_requests_total", "counter", "HTTP requests by route template, method and status.", requests),
      family(
        "plinth_http_request_duration_seconds",
        "histogram",
        "Time until the response was ready, by route template.",
        durations,
      ),
      gauge("plinth_http_requests_in_flight", "Requests being handled right now.", [[{}, this.inFlight]]),
      family(
        "plinth_mcp_tool_calls_total",
        "counter",
        "MCP tools/call messages by tool and outcome (ok, tool_error, protocol_error).",
        tools,
      ),
      family(
        "plinth_rate_limited_total",
        "counter",
        "Requests refused by a rate limiter (rest: REST v1, mcp: the MCP endpoint).",
        (Object.keys(this.limited) as LimiterName[]).map((l) =>
          sample("plinth_rate_limited_total", { limiter: l }, this.limited[l]),
        ),
      ),
    ].join("\n");
  }
}
