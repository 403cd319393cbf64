/**
 * The company's file store as another domain uses it: files on chat
 * messages are checked, stored, limited and served exactly as files on
 * tickets (attachments.ts), so a company has one set of rules and one
 * budget for files whichever way they came in. Chat calls this face rather
 * than a copy: the limits table, the sniffing rules and the download
 * headers stay in one place, and a chat turned into a ticket hands its
 * files over by key (openTicketFromChat's `files`), stored once.
 *
 * @public Serves chat (visitor and agent uploads, the company budget, the
 * download response, files carried over to a ticket, removing the bytes of
 * a deleted inbox's files).
 */
export {
  checkBudget,
  discardStored,
  fileResponse,
  forgetFiles,
  INLINE_MAX,
  type IncomingFile,
  LINK_TTL_MS,
  limitsOf,
  MAX_FILES_PER_MESSAGE,
  type StoredFile,
  storedFileColumns,
  storeFiles,
} from "./attachments";
