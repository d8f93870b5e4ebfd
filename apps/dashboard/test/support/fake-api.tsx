import { cleanup, render as mount } from '@testing-library/react';
import { vi } from 'vitest';
import { ApiError, type Api, type Method } from '../../src/api';
import type { Area, Ctx } from '../../src/context';
import type { Account, Role } from '../../src/types';

/**
 * A stand-in for the service in component tests: answers registered per method and path
 * template (the same templates the pages pass to `Api`), every call recorded with its path
 * parameters, query and body. A call nobody registered fails the test with its route, so a
 * page calling a route it should not is caught.
 */
export interface Call {
  method: Method;
  path: string;
  params: Record<string, string | number>;
  query: Record<string, unknown>;
  body: unknown;
}
type Reply = ((call: Call) => unknown) | Record<string, unknown> | unknown[] | ApiError | string | number | boolean | null;

export class FakeApi {
  readonly calls: Call[] = [];
  /** calls made and not answered yet (a page is loaded when none is left) */
  inFlight = 0;
  private readonly replies = new Map<string, Reply>();
  readonly session = {
    access: 'access-token' as string | null,
    refreshToken: 'refresh-token' as string | null,
    orgId: null as string | null,
    signedIn: true,
    refresh: vi.fn(async () => true),
  };

  /** `reply` is the answer, a function of the call, or an ApiError to throw (the server's refusal) */
  on(method: Method, path: string, reply: Reply): this {
    this.replies.set(`${method} ${path}`, reply);
    return this;
  }

  get<R>(path: string, opts: { path?: Record<string, string | number>; query?: Record<string, unknown> } = {}): Promise<R> {
    return this.call<R>('get', path, opts);
  }
  post<R>(path: string, body?: unknown, opts: { path?: Record<string, string | number>; query?: Record<string, unknown> } = {}): Promise<R> {
    return this.call<R>('post', path, { ...opts, body });
  }
  patch<R>(path: string, body: unknown, opts: { path?: Record<string, string | number>; query?: Record<string, unknown> } = {}): Promise<R> {
    return this.call<R>('patch', path, { ...opts, body });
  }
  delete<R>(path: string, opts: { path?: Record<string, string | number>; query?: Record<string, unknown> } = {}): Promise<R> {
    return this.call<R>('delete', path, opts);
  }

  async call<R>(method: Method, path: string, opts: { path?: Record<string, string | number>; query?: Record<string, unknown>; body?: unknown } = {}): Promise<R> {
    const call: Call = { method, path, params: opts.path ?? {}, query: opts.query ?? {}, body: opts.body };
    this.calls.push(call);
    this.inFlight++;
    try {
      const key = `${method} ${path}`;
      if (!this.replies.has(key)) throw new Error(`the page called ${key}, which the test did not expect`);
      const reply = this.replies.get(key);
      const answer = await (typeof reply === 'function' ? (reply as (c: Call) => unknown)(call) : reply);
      if (answer instanceof ApiError) throw answer;
      return structuredClone(answer) as R;
    } finally {
      this.inFlight--;
    }
  }

  /** the calls to one route (method and template) */
  to(method: Method, path: string): Call[] {
    return this.calls.filter((c) => c.method === method && c.path === path);
  }
}

/** A refusal as the service words it: status, code and message. */
export const refusal = (status: number, code: string, error: string) => new ApiError(status, code, error, { error, code });

export const page = <T,>(items: T[]) => ({ items, has_more: false, limit: 50, offset: 0 });

export function account(role: Role): Account {
  return {
    user: { id: 'user-1', email: 'ada@example.com', name: 'Ada', created_at: '2030-01-01T00:00:00Z' },
    memberships: [{ org_id: 'org-1', org_name: 'Heat Shields', role, plan: 'pro', joined_at: '2030-01-01T00:00:00Z' }],
    current_org_id: 'org-1',
    role,
  };
}

export function ctxFor(api: FakeApi, role: Role): Ctx & { navigate: ReturnType<typeof vi.fn<(path: string) => void>> } {
  return {
    api: api as unknown as Api,
    session: api.session as unknown as Ctx['session'],
    account: account(role),
    role,
    navigate: vi.fn<(path: string) => void>(),
    reloadAccount: vi.fn(async () => undefined),
  };
}

/**
 * Renders an area's page into a fresh `main` in the document, as the shell does, and waits
 * until it has loaded: no call of the page's is left unanswered and what they brought is drawn.
 */
export async function render(area: Area, ctx: Ctx, params: Record<string, string> = {}, query = ''): Promise<HTMLElement> {
  const main = document.createElement('main');
  document.body.replaceChildren(main);
  const Page = area.Page;
  mount(<Page ctx={ctx} params={params} query={new URLSearchParams(query)} />, { container: main });
  await settled(ctx.api as unknown as FakeApi, main);
  return main;
}

/** The person leaves the page: the shell unmounts it (its streams and sockets end). */
export function leave(): void {
  cleanup();
}

/**
 * Waits until the page is quiet: drawn, no call in flight and none made for a few looks in a
 * row (React runs the effects a loaded page starts, a socket or a second load, a moment after
 * it draws what the first calls brought).
 */
export async function settled(api: FakeApi, main: HTMLElement): Promise<void> {
  let seen = -1;
  let quietLooks = 0;
  await vi.waitFor(
    () => {
      const quiet = api.inFlight === 0 && main.childElementCount > 0 && api.calls.length === seen;
      seen = api.calls.length;
      quietLooks = quiet ? quietLooks + 1 : 0;
      if (quietLooks < 5) throw new Error(`the page is still loading (${api.inFlight} calls in flight)`);
    },
    { timeout: 3000, interval: 20 },
  );
}

/** what a person reads: the text, whitespace collapsed */
export const text = (el: Element | null | undefined) => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();

/** A button by what it says (its text or its aria-label); fails when there is none. */
export function button(root: ParentNode, name: string | RegExp): HTMLButtonElement {
  const found = buttons(root, name);
  if (!found.length) throw new Error(`no button “${String(name)}” in: ${text(root as Element)}`);
  return found[0];
}
export function buttons(root: ParentNode, name: string | RegExp): HTMLButtonElement[] {
  const matches = (s: string) => (typeof name === 'string' ? s === name : name.test(s));
  return [...root.querySelectorAll('button')].filter((b) => !b.hidden && (matches(text(b)) || matches(b.getAttribute('aria-label') ?? '')));
}

/** The form control a label names. */
export function labelled<T extends HTMLElement = HTMLInputElement>(root: ParentNode, label: string | RegExp): T {
  const matches = (s: string) => (typeof label === 'string' ? s === label : label.test(s));
  for (const l of root.querySelectorAll('label')) {
    if (!matches(text(l))) continue;
    const id = l.getAttribute('for');
    const control = id ? (root as Element).querySelector(`#${CSS.escape(id)}`) : l.querySelector('input, select, textarea');
    if (control) return control as T;
  }
  for (const c of root.querySelectorAll('input, select, textarea')) if (matches(c.getAttribute('aria-label') ?? '')) return c as T;
  throw new Error(`no control labelled “${String(label)}”`);
}

/**
 * Types into a control as a person would (the value, then the events pages listen to). The
 * value goes through the element's own setter, as typing does, so React sees it change.
 */
export function fill(control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, value: string): void {
  Object.getOwnPropertyDescriptor(Object.getPrototypeOf(control), 'value')!.set!.call(control, value);
  control.dispatchEvent(new Event('input', { bubbles: true }));
  control.dispatchEvent(new Event('change', { bubbles: true }));
}

/** Ticks or unticks a box as a click does (React hears a checkbox through its click). */
export function check(box: HTMLInputElement, on = true): void {
  if (box.checked !== on) box.click();
}

/** the visible error message(s) of the page */
export const alerts = (root: ParentNode) => [...root.querySelectorAll('[role=alert]')].filter((e) => !(e as HTMLElement).hidden).map((e) => text(e));
