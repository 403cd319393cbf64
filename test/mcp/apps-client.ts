/**
 * An SDK client that announces MCP Apps (the io.modelcontextprotocol/ui
 * extension) in its 2026-07-28 client capabilities, as an MCP Apps host does:
 * shared by the wire and browser tests of the in-chat views (src/mcp/apps.ts).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export const EXT = "io.modelcontextprotocol/ui";
export const MIME = "text/html;profile=mcp-app";

/** A 2026-07-28 client announcing MCP Apps (or another extension, to prove only ours counts). */
export async function appsClient(url: string, token: string, mimeTypes = [MIME]): Promise<Client> {
  const client = new Client(
    { name: "apps-host", version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      capabilities: { extensions: { [EXT]: { mimeTypes } } } as never,
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
