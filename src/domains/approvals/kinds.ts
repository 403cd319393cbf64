/**
 * What a domain contributes to the approval workflow, and the shapes the
 * workflow asks of it. The workflow itself (links, pages, tools,
 * decisions) is generic and names no other domain; each domain declares,
 * on its `Domain` value (src/mcp/define.ts), what differs:
 *
 *  - `approvalKinds`: for each entity type its tools draft
 *    (`approval: "<entityType>"` in defineTool), how to show the proposal,
 *    what approving makes live and what rejecting leaves behind. The
 *    registry fails at load when a gated tool names a type no domain declares;
 *  - `stagedTargets`: for changes to its records that are held for approval
 *    (a require_cms_approval credential's calls, taking live content down),
 *    the record as it is now, so the reviewer sees "live → proposed" and
 *    approval refuses a change whose target moved on; optionally how the
 *    call reads on the page (rendered blocks, what disappears);
 *  - `approvalSupport`: answers about data it owns that every approval page
 *    needs (a site's name, the preview's styles, a revoked credential).
 *
 * The shapes are declared by the plug-in contract (src/mcp/define.ts), which
 * imports no domain; the catalog (src/mcp/catalog.ts) collects all three
 * and checks them. They are re-exported here because this is where a
 * domain implementing a kind looks for them.
 *
 * @public Serves every domain that declares approval kinds, staged targets or
 * approval support.
 */
export type {
  ApprovalKind,
  ApprovalLink,
  ApprovalPreview,
  ApprovalSupport,
  CallPresentation,
  ChangeRow,
  Decision,
  HeldCall,
  StagedTarget,
} from "../../mcp/define";
