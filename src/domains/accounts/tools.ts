import type { Domain } from "../../mcp/define";

export const accountsDomain: Domain = {
  name: "accounts",
  title: "Accounts",
  description: "",
  tools: [],
};
