import * as fs from 'node:fs';
import { CliError } from './cli-error';
import { ProgressReporter } from '../progress/progress-reporter';

const MB = 1024 * 1024;

/**
 * Reads a whole input (a file, or stdin when `file` is absent or '-'), reporting megabytes
 * read on stderr. Refuses an interactive terminal: the data has to be piped in.
 */
export async function readInput(file: string | undefined, what: string, example: string): Promise<Buffer> {
  let stream: NodeJS.ReadableStream;
  let size = 0;
  if (file && file !== '-') {
    try {
      size = fs.statSync(file).size;
    } catch {
      throw new CliError(`cannot read ${file}: no such file`);
    }
    stream = fs.createReadStream(file);
  } else {
    if (process.stdin.isTTY) throw new CliError(`pipe the ${what} in, e.g. ${example}`);
    stream = process.stdin;
  }
  // a file's size is known: a bar; a pipe's is not: a line per second once it gets large
  const progress = size > 4 * MB ? new ProgressReporter(`reading ${what}`, process.stderr, undefined, 'MB') : null;
  const parts: Buffer[] = [];
  let read = 0;
  // monotonic: only paces the progress lines
  let lastLine = performance.now();
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    parts.push(b);
    read += b.length;
    if (progress) progress.update(read / MB, size / MB);
    else if (read > 4 * MB && performance.now() - lastLine >= 1000) {
      lastLine = performance.now();
      process.stderr.write(`reading ${what}: ${(read / MB).toFixed(1)} MB\n`);
    }
  }
  progress?.finish(read / MB, size / MB);
  return Buffer.concat(parts);
}
