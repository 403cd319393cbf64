/**
 * The tickets toolset: support tickets per company, their threads (public
 * replies, internal notes, requester messages), merges, SLA policy. Thin
 * declarations over the verbs of this folder; every verb re-checks scope
 * and role and looks tickets up within the acting company only.
 */
import { attachmentLinkRoutes } from "./attachment-routes";
import { FILES_PREFIX, getAttachment, listAttachments, setAttachmentLimits } from "./attachments";
import { demoTickets } from "./demo";
import { defineTool, type Domain } from "../../mcp/define";
import { ticketDelivery } from "./delivery";
import { ticketEvents } from "./events";
import { applyMacro, createMacro, deleteMacro, listMacros, updateMacro } from "./macros";
import {
  connectMailbox,
  disconnectMailbox,
  getMailbox,
  listMailboxes,
  mailboxJobs,
  pollMailboxNow,
  updateMailbox,
} from "./mailboxes";
import { MAIL_HOOK_PREFIX, mailHookRoutes, rotateMailHook } from "./mail-hook";
import { mergeTickets } from "./merge";
import { TICKETS_PATH, ticketPages } from "./pages";
import { addNote, addRequesterReply, listMessages, replyToTicket } from "./messages";
import { getSlaPolicy, updateSlaPolicy } from "./policy";
import { RATING_PREFIX, ratingRoutes, satisfactionReport, satisfactionSurvey } from "./satisfaction";
import * as s from "./schemas";
import { ticketJobs } from "./sla";
import {
  assignTicket,
  createTicket,
  deleteTicket,
  getTicket,
  listTicketTags,
  listTickets,
  setTicketStatus,
  ticketSummary,
  updateTicket,
} from "./tickets";

const T = { toolset: "tickets" } as const;
const read = { ...T, scope: "tickets:read", readOnly: true } as const;
const write = { ...T, scope: "tickets:write", readOnly: false } as const;

const ticketsList = defineTool({
  ...read,
  name: "tickets_list",
  title: "List tickets",
  description: "Tickets, newest activity first; q: text or #number.",
  input: s.ticketListInput,
  run: listTickets,
});

const ticketsGet = defineTool({
  ...read,
  name: "tickets_get",
  title: "Get a ticket",
  description: "A ticket with SLA state and its newest 50 messages.",
  input: s.ticketRef,
  run: getTicket,
});

const ticketsCreate = defineTool({
  ...write,
  name: "tickets_create",
  title: "Open a ticket",
  description: "Open a ticket for a requester's message, with SLA due times.",
  input: s.ticketCreateInput,
  run: (ctx, input) => createTicket(ctx, input),
});

const ticketsUpdate = defineTool({
  ...write,
  name: "tickets_update",
  idempotent: true,
  title: "Update a ticket",
  description: "Change a ticket's subject, priority (recomputes SLA) or tags.",
  input: s.ticketUpdateInput,
  run: updateTicket,
});

const ticketsAssign = defineTool({
  ...write,
  name: "tickets_assign",
  idempotent: true,
  title: "Assign a ticket",
  description: "Assign a ticket to a company owner/admin; null unassigns.",
  input: s.ticketAssignInput,
  run: assignTicket,
});

const ticketsSetStatus = defineTool({
  ...write,
  name: "tickets_set_status",
  idempotent: true,
  title: "Change a ticket's status",
  description: "Change status; solved → open|closed; closed is final.",
  input: s.ticketStatusInput,
  run: setTicketStatus,
});

const ticketsReply = defineTool({
  ...write,
  name: "tickets_reply",
  title: "Reply to the requester",
  description: "Reply to the requester by email; status optional.",
  input: s.ticketReplyInput,
  run: replyToTicket,
});

const ticketsAddNote = defineTool({
  ...write,
  name: "tickets_add_note",
  title: "Add an internal note",
  description: "Add an internal note, never shown to the requester.",
  input: s.ticketNoteInput,
  run: addNote,
});

const ticketsAddRequesterReply = defineTool({
  ...write,
  name: "tickets_add_requester_reply",
  title: "Record a requester's message",
  description: "Record a message the requester sent; reopens the ticket.",
  input: s.ticketNoteInput,
  run: addRequesterReply,
});

const ticketsMerge = defineTool({
  ...write,
  name: "tickets_merge",
  title: "Merge tickets",
  description: "Merge ticket id into targetId, which gets its messages.",
  input: s.ticketMergeInput,
  run: mergeTickets,
});

const ticketsDelete = defineTool({
  ...write,
  name: "tickets_delete",
  destructive: true,
  title: "Delete a ticket",
  description: "Delete a ticket and its thread (spam, tests).",
  input: s.ticketRef,
  run: deleteTicket,
});

const ticketMessagesList = defineTool({
  ...read,
  name: "ticket_messages_list",
  title: "List a ticket's messages",
  description: "A ticket's thread, oldest first; kind: reply or note.",
  input: s.messageListInput,
  run: listMessages,
});

const ticketsSummary = defineTool({
  ...read,
  name: "tickets_summary",
  title: "Ticket queue summary",
  description: "Ticket counts per status, unassigned, mine, SLA breached.",
  input: s.summaryInput,
  run: (ctx) => ticketSummary(ctx),
});

const ticketTagsList = defineTool({
  ...read,
  name: "ticket_tags_list",
  title: "List ticket tags",
  description: "Ticket tags in use, most used first; reuse these spellings.",
  input: s.tagListInput,
  run: listTicketTags,
});

const slaPolicyGet = defineTool({
  ...read,
  name: "ticket_sla_policy_get",
  title: "Get the SLA policy",
  description: "The SLA policy: business hours, holidays, targets per priority.",
  input: s.summaryInput,
  run: (ctx) => getSlaPolicy(ctx),
});

const slaPolicyUpdate = defineTool({
  ...write,
  name: "ticket_sla_policy_update",
  idempotent: true,
  title: "Update the SLA policy",
  description: "Change the SLA policy; targets in minutes.",
  input: s.slaPolicyUpdateInput,
  run: updateSlaPolicy,
});

const macrosList = defineTool({
  ...read,
  name: "ticket_macros_list",
  title: "List ticket macros",
  description: "Saved macros by name.",
  input: s.macroListInput,
  run: listMacros,
});

const macrosCreate = defineTool({
  ...write,
  name: "ticket_macros_create",
  title: "Create a ticket macro",
  description: "Save a macro: reply ({{ticket.number}} etc.), status, tags, assignee.",
  input: s.macroCreateInput,
  run: (ctx, input) => createMacro(ctx, input),
});

const macrosUpdate = defineTool({
  ...write,
  name: "ticket_macros_update",
  idempotent: true,
  title: "Update a ticket macro",
  description: "Change a macro's parts; null clears one.",
  input: s.macroUpdateInput,
  run: updateMacro,
});

const macrosDelete = defineTool({
  ...write,
  name: "ticket_macros_delete",
  destructive: true,
  title: "Delete a ticket macro",
  description: "Delete a macro; tickets keep what it did.",
  input: s.macroRef,
  run: deleteMacro,
});

const ticketsApplyMacro = defineTool({
  ...write,
  name: "tickets_apply_macro",
  title: "Apply a macro",
  description: "Apply a macro's reply, tags, assignee and status, or nothing.",
  input: s.applyMacroInput,
  run: applyMacro,
});

// Support mailboxes: company settings, so owners and admins only (as the SLA policy); the password is write-only.
const admin = { ...write, minRole: "admin" } as const;

const mailboxesConnect = defineTool({
  ...admin,
  name: "ticket_mailboxes_connect",
  title: "Connect a support mailbox",
  description: "Connect an IMAP mailbox whose new mail opens tickets.",
  input: s.mailboxConnectInput,
  run: connectMailbox,
});

const mailboxesList = defineTool({
  ...read,
  minRole: "admin",
  name: "ticket_mailboxes_list",
  title: "List support mailboxes",
  description: "Connected support mailboxes with state and last error.",
  input: s.summaryInput,
  run: (ctx) => listMailboxes(ctx),
});

const mailboxesGet = defineTool({
  ...read,
  minRole: "admin",
  name: "ticket_mailboxes_get",
  title: "Get a support mailbox",
  description: "A mailbox and its recent mails, with the ticket of each.",
  input: s.mailboxRef,
  run: getMailbox,
});

const mailboxesUpdate = defineTool({
  ...admin,
  idempotent: true,
  name: "ticket_mailboxes_update",
  title: "Update a support mailbox",
  description: "Change a mailbox's server, login or folder, or pause polling.",
  input: s.mailboxUpdateInput,
  run: updateMailbox,
});

const mailboxesDisconnect = defineTool({
  ...admin,
  destructive: true,
  name: "ticket_mailboxes_disconnect",
  title: "Disconnect a support mailbox",
  description: "Stop polling and forget a mailbox; its tickets stay.",
  input: s.mailboxRef,
  run: disconnectMailbox,
});

const mailboxesPoll = defineTool({
  ...admin,
  name: "ticket_mailboxes_poll",
  title: "Poll a support mailbox now",
  description: "Fetch a mailbox's new mail now.",
  input: s.mailboxRef,
  run: pollMailboxNow,
});

const mailWebhookRotate = defineTool({
  ...admin,
  name: "ticket_mail_webhook_rotate",
  title: "Make the inbound-mail webhook URL",
  description: "Make a secret URL that turns POSTed raw mail into tickets.",
  input: s.summaryInput,
  run: (ctx) => rotateMailHook(ctx),
});

const attachmentsList = defineTool({
  ...read,
  name: "ticket_attachments_list",
  title: "List a ticket's files",
  description: "Files on a ticket's messages: name, sniffed type, size, source.",
  input: s.attachmentListInput,
  run: listAttachments,
});

const attachmentsGet = defineTool({
  ...read,
  name: "ticket_attachments_get",
  title: "Get a ticket file",
  description: "A file's details, a 15-minute download URL, base64 up to 256 KiB.",
  input: s.attachmentGetInput,
  run: getAttachment,
});

const attachmentLimitsSet = defineTool({
  ...admin,
  idempotent: true,
  name: "ticket_attachment_limits_set",
  title: "Set the ticket file limits",
  description: "Largest file and total bytes of the company's ticket files.",
  input: s.attachmentLimitsInput,
  run: setAttachmentLimits,
});

const satisfactionReportTool = defineTool({
  ...read,
  name: "tickets_satisfaction_report",
  title: "Satisfaction report",
  description: "Good/bad ratings per agent in a period (from, to; last 30 days).",
  input: s.satisfactionReportInput,
  run: satisfactionReport,
});

export const ticketsDomain: Domain = {
  demo: demoTickets,
  scopes: [
    {
      area: "tickets",
      title: "Tickets",
      words: { "tickets:read": "read tickets", "tickets:write": "open tickets, reply and change their status" },
    },
  ],
  name: "tickets",
  title: "Tickets",
  description:
    "Support tickets per company: threads with internal notes, assignment, statuses, merges and SLA targets in business hours.",
  vocabulary: {
    support: ["ticket"],
    issue: ["ticket"],
    problem: ["ticket"],
    complaint: ["ticket"],
    case: ["ticket"],
    hand: ["assign"],
    give: ["assign"],
    delegate: ["assign"],
    reassign: ["assign"],
    same: ["merge"],
    duplicate: ["merge"],
    combine: ["merge"],
    overdue: ["breached", "summary"],
    late: ["breached", "summary"],
    "how many": ["summary"],
    private: ["note"],
    internal: ["note"],
    "response time": ["sla", "policy"],
    target: ["sla", "policy"],
    phoned: ["requester", "reply"],
    called: ["requester", "reply"],
    "wrote back": ["requester", "reply"],
    solved: ["status"],
    resolved: ["status", "solved"],
    close: ["status"],
    "canned reply": ["macro"],
    "saved reply": ["macro"],
    template: ["macro"],
    csat: ["satisfaction"],
    rating: ["satisfaction"],
    feedback: ["satisfaction"],
  },
  tools: [
    ticketsList,
    ticketsGet,
    ticketsCreate,
    ticketsUpdate,
    ticketsAssign,
    ticketsSetStatus,
    ticketsReply,
    ticketsAddNote,
    ticketsAddRequesterReply,
    ticketsMerge,
    ticketsDelete,
    ticketMessagesList,
    ticketsSummary,
    ticketTagsList,
    slaPolicyGet,
    slaPolicyUpdate,
    macrosList,
    macrosCreate,
    macrosUpdate,
    macrosDelete,
    ticketsApplyMacro,
    mailboxesConnect,
    mailboxesList,
    mailboxesGet,
    mailboxesUpdate,
    mailboxesDisconnect,
    mailboxesPoll,
    mailWebhookRotate,
    attachmentsList,
    attachmentsGet,
    attachmentLimitsSet,
    satisfactionReportTool,
  ],
  publicPages: [
    { prefix: MAIL_HOOK_PREFIX, routes: mailHookRoutes },
    { prefix: FILES_PREFIX, routes: attachmentLinkRoutes },
    { prefix: RATING_PREFIX, routes: ratingRoutes },
  ],
  events: ticketEvents,
  jobs: [...ticketJobs, ...mailboxJobs],
  subscribers: [ticketDelivery, satisfactionSurvey],
  portal: { routes: ticketPages, nav: [{ href: TICKETS_PATH, label: "Tickets" }] },
  notificationTypes: [
    { type: "ticket.assigned", label: "A ticket was assigned to you", inApp: true, email: true },
    { type: "ticket.sla_breached", label: "A ticket you own breached its SLA", inApp: true, email: true },
  ],
};
