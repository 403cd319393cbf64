import type { Domain } from "../../mcp/define";

export const brandingDomain: Domain = {
  name: "branding",
  title: "Branding",
  description: "",
  tools: [],
};
