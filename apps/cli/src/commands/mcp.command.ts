import { Command } from 'commander';
import { CliError } from '../support/cli-error';

/** `strata mcp`: Strata's MCP server over stdio, for clients that start a local process. */
export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description("serve Strata's MCP tools and resources over stdio (relays to <STRATA_URL>/mcp with STRATA_API_KEY)")
    .option('--url <url>', 'base URL of the Strata service (default: $STRATA_URL or http://127.0.0.1:3000)')
    .addHelpText('after', '\nExample (an MCP client configuration):\n  {"command": "strata", "args": ["mcp"], "env": {"STRATA_API_KEY": "strata_…"}}')
    .action(async (opts: { url?: string }) => {
      const apiKey = process.env.STRATA_API_KEY;
      // stdout carries only MCP messages: the complaint goes to stderr, exit code 2
      if (!apiKey) throw new CliError('STRATA_API_KEY is not set: create an API key (POST /v1/api-keys) and pass it in the environment', 2);
      const base = (opts.url ?? process.env.STRATA_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
      let endpoint: string;
      try {
        endpoint = new URL(base.endsWith('/mcp') ? base : `${base}/mcp`).toString();
      } catch {
        throw new CliError(`--url must be a URL (got '${base}')`, 2);
      }
      const { relayStdio } = await import('@strata/mcp/server/stdio-relay');
      await relayStdio({ endpoint, apiKey, input: process.stdin, output: process.stdout });
    });
}
