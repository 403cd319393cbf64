import type { Domain } from "../../mcp/define";

export const cmsDomain: Domain = {
  name: "cms",
  title: "Cms",
  description: "",
  tools: [],
};
