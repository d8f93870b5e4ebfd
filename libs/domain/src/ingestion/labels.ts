/** A Document's label is its title (REFERENCE §9.2); the default title is the first line, cut to 120 characters. */
export function defaultTitle(content: string): string {
  const first = content.trim().split(/\r?\n/, 1)[0] ?? '';
  const title = cutCodePoints(first.trim(), 120);
  return title || 'Untitled document';
}

export function documentChunkLabel(title: string, index: number): string {
  return `${title} · chunk ${index}`;
}

/** A standalone chunk's label: `label`, or the first 80 characters of its content. */
export function standaloneChunkLabel(label: string | undefined, content: string): string {
  return label ?? (cutCodePoints(content.trim(), 80) || 'chunk');
}

export function cutCodePoints(s: string, max: number): string {
  const cps = Array.from(s);
  return cps.length <= max ? s : cps.slice(0, max).join('');
}
