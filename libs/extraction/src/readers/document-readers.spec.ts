import JSZip from 'jszip';
import { DomainError } from '@strata/domain/errors';
import { READABLE_TYPES, readDocumentFile } from './document-readers';
import { minimalPdf } from './testing/minimal-pdf';

/** A minimal DOCX: the package parts Word needs, built with the zip library mammoth itself reads with. */
async function minimalDocx(paragraphs: string[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>');
  zip.file('_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>');
  const body = paragraphs.map((p) => `<w:p><w:r><w:t>${p}</w:t></w:r></w:p>`).join('');
  zip.file('word/document.xml', `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`);
  return zip.generateAsync({ type: 'nodebuffer' });
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'none';
  } catch (e) {
    return e instanceof DomainError ? `${e.status} ${e.code}` : String(e);
  }
}

describe('readDocumentFile', () => {
  it('reads a PDF page by page, with each page’s first byte in the text', async () => {
    const doc = await readDocumentFile(minimalPdf(['Ada Lovelace wrote notes.', 'Mary read them in 1843.']), READABLE_TYPES.pdf);
    expect(doc.page_count).toBe(2);
    expect(doc.text).toBe('Ada Lovelace wrote notes.\n\nMary read them in 1843.');
    const bytes = Buffer.from(doc.text, 'utf8');
    expect(doc.page_offsets).toEqual([{ page: 1, char_start: 0 }, { page: 2, char_start: 27 }]);
    expect(bytes.subarray(27).toString('utf8')).toBe('Mary read them in 1843.');
  }, 30_000);

  it.each([
    ['HTML', READABLE_TYPES.html, Buffer.from('<html><body><h1>Title</h1><p>Grace <b>Hopper</b> joined the Navy.</p><script>x()</script></body></html>'), /Grace Hopper joined the Navy\./],
    ['Markdown', READABLE_TYPES.markdown, Buffer.from('# Notes\n\nAlan Turing was born in 1912.'), /^# Notes\n\nAlan Turing was born in 1912\.$/],
    ['plain text with a charset', 'text/plain; charset=utf-8', Buffer.from('plain'), /^plain$/],
  ])('reads %s', async (_name, mime, bytes, expected) => {
    expect((await readDocumentFile(bytes, mime)).text).toMatch(expected);
  });

  it('reads a DOCX', async () => {
    const doc = await readDocumentFile(await minimalDocx(['First paragraph.', 'Second paragraph.']), READABLE_TYPES.docx);
    expect(doc.text.trim()).toBe('First paragraph.\n\nSecond paragraph.');
  });

  it.each([
    ['a PDF that is not one', Buffer.from('hello'), READABLE_TYPES.pdf, '422 unreadable_content'],
    ['a broken PDF', Buffer.from('%PDF-1.4\ngarbage'), READABLE_TYPES.pdf, '422 unreadable_content'],
    ['a DOCX that is not a zip', Buffer.from('not a zip'), READABLE_TYPES.docx, '422 unreadable_content'],
    ['text that is not UTF-8', Buffer.from([0xff, 0xfe, 0x41]), READABLE_TYPES.markdown, '422 unreadable_content'],
    ['an unsupported type', Buffer.from('x'), 'image/png', '400 invalid_field'],
  ])('refuses %s', async (_name, bytes, mime, code) => {
    expect(await codeOf(readDocumentFile(bytes, mime))).toBe(code);
  }, 30_000);
});
