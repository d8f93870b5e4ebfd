import { lookup } from 'node:dns/promises';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * Resolves host names for outbound connections whose targets are checked (MCP servers, webhook
 * recipients). The system resolver in production; tests inject their own so that a name's
 * answer does not depend on the machine they run on.
 */
export interface HostResolver {
  /** every address of `host`; a failure (unknown name, no network) throws */
  lookup(host: string): Promise<ResolvedAddress[]>;
}

/** Injection token of the HostResolver, for services that check the addresses they send to. */
export const HOST_RESOLVER = Symbol('HOST_RESOLVER');

/** The operating system's resolver (`getaddrinfo`, /etc/hosts included), addresses in its order. */
export const systemHostResolver: HostResolver = {
  lookup: (host) => lookup(host, { all: true, verbatim: true }),
};
