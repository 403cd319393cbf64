import type { Domain } from "../../mcp/define";

export const storeDomain: Domain = {
  name: "store",
  title: "Store",
  description: "",
  tools: [],
};
