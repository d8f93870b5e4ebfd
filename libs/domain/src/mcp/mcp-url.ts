import { isIP } from 'node:net';
import { DomainError, Errors } from '../errors';

export const MCP_URL_MAX = 2048;

export const urlNotAllowed = (message: string) => new DomainError(400, 'url_not_allowed', message, { field: 'url' });

/**
 * An MCP server URL as REFERENCE §15.5 accepts it: https (http too when private networks are
 * allowed), at most 2048 characters, no userinfo or fragment. The host's addresses are checked
 * separately, on every connect.
 */
export function checkMcpUrl(raw: unknown, allowPrivate: boolean): URL {
  if (raw === undefined || raw === null || raw === '') throw Errors.missingField('url');
  if (typeof raw !== 'string') throw Errors.invalidField('url', 'url must be a string');
  if (raw.length > MCP_URL_MAX) throw Errors.invalidField('url', `url must be at most ${MCP_URL_MAX} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw Errors.invalidField('url', 'url is not a valid absolute URL');
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    throw urlNotAllowed(allowPrivate ? 'url must use https:// or http://' : 'url must use https:// (http:// only with STRATA_MCP_ALLOW_PRIVATE=true)');
  if (url.username !== '' || url.password !== '') throw urlNotAllowed('url must not carry credentials (userinfo)');
  if (raw.includes('#')) throw urlNotAllowed('url must not have a fragment');
  return url;
}

function v4(ip: string): number[] {
  return ip.split('.').map(Number);
}

function isPublicV4([a, b, c]: number[]): boolean {
  if (a === 0 || a === 10 || a === 127) return false; // this network, private, loopback
  if (a === 100 && b >= 64 && b <= 127) return false; // CGNAT
  if (a === 169 && b === 254) return false; // link-local, cloud metadata
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && b === 168) return false;
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return false; // IETF protocol assignments, TEST-NET-1
  if (a === 198 && (b === 18 || b === 19)) return false; // benchmarking
  if (a === 198 && b === 51 && c === 100) return false; // TEST-NET-2
  if (a === 203 && b === 0 && c === 113) return false; // TEST-NET-3
  if (a >= 224) return false; // multicast, reserved, broadcast
  return true;
}

/** Expands an IPv6 address to its eight 16-bit groups. */
function v6Groups(ip: string): number[] {
  let s = ip.split('%')[0].toLowerCase();
  const tail: number[] = [];
  const v4m = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4m) {
    const [a, b, c, d] = v4(v4m[1]);
    tail.push((a << 8) | b, (c << 8) | d);
    s = s.slice(0, -v4m[1].length) + (s.endsWith('::' + v4m[1]) ? '' : '0');
    if (s.endsWith(':0')) s = s.slice(0, -2);
  }
  const [head, rest] = s.includes('::') ? s.split('::') : [s, null];
  const h = head ? head.split(':').filter((x) => x !== '').map((x) => parseInt(x, 16)) : [];
  const r = rest ? rest.split(':').filter((x) => x !== '').map((x) => parseInt(x, 16)) : [];
  const fill = 8 - h.length - r.length - tail.length;
  return [...h, ...(rest !== null ? new Array(Math.max(0, fill)).fill(0) : []), ...r, ...tail];
}

/**
 * Whether an address may be connected to without STRATA_MCP_ALLOW_PRIVATE: not loopback,
 * private, link-local, CGNAT, multicast, unique-local, cloud metadata or unspecified.
 */
export function isPublicAddress(ip: string): boolean {
  const kind = isIP(ip.split('%')[0]);
  if (kind === 4) return isPublicV4(v4(ip));
  if (kind !== 6) return false;
  const g = v6Groups(ip);
  if (g.length !== 8) return false;
  if (g.every((x) => x === 0)) return false; // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return false; // ::1
  // IPv4-mapped (::ffff:a.b.c.d) and the NAT64 well-known prefix carry an IPv4 address
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return isPublicV4([g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255]);
  if (g[0] === 0x64 && g[1] === 0xff9b) return isPublicV4([g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255]);
  if ((g[0] & 0xfe00) === 0xfc00) return false; // unique-local fc00::/7
  if ((g[0] & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((g[0] & 0xff00) === 0xff00) return false; // multicast
  if (g[0] === 0xfd00 && g[1] === 0x0ec2) return false; // cloud metadata (fd00:ec2::254), also unique-local
  if (g[0] === 0x2001 && g[1] === 0x0db8) return false; // documentation
  return true;
}
