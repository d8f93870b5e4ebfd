import { Errors } from '@strata/domain/errors';
import { PageOffset } from '@strata/domain/ingestion';
import { Body, present, readString } from '@strata/domain/validation';
import { readDocumentFile } from '@strata/extraction/readers/document-readers';

export interface IncomingContent {
  content: string;
  /** the type of a file sent as `content_base64` */
  mime_type?: string;
  /** page map read from the file itself (PDF) */
  page_offsets: PageOffset[];
  page_count: number | null;
}

const BASE64_RE = /^[A-Za-z0-9+/\r\n]*={0,2}\s*$/;

/**
 * The document's text: `content`, or a file as `content_base64` with its `mime_type` (PDF,
 * HTML, Markdown, plain text, DOCX), read into text before anything is written.
 */
export async function readIncomingContent(body: Body): Promise<IncomingContent> {
  if (!present(body, 'content_base64')) {
    const content = readString(body, 'content', { required: true })!;
    return { content, page_offsets: [], page_count: null };
  }
  if (present(body, 'content')) throw Errors.invalidField('content_base64', 'send either content or content_base64, not both');
  const b64 = readString(body, 'content_base64', { required: true })!;
  if (!BASE64_RE.test(b64)) throw Errors.invalidField('content_base64', 'content_base64 must be base64');
  const mime = readString(body, 'mime_type', { trim: true, max: 200 });
  if (!mime) throw Errors.missingField('mime_type', 'mime_type is required with content_base64');
  const file = await readDocumentFile(Buffer.from(b64, 'base64'), mime);
  if (!file.text.trim()) throw Errors.missingField('content_base64', 'the file holds no text');
  return { content: file.text, mime_type: mime, page_offsets: file.page_offsets, page_count: file.page_count };
}
