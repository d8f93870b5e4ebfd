import { PageOffset } from '@strata/domain/ingestion';
import { Body, readString } from '@strata/domain/validation';

export interface IncomingContent {
  content: string;
  /** the type of a file sent as `content_base64` */
  mime_type?: string;
  /** page map read from the file itself (PDF) */
  page_offsets: PageOffset[];
  page_count: number | null;
}

/** The document's text: `content`. */
export async function readIncomingContent(body: Body): Promise<IncomingContent> {
  const content = readString(body, 'content', { required: true })!;
  return { content, page_offsets: [], page_count: null };
}
