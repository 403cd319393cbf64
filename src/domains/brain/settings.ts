/**
 * The brain's embeddings endpoint for hybrid search (environment only: the
 * key is a secret and stays out of `ps`). Declared on the brain Domain;
 * Config gains the three fields from here.
 */
import { ConfigError, type DomainSettings } from "../../config";

declare module "../../config" {
  interface Config {
    /**
     * OpenAI-compatible embeddings endpoint for the brain's hybrid search
     * (POST <url>/v1/embeddings, or the URL itself when it ends in /embeddings);
     * null: brain search is full text only.
     */
    embeddingsUrl: string | null;
    /** Bearer key sent to embeddingsUrl, if it needs one. */
    embeddingsKey: string | null;
    /** Model name sent with each embeddings request. */
    embeddingsModel: string;
  }
}

/** Three fields of Config, one group per field (a group fills one field). */
const env = (name: string, value: string, help: string) => ({
  flag: null,
  env: name,
  value,
  group: "server" as const,
  help,
});

export const brainSettings: DomainSettings[] = [
  {
    key: "embeddingsUrl",
    settings: [
      env(
        "PLINTH_EMBEDDINGS_URL",
        "<url>",
        "OpenAI-compatible embeddings endpoint (…/v1/embeddings) for the brain's hybrid search; unset: full text only",
      ),
    ],
    read(raw) {
      const url = raw("PLINTH_EMBEDDINGS_URL") ?? null;
      if (url !== null && !/^https?:\/\/\S+$/i.test(url))
        throw new ConfigError("PLINTH_EMBEDDINGS_URL must be an http:// or https:// URL");
      return url;
    },
  },
  {
    key: "embeddingsKey",
    settings: [env("PLINTH_EMBEDDINGS_KEY", "<key>", "bearer key for PLINTH_EMBEDDINGS_URL")],
    read: (raw) => raw("PLINTH_EMBEDDINGS_KEY") ?? null,
  },
  {
    key: "embeddingsModel",
    settings: [env("PLINTH_EMBEDDINGS_MODEL", "<name>", "embeddings model name (default text-embedding-3-small)")],
    read: (raw) => raw("PLINTH_EMBEDDINGS_MODEL") || "text-embedding-3-small",
  },
];
