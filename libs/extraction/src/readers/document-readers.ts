import { DomainError } from '@strata/domain/errors';
import { PageOffset } from '@strata/domain/ingestion';
import { convert as htmlToText } from 'html-to-text';
import mammoth from 'mammoth';
import { pdfPages } from './pdf-text';

export const READABLE_TYPES = {
  pdf: 'application/pdf',
  html: 'text/html',
  markdown: 'text/markdown',
  text: 'text/plain',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
} as const;

export interface ReadDocument {
  text: string;
  /** the PDF's pages: 1-based, byte offsets into `text` */
  page_offsets: PageOffset[];
  page_count: number | null;
}

const unreadable = (what: string, why: string) => new DomainError(422, 'unreadable_content', `the ${what} could not be read: ${why}`, { field: 'content_base64' });

/** Strict UTF-8: a text file with invalid bytes is refused rather than read with replacement characters. */
function utf8(bytes: Buffer, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw unreadable(what, 'it is not valid UTF-8');
  }
}

/**
 * Turns a file into the text ingestion chunks (REFERENCE §9.3 `content_base64` + `mime_type`):
 * PDF (page by page, keeping where each page starts), HTML, Markdown and plain text, DOCX.
 * A file its reader cannot read is 422 `unreadable_content`; the caller writes nothing.
 */
export async function readDocumentFile(bytes: Buffer, mimeType: string): Promise<ReadDocument> {
  const type = mimeType.split(';')[0].trim().toLowerCase();
  switch (type) {
    case READABLE_TYPES.pdf: {
      if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') throw unreadable('PDF', 'it does not start with %PDF-');
      let pages: string[];
      try {
        pages = await pdfPages(bytes);
      } catch (err) {
        throw unreadable('PDF', (err as Error).message.slice(0, 200));
      }
      const page_offsets: PageOffset[] = [];
      let text = '';
      pages.forEach((p, i) => {
        if (i > 0) text += '\n\n';
        page_offsets.push({ page: i + 1, char_start: Buffer.byteLength(text, 'utf8') });
        text += p.trim();
      });
      if (!text.trim()) throw unreadable('PDF', 'it holds no text (a scan needs OCR first)');
      return { text, page_offsets, page_count: pages.length };
    }
    case READABLE_TYPES.html:
      return { text: htmlToText(utf8(bytes, 'HTML'), { wordwrap: false, selectors: [{ selector: 'a', options: { ignoreHref: true } }, { selector: 'img', format: 'skip' }] }), page_offsets: [], page_count: null };
    case READABLE_TYPES.markdown:
    case 'text/x-markdown':
    case READABLE_TYPES.text:
      return { text: utf8(bytes, 'text'), page_offsets: [], page_count: null };
    case READABLE_TYPES.docx: {
      try {
        const { value } = await mammoth.extractRawText({ buffer: bytes });
        return { text: value, page_offsets: [], page_count: null };
      } catch (err) {
        throw unreadable('DOCX', String((err as Error).message ?? err).slice(0, 200));
      }
    }
    default:
      throw new DomainError(400, 'invalid_field', `mime_type must be one of: ${Object.values(READABLE_TYPES).join(', ')}`, { field: 'mime_type', allowed: Object.values(READABLE_TYPES) });
  }
}
