/**
 * OAuth clients as the rest of the server sees them, whichever way they
 * arrived: registered through RFC 7591, or identified by the https URL of a
 * Client ID Metadata Document. Also client authentication at the token and
 * revocation endpoints (RFC 6749 §2.3).
 */
import { eq } from "drizzle-orm";
import type { Context } from "hono";
import type { Deps } from "../core/context";
import { safeEqual, sha256Hex } from "../core/secrets";
import { clientFromMetadataDocument, isMetadataDocumentClientId } from "./client-metadata-document";
import { oauthError } from "./errors";
import { oauthClients } from "../domains/accounts/tables";

export type { ClientAuthMethod, OAuthClient } from "./client-row";
import { type OAuthClient, rowToClient } from "./client-row";

export const MAX_CLIENT_ID = 2000;

/**
 * The client named by `clientId`, or null when there is none. A URL client
 * id is resolved through its metadata document (cached); errors fetching it
 * are thrown as invalid_client with a description a person can act on.
 */
export async function loadClient(deps: Deps, clientId: string): Promise<OAuthClient | null> {
  if (!clientId || clientId.length > MAX_CLIENT_ID) return null;
  if (isMetadataDocumentClientId(clientId)) return clientFromMetadataDocument(deps, clientId);
  const row = (await deps.db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1))[0];
  return row ? rowToClient(row) : null;
}

function decodeBasic(header: string): { id: string; secret: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return null;
  const raw = Buffer.from(m[1]!, "base64").toString("utf8");
  const i = raw.indexOf(":");
  if (i < 0) return null;
  try {
    // RFC 6749 §2.3.1: both halves are form-urlencoded before base64.
    return {
      id: decodeURIComponent(raw.slice(0, i).replace(/\+/g, " ")),
      secret: decodeURIComponent(raw.slice(i + 1).replace(/\+/g, " ")),
    };
  } catch {
    return null;
  }
}

/**
 * Who is calling the token or revocation endpoint. Public clients name
 * themselves with `client_id`; confidential ones prove it with their secret
 * in the way they registered. Any mismatch is invalid_client (401).
 */
export async function authenticateClient(deps: Deps, c: Context, form: URLSearchParams): Promise<OAuthClient> {
  const header = c.req.header("authorization");
  const basic = header ? decodeBasic(header) : null;
  if (header && !basic)
    throw oauthError("invalid_client", "The Authorization header is not valid HTTP Basic client authentication.");
  const bodyId = form.get("client_id");
  const bodySecret = form.get("client_secret");
  if (basic && bodySecret !== null)
    throw oauthError("invalid_request", "Use one client authentication method, not both.");
  if (basic && bodyId !== null && bodyId !== basic.id)
    throw oauthError("invalid_client", "client_id does not match the authenticated client.");
  const clientId = basic?.id ?? bodyId;
  if (!clientId) throw oauthError("invalid_client", "client_id is required.");
  const client = await loadClient(deps, clientId);
  if (!client) throw oauthError("invalid_client", "Unknown client.");
  const presented = basic?.secret ?? bodySecret;
  if (client.authMethod === "none") {
    if (presented !== null)
      throw oauthError("invalid_client", "This client is public and must not send a client secret.");
    return client;
  }
  if (presented === null || !client.secretHash)
    throw oauthError("invalid_client", "Client authentication is required.");
  if (!safeEqual(sha256Hex(presented), client.secretHash))
    throw oauthError("invalid_client", "Client authentication failed.");
  return client;
}
