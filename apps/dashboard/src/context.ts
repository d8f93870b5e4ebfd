import type { ComponentType } from 'react';
import type { Api, Session } from './api.js';
import type { Account, Role } from './types.js';

/** What every page is given. */
export interface Ctx {
  api: Api;
  session: Session;
  account: Account | null;
  role: Role | null;
  navigate(path: string): void;
  /** re-reads the account (after a new organization, a switch) and redraws the shell */
  reloadAccount(): Promise<void>;
}

/**
 * One area of the dashboard: its routes and how it renders. Adding an area is adding one
 * module under `areas/` and one line in `areas/index.ts` (docs/dashboard.md).
 */
export interface Area {
  id: string;
  /** `/app`-relative patterns, `:name` for a parameter (e.g. `/nodes/:uid`) */
  routes: string[];
  /** its entry in the navigation; absent for pages reached by links only */
  nav?: { label: string; path: string; group: string };
  /** who sees it; every role when absent (the server enforces the same rule) */
  roles?: Role[];
  /** pages outside the signed-in shell (sign-in, sign-up) */
  public?: boolean;
  title(params: Record<string, string>): string;
  /** the page, a React component the shell mounts inside its `main` (a new one per navigation) */
  Page: ComponentType<PageProps>;
}

/** What the shell hands a page: the context, the route's parameters and the query string. */
export interface PageProps {
  ctx: Ctx;
  params: Record<string, string>;
  query: URLSearchParams;
}

export const ADMIN_ROLES: Role[] = ['owner', 'admin'];
export const isAdmin = (role: Role | null) => role === 'owner' || role === 'admin';
