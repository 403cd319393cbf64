/**
 * Where access log lines go: standard output, one JSON object per line.
 *
 * Lines are queued and written together at most FLUSH_MS after the first
 * of them (or as soon as MAX_QUEUED are waiting), so a busy server makes a
 * few dozen writes a second instead of one system call per request. `flush()`
 * writes what is queued at once and resolves when it has been handed to the
 * operating system; shutdown awaits it before the process exits.
 */

export type Sink = (chunk: string) => void | Promise<void>;

/** Writes to stdout and resolves once the chunk has left (so nothing is lost at exit). */
export const stdoutSink: Sink = (chunk) =>
  new Promise<void>((resolve) => void process.stdout.write(chunk, () => resolve()));

const MAX_QUEUED = 512;
/** The longest a line waits in the queue. */
const FLUSH_MS = 50;
/**
 * Characters handed to the sink and not yet written. A reader that stops
 * (a full pipe to a stalled log collector) must not hold the server's
 * memory: past this, lines are dropped and counted, and the first chunk
 * written afterwards starts with a line saying how many.
 */
export const MAX_PENDING_CHARS = 4 * 1024 * 1024;

export class AccessLog {
  private queue: string[] = [];
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();
  private pending = 0;
  /** Lines dropped since the last notice (the sink was this far behind). */
  private droppedSince = 0;
  /** Lines dropped since start. */
  dropped = 0;

  constructor(
    private readonly sink: Sink = stdoutSink,
    private readonly maxPendingChars = MAX_PENDING_CHARS,
  ) {}

  write(line: string): void {
    this.queue.push(line);
    if (this.queue.length >= MAX_QUEUED) this.drain();
    else if (!this.scheduled) {
      this.scheduled = true;
      setTimeout(this.drain, FLUSH_MS).unref();
    }
  }

  private readonly drain = (): void => {
    this.scheduled = false;
    if (!this.queue.length) return;
    let chunk = this.queue.join("\n") + "\n";
    const lines = this.queue.length;
    this.queue = [];
    // With nothing pending a chunk always goes (one may be larger than the bound on its own).
    if (this.pending > 0 && this.pending + chunk.length > this.maxPendingChars) {
      this.dropped += lines;
      this.droppedSince += lines;
      return;
    }
    if (this.droppedSince) {
      chunk = `{"time":"${new Date().toISOString()}","log":"dropped","lines":${this.droppedSince}}\n` + chunk;
      this.droppedSince = 0;
    }
    const size = chunk.length;
    this.pending += size;
    const sink = this.sink;
    // One write at a time, in order; a failing sink (stdout closed) loses lines, never requests.
    this.writing = this.writing
      .then(() => sink(chunk))
      .catch(() => {})
      .then(() => void (this.pending -= size));
  };

  /** Writes everything queued; resolves when it is out. */
  async flush(): Promise<void> {
    this.drain();
    await this.writing;
  }
}
