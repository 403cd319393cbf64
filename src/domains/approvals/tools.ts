import type { Domain } from "../../mcp/define";

export const approvalsDomain: Domain = {
  name: "approvals",
  title: "Approvals",
  description: "",
  tools: [],
};
