import { once } from 'node:events';

/**
 * Writes to stdout, waiting when the reader is slower (a pipe into `less`), so output is
 * streamed without piling up in memory.
 */
export async function writeOut(text: string, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** A reader that went away (`| head`) ends the command quietly. */
export function exitQuietlyOnEpipe(out: NodeJS.WritableStream = process.stdout): void {
  out.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}
