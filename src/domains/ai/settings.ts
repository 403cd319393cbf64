/**
 * How long AI history is kept. Declared on the ai Domain; Config gains
 * `aiHistoryDays` from here (src/domains/ai/retention.ts reads it).
 */
import { type DomainSettings, int } from "../../config";

declare module "../../config" {
  interface Config {
    /** Days of AI history (MCP calls and their conversations) kept; 0 keeps it all (src/domains/ai/retention.ts). */
    aiHistoryDays: number;
  }
}

export const aiSettings: DomainSettings = {
  key: "aiHistoryDays",
  settings: [
    {
      flag: "ai-history-days",
      env: "PLINTH_AI_HISTORY_DAYS",
      value: "<days>",
      group: "server",
      help: "days of AI history (MCP calls, conversations) kept (default 90; 0: all)",
    },
  ],
  read(raw) {
    const days = raw("PLINTH_AI_HISTORY_DAYS");
    return days === undefined || days === "" ? 90 : int("PLINTH_AI_HISTORY_DAYS", days, 0, 36_500);
  },
};
