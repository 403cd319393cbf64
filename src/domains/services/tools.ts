import type { Domain } from "../../mcp/define";

export const servicesDomain: Domain = {
  name: "services",
  title: "Services",
  description: "",
  tools: [],
};
