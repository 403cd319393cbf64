/** The client address as the portal and OAuth endpoints count attempts by it (the connection's peer; see src/core/public-page.ts). */
export { clientAddress } from "../core/public-page";
