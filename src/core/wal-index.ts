/**
 * "Has any connection committed since I last asked?", answered from memory.
 *
 * The change feed (src/core/changes.ts) asks on every REST and MCP request
 * whether another process (a CLI beside the server) has committed, so a
 * revoked key is refused on the very next request. `PRAGMA data_version`
 * answers that exactly but costs a read transaction: two fcntl() locks and an
 * fstat() on the -shm file, a sixth of a cached REST request's CPU. Every
 * commit by any connection rewrites the WAL-index header at the start of the
 * -shm file (https://www.sqlite.org/walformat.html: its change counter, last
 * frame, salts and checksum), which every process maps; while the header's
 * 48 bytes stand still, nobody has committed and the last data_version holds.
 * When they moved (a commit here or anywhere), data_version is asked once,
 * after copying them, so a commit landing in between moves them again.
 *
 * The mapping is made BEFORE this process's SQLite opens the -shm file, and
 * only when no descriptor of this process refers to it. Closing any
 * descriptor of a file releases every POSIX lock the process holds on it,
 * SQLite's included: an earlier version mapped the file after SQLite had it
 * open, dropped SQLite's locks with the close, and another process
 * reinitialised the file under this one (SIGBUS in CI). Made first, the open
 * and close hold no lock of anyone's. It is trusted only once this process's
 * SQLite has opened the file and the path still names the inode mapped, with
 * a valid, initialised header; that is checked again every second, and any
 * failure falls back to data_version for good. While SQLite here holds its
 * locks no other process can truncate or replace the file, and only the
 * header's first page is ever read, so the mapping cannot fault.
 *
 * Linux only (it needs /proc/self/fd to prove no descriptor is open); other
 * platforms, a read-only data dir or an open descriptor get data_version on
 * every check, as before.
 */
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  statSync,
  type BigIntStats,
} from "node:fs";

/** sqlite3 WAL-index format version (walformat.html), stored in native byte order. */
const WALINDEX_VERSION = 3007000;
/** The header copy read, in 32-bit words: bytes 0–47. */
const HEADER_WORDS = 12;
/** Size SQLite gives a new -shm file's first region; a fresh file is grown to it so there is something to map. */
const FIRST_REGION = 32768;
const RECHECK_MS = 1000;

export interface WalIndexMap {
  /** Wraps `dataVersion` (the exact, costly reading) with the header check. */
  poll(dataVersion: () => number, closed: () => boolean): () => number;
}

function sameFile(a: BigIntStats, b: BigIntStats) {
  return a.dev === b.dev && a.ino === b.ino;
}

/** Whether some descriptor of this process refers to `file` (null: the file is absent); undefined when that cannot be known. */
function openHere(file: BigIntStats | null): boolean | undefined {
  let fds: string[];
  try {
    fds = readdirSync("/proc/self/fd");
  } catch {
    return undefined;
  }
  if (!file) return false;
  for (const fd of fds) {
    try {
      if (sameFile(statSync(`/proc/self/fd/${fd}`, { bigint: true }), file)) return true;
    } catch {
      // The directory's own descriptor, already closed.
    }
  }
  return false;
}

/** Call before any connection of this process opens `dbPath`'s WAL; null when the fast check cannot be made safely. */
export function mapWalIndex(dbPath: string): WalIndexMap | null {
  if (process.platform !== "linux") return null;
  const shm = `${dbPath}-shm`;
  let mapped: BigIntStats;
  let bytes: Uint8Array;
  let header: Uint32Array;
  try {
    if (openHere(statSync(shm, { bigint: true, throwIfNoEntry: false }) ?? null) !== false) return null;
    // SQLite creates the -shm file with the database file's permissions; so do we, when it is not there yet.
    const db = statSync(dbPath, { throwIfNoEntry: false });
    const fd = openSync(shm, constants.O_RDWR | constants.O_CREAT, db ? db.mode & 0o777 : 0o644);
    try {
      // Empty or just truncated by a process starting up: grow it to SQLite's first region (zeros are what SQLite would write).
      if (fstatSync(fd).size < HEADER_WORDS * 4) ftruncateSync(fd, FIRST_REGION);
      mapped = fstatSync(fd, { bigint: true });
    } finally {
      closeSync(fd);
    }
    bytes = Bun.mmap(shm, { shared: true, size: HEADER_WORDS * 4 });
    const after = statSync(shm, { bigint: true });
    if (bytes.byteLength < HEADER_WORDS * 4 || !sameFile(after, mapped)) return null;
    header = new Uint32Array(bytes.buffer, bytes.byteOffset, HEADER_WORDS);
  } catch {
    return null;
  }

  /** The path still names the mapped file, and SQLite has initialised its header. */
  function live(): boolean {
    try {
      const now = statSync(shm, { bigint: true, throwIfNoEntry: false });
      return !!now && sameFile(now, mapped) && header[0] === WALINDEX_VERSION && bytes[12] === 1 /* isInit */;
    } catch {
      return false;
    }
  }

  return {
    poll(dataVersion, closed) {
      const seen = new Uint32Array(HEADER_WORDS);
      let version = 0;
      let trusted = false;
      let failed = false;
      let recheckAt = 0;
      return () => {
        // After close the mapping is never read: SQLite here no longer holds the file.
        if (failed || closed()) return dataVersion();
        if (!trusted) {
          seen.set(header);
          version = dataVersion(); // the first read opens the -shm file in this process
          if (live()) {
            trusted = true;
            recheckAt = performance.now() + RECHECK_MS;
          } else failed = true;
          return version;
        }
        const now = performance.now();
        if (now >= recheckAt) {
          if (!live()) {
            failed = true;
            return dataVersion();
          }
          recheckAt = now + RECHECK_MS;
        }
        for (let i = 0; i < HEADER_WORDS; i++) {
          if (header[i] !== seen[i]) {
            seen.set(header);
            version = dataVersion();
            break;
          }
        }
        return version;
      };
    },
  };
}
