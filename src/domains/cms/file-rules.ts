/**
 * @public How the media library takes files in and hands them out, for
 * other domains that keep files in the same store: the type sniffed from
 * the bytes (media-sniff.ts), base64 decoding bounded before it decodes,
 * display-safe file names, and the download headers' Content-Disposition
 * and sandboxing CSP. Serves tickets (ticket attachments), so both refuse
 * and serve a file alike instead of keeping two copies of the rules.
 */
export { cleanFilename, decodeUpload } from "./media";
export { contentDisposition, MEDIA_CSP } from "./media-files";
export { decideType, MEDIA_TYPES, type MediaType, normaliseMime } from "./media-sniff";
