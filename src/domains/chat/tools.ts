/**
 * The chat toolset: inboxes (widgets per site), conversations and their
 * threads, canned responses, and a long poll for new messages. Thin
 * declarations over the verbs of this folder; every verb re-checks scope
 * and role and looks records up within the acting company only.
 */
import { demoChat } from "./demo";
import { defineTool, type Domain } from "../../mcp/define";
import { createCanned, deleteCanned, listCanned, updateCanned } from "./canned";
import {
  addNote,
  assign,
  chatJobs,
  emailTranscript,
  getConversation,
  listConversations,
  reply,
  setStatus,
  snooze,
  update,
} from "./conversations";
import { chatEvents } from "./events";
import { createInbox, deleteInbox, getInbox, listInboxes, updateInbox } from "./inboxes";
import { waitMessages } from "./live";
import { chatPublicRoutes } from "./public-pages";
import { conversationToTicket } from "./to-ticket";
import { CHAT_FILES_PREFIX, getChatAttachment, listChatAttachments } from "./attachments";
import { chatFileLinkRoutes } from "./file-routes";
import { CHAT_PATH, chatPortalRoutes } from "./portal";
import * as s from "./schemas";

const T = { toolset: "chat" } as const;
const read = { ...T, scope: "chat:read", readOnly: true } as const;
const write = { ...T, scope: "chat:write", readOnly: false } as const;

const tools = [
  defineTool({
    ...read,
    name: "chat_inboxes_list",
    title: "List chat inboxes",
    description: "Chat inboxes (one widget each), with snippet and open state.",
    input: s.inboxListInput,
    run: listInboxes,
  }),
  defineTool({
    ...read,
    name: "chat_inboxes_get",
    title: "Get a chat inbox",
    description: "A chat inbox: settings, snippet, conversation counts per status.",
    input: s.inboxRef,
    run: getInbox,
  }),
  defineTool({
    ...write,
    name: "chat_inboxes_create",
    title: "Create a chat inbox",
    description: "Create a chat widget to embed on a site; returns the snippet.",
    input: s.inboxCreateInput,
    run: (ctx, input) => createInbox(ctx, input),
  }),
  defineTool({
    ...write,
    name: "chat_inboxes_update",
    idempotent: true,
    title: "Update a chat inbox",
    description: "Change a chat inbox; businessHours null: always open.",
    input: s.inboxUpdateInput,
    run: updateInbox,
  }),
  defineTool({
    ...write,
    name: "chat_inboxes_delete",
    destructive: true,
    title: "Delete a chat inbox",
    description: "Delete a chat inbox with all its conversations.",
    input: s.inboxRef,
    run: deleteInbox,
  }),
  defineTool({
    ...read,
    name: "chat_conversations_list",
    title: "List chat conversations",
    description: "Chat conversations, newest first; q: text, visitor or #57.",
    input: s.conversationListInput,
    run: listConversations,
  }),
  defineTool({
    ...read,
    name: "chat_conversations_get",
    title: "Get a chat conversation",
    description: "A conversation with messages, newest page first.",
    input: s.conversationGetInput,
    run: getConversation,
  }),
  defineTool({
    ...write,
    name: "chat_conversations_reply",
    title: "Reply to a visitor",
    description: "Send body or a canned reply to the visitor, live.",
    input: s.replyInput,
    run: reply,
  }),
  defineTool({
    ...write,
    name: "chat_conversations_add_note",
    title: "Add an internal note",
    description: "Add an internal note, never shown to the visitor.",
    input: s.noteInput,
    run: addNote,
  }),
  defineTool({
    ...write,
    name: "chat_conversations_assign",
    idempotent: true,
    title: "Assign a conversation",
    description: "Assign a conversation to an owner/admin; null unassigns.",
    input: s.assignInput,
    run: assign,
  }),
  defineTool({
    ...write,
    name: "chat_conversations_update",
    idempotent: true,
    title: "Set priority or labels",
    description: "Change a conversation's priority or labels.",
    input: s.updateInput,
    run: update,
  }),
  defineTool({
    ...write,
    name: "chat_conversations_snooze",
    idempotent: true,
    title: "Snooze a conversation",
    description: "Hide a conversation until a time; the visitor writing reopens it.",
    input: s.snoozeInput,
    run: snooze,
  }),
  defineTool({
    ...write,
    name: "chat_conversations_set_status",
    idempotent: true,
    title: "Resolve or reopen",
    description: "Set a conversation open, pending or resolved.",
    input: s.statusInput,
    run: setStatus,
  }),
  defineTool({
    ...write,
    name: "chat_conversations_send_transcript",
    openWorld: true,
    title: "Email the transcript",
    description: "Email a conversation's transcript to the visitor or `to`.",
    input: s.transcriptInput,
    run: emailTranscript,
  }),
  defineTool({
    ...T,
    // It opens a ticket (tickets:write) from what it reads of the chat (chat:read).
    scope: "tickets:write",
    alsoNeeds: ["chat:read"],
    readOnly: false,
    idempotent: true,
    name: "chat_conversations_to_ticket",
    title: "Turn a chat into a ticket",
    description: "Open a ticket from a conversation (the visitor needs an email).",
    input: s.toTicketInput,
    run: conversationToTicket,
  }),
  defineTool({
    ...read,
    name: "chat_attachments_list",
    title: "List a chat's files",
    description: "Files in a conversation: name, sniffed type, size, sender.",
    input: s.attachmentListInput,
    run: listChatAttachments,
  }),
  defineTool({
    ...read,
    name: "chat_attachments_get",
    title: "Get a chat file",
    description: "A chat file's details, a 15-minute link, base64 up to 256 KiB.",
    input: s.attachmentGetInput,
    run: getChatAttachment,
  }),
  defineTool({
    ...read,
    name: "chat_messages_wait",
    title: "Wait for chat messages",
    description: "Long poll for chat messages after cursor (omit: get cursor).",
    input: s.waitInput,
    run: waitMessages,
  }),
  defineTool({
    ...read,
    name: "chat_canned_responses_list",
    title: "List canned responses",
    description: "Saved chat replies by short code.",
    input: s.cannedListInput,
    run: listCanned,
  }),
  defineTool({
    ...write,
    name: "chat_canned_responses_create",
    title: "Create a canned response",
    description: "Save a reply under a shortCode; {{name}}: visitor's first name.",
    input: s.cannedCreateInput,
    run: (ctx, input) => createCanned(ctx, input),
  }),
  defineTool({
    ...write,
    name: "chat_canned_responses_update",
    idempotent: true,
    title: "Update a canned response",
    description: "Change a canned response's shortCode or content.",
    input: s.cannedUpdateInput,
    run: updateCanned,
  }),
  defineTool({
    ...write,
    name: "chat_canned_responses_delete",
    destructive: true,
    title: "Delete a canned response",
    description: "Delete a canned chat response.",
    input: s.cannedRef,
    run: deleteCanned,
  }),
];

export const chatDomain: Domain = {
  demo: demoChat,
  scopes: [
    {
      area: "chat",
      title: "Live chat",
      words: { "chat:read": "read conversations and messages", "chat:write": "send messages and manage conversations" },
    },
  ],
  name: "chat",
  title: "Live chat",
  description:
    "Live chat: a widget per site, conversations with statuses, assignment, labels, internal notes, canned responses, real-time replies.",
  vocabulary: {
    chat: ["conversation"],
    visitor: ["conversation"],
    "website visitor": ["visitor"],
    waiting: ["conversation", "list"],
    unanswered: ["conversation", "list"],
    queue: ["conversation", "list"],
    give: ["assign"],
    hand: ["assign"],
    transfer: ["assign"],
    "saved replies": ["canned"],
    "quick replies": ["canned"],
    macro: ["canned"],
    snippet: ["canned"],
    "common questions": ["canned"],
    copy: ["transcript"],
    widget: ["inbox"],
    embed: ["inbox", "widget"],
    install: ["inbox", "widget"],
    "next message": ["wait"],
    listen: ["wait"],
  },
  tools,
  events: chatEvents,
  jobs: chatJobs,
  publicPages: [
    { prefix: "/chat", routes: chatPublicRoutes },
    { prefix: CHAT_FILES_PREFIX, routes: chatFileLinkRoutes },
  ],
  notificationTypes: [
    {
      type: "chat.conversation_created",
      label: "A visitor started a chat in one of your inboxes",
      inApp: true,
      email: false,
    },
    { type: "chat.message_created", label: "A visitor wrote in a chat assigned to you", inApp: true, email: false },
    { type: "chat.conversation_assigned", label: "A chat was assigned to you", inApp: true, email: true },
    { type: "chat.snooze_ended", label: "A chat you snoozed is due again", inApp: true, email: false },
  ],
  portal: {
    routes: chatPortalRoutes,
    nav: [{ href: CHAT_PATH, label: "Chat" }],
    // The reply form attaches files.
    uploads: [new RegExp(`^${CHAT_PATH}/[0-9]+/reply$`)],
  },
};
