/**
 * A few helpers over the DOM: the dashboard builds its pages with them instead of a
 * framework. Text is always set as text (never parsed as HTML), so what the server returns
 * cannot inject markup.
 */
import { messageOf } from './format.js';

export { messageOf, when } from './format.js';

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;
export type Child = Node | string | number | null | undefined | false | Child[];

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v as EventListener);
    else if (k === 'class') el.className = String(v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

let ids = 0;
/** A unique element id (labels point at their inputs). */
export function uid(prefix = 'f'): string {
  return `${prefix}-${++ids}`;
}

/** A labelled form control; `control` gets the id the label points at. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLElement {
  const id = control.id || (control.id = uid());
  const hintEl = hint ? h('small', { id: `${id}-hint`, class: 'hint' }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

/** A labelled checkbox: the box, then what it means, on one line. */
export function checkField(label: string, box: HTMLInputElement): HTMLElement {
  return h('div', { class: 'field' }, h('label', { class: 'check' }, box, ` ${label}`));
}

export function input(attrs: Attrs = {}): HTMLInputElement {
  return h('input', { type: 'text', ...attrs });
}

export function select(name: string, options: readonly (string | [string, string])[], value?: string): HTMLSelectElement {
  const s = h('select', { name });
  for (const o of options) {
    const [v, label] = Array.isArray(o) ? o : [o, o];
    s.appendChild(h('option', { value: v, selected: v === value }, label));
  }
  return s;
}

/** A live region that shows the server's error message (or clears). */
export function errorBox(): HTMLElement & { show(err: unknown): void; clear(): void } {
  const el = h('div', { class: 'error', role: 'alert', hidden: true }) as unknown as HTMLElement & { show(err: unknown): void; clear(): void };
  el.show = (err: unknown) => {
    el.hidden = false;
    el.textContent = messageOf(err);
  };
  el.clear = () => {
    el.hidden = true;
    el.textContent = '';
  };
  return el;
}

/**
 * Runs `action` with `button` disabled and marked busy, showing a failure in `errors`. The
 * label stays the same width (no layout shift); `aria-busy` tells assistive technology.
 */
export async function busy<T>(button: HTMLButtonElement | null, errors: { show(err: unknown): void; clear(): void } | null, action: () => Promise<T>): Promise<T | undefined> {
  errors?.clear();
  if (button) {
    button.disabled = true;
    button.setAttribute('aria-busy', 'true');
  }
  try {
    return await action();
  } catch (err) {
    if (errors) errors.show(err);
    else throw err;
    return undefined;
  } finally {
    if (button) {
      button.disabled = false;
      button.removeAttribute('aria-busy');
    }
  }
}

/** A table with a caption (screen readers announce it) and one row per item. */
export function table<T>(caption: string, columns: [string, (item: T) => Child][], items: T[], empty = 'Nothing yet.'): HTMLElement {
  if (items.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      {},
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, columns.map(([name]) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, items.map((item) => h('tr', {}, columns.map(([, cell]) => h('td', {}, cell(item)))))),
    ),
  );
}

/** A link inside the app (the router intercepts it, so no full reload). */
export function link(href: string, ...children: Child[]): HTMLAnchorElement {
  return h('a', { href }, ...children);
}

export function json(value: unknown): HTMLElement {
  return h('pre', { class: 'json' }, JSON.stringify(value, null, 2));
}
