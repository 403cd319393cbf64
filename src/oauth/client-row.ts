/**
 * An OAuth client as the rest of the server sees it, made from its row. A
 * module of its own because both ways a client arrives use it: clients.ts
 * (registered clients, and the lookup) and client-metadata-document.ts
 * (clients identified by a URL), which clients.ts imports.
 */
import type { oauthClients } from "../domains/accounts/tables";

export type ClientAuthMethod = "none" | "client_secret_basic" | "client_secret_post";

export interface OAuthClient {
  clientId: string;
  /** What the consent screen calls the client; falls back to the client id. */
  name: string | null;
  clientUri: string | null;
  redirectUris: string[];
  authMethod: ClientAuthMethod;
  secretHash: string | null;
  /** Scope the client registered, used when an authorization request names none. */
  scope: string | null;
  source: "registered" | "metadata_document";
}

export function rowToClient(row: typeof oauthClients.$inferSelect): OAuthClient {
  const meta = row.metadata ?? {};
  return {
    clientId: row.clientId,
    name: row.name,
    clientUri: typeof meta.client_uri === "string" ? meta.client_uri : null,
    redirectUris: row.redirectUris,
    authMethod: row.tokenEndpointAuthMethod as ClientAuthMethod,
    secretHash: row.secretHash,
    scope: typeof meta.scope === "string" ? meta.scope : null,
    source: row.fetchedAt ? "metadata_document" : "registered",
  };
}
