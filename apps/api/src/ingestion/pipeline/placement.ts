import { CommandContext } from '@strata/platform/unit-of-work/command-context';

/**
 * The Space a request's new nodes will go in (REFERENCE §13.1), as far as it can be told
 * before the unit of work checks it: the `space_uid` it names, else the one Space of a key
 * limited to one, else none. Used to look for identical material in the same Spaces only.
 */
export function expectedPlacement(ctx: CommandContext): string | null {
  if (typeof ctx.space_uid === 'string') return ctx.space_uid;
  const keySpaces = ctx.access?.credential === 'api_key' ? ctx.access.space_uids : null;
  return keySpaces && keySpaces.length === 1 ? keySpaces[0] : null;
}
