/**
 * `plinth email feedback < message.eml`: reads one bounce (RFC 3464 DSN) or
 * complaint (RFC 5965 ARF) message on stdin and applies it, for an MTA
 * that pipes the bounce address here (Postfix `pipe`, an Exim transport,
 * a procmail rule). It runs on the server itself, so it needs no secret:
 * the report finds its company through the message it is about.
 *
 * Exit 0 when the message was applied, was a duplicate, or is nothing to
 * act on (so the MTA never bounces a bounce); 1 when it cannot be read.
 */
import { catalog } from "../catalog";
import { openDeps } from "../core/open";
import { applyReports, MAX_REPORT_BYTES, parseRawReport, ReportError } from "../domains/email/feedback";
import type { Command } from "./command";

async function readStdin(max: number): Promise<Buffer | "too_large"> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > max) return "too_large";
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export const emailCommands: Command[] = [
  {
    name: "email feedback",
    summary: "Apply one bounce (DSN) or complaint (ARF) message read from stdin; prints what changed as JSON.",
    flags: [],
    async run({ config }) {
      const raw = await readStdin(MAX_REPORT_BYTES);
      if (raw === "too_large") {
        console.error(`plinth email feedback: the message is larger than ${MAX_REPORT_BYTES} bytes.`);
        return 1;
      }
      let parsed;
      try {
        parsed = await parseRawReport(raw);
      } catch (e) {
        if (!(e instanceof ReportError)) throw e;
        console.error(`plinth email feedback: ${e.message}`);
        return 1;
      }
      if (!parsed.reports.length) {
        console.log(JSON.stringify({ applied: [], duplicates: 0, unmatched: 0, ignored: parsed.ignored }));
        return 0;
      }
      const deps = await openDeps(config, catalog, { listen: false });
      try {
        const r = await applyReports(deps, null, parsed.reports);
        console.log(JSON.stringify(r));
        if (r.unmatched)
          console.error(`plinth email feedback: ${r.unmatched} report(s) name no message or address of ours.`);
        return 0;
      } finally {
        await deps.close();
      }
    },
  },
];
