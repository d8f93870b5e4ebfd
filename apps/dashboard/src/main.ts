import { Api, Session } from './api.js';
import { AREAS } from './areas/index.js';
import type { Area, Ctx } from './context.js';
import { errorBox, h, replace } from './dom.js';
import { BASE, appPath, findRoute } from './router.js';
import type { Account } from './types.js';

/**
 * The shell: a header with the organization switcher, the navigation of the areas the
 * person's role may use, and the page. Navigation stays in the page (history API); every
 * /app path is served the same document, so a deep link or a reload lands on the same page.
 */
const session = new Session();
const api = new Api(session);
const root = document.getElementById('app')!;
let renderSeq = 0;

const ctx: Ctx = {
  api,
  session,
  account: null,
  role: null,
  navigate(path: string) {
    history.pushState(null, '', path);
    void render(true);
  },
  async reloadAccount() {
    await loadAccount();
    await render(true);
  },
};

session.onSignedOut = () => {
  ctx.account = null;
  ctx.role = null;
  ctx.navigate(`${BASE}/sign-in`);
};

async function loadAccount(): Promise<void> {
  if (!session.signedIn) {
    ctx.account = null;
    ctx.role = null;
    return;
  }
  const account = await api.get<Account>('/v1/account');
  // a remembered organization the person has left is forgotten
  if (session.orgId && !account.memberships.some((m) => m.org_id === session.orgId)) session.orgId = null;
  ctx.account = account;
  ctx.role = account.memberships.find((m) => m.org_id === (session.orgId ?? account.current_org_id))?.role ?? account.role;
}

function visible(area: Area): boolean {
  return !area.roles || (ctx.role !== null && area.roles.includes(ctx.role));
}

function header(): HTMLElement {
  const account = ctx.account!;
  const current = session.orgId ?? account.current_org_id ?? '';
  const switcher = h('select', { id: 'org-switch', 'aria-label': 'Organization' });
  for (const m of account.memberships) switcher.appendChild(h('option', { value: m.org_id, selected: m.org_id === current }, `${m.org_name} (${m.role})`));
  switcher.addEventListener('change', () => {
    session.orgId = switcher.value;
    void ctx.reloadAccount();
  });
  const signOut = h('button', { type: 'button', class: 'link-button', id: 'sign-out' }, 'Sign out');
  signOut.addEventListener('click', () => {
    session.clear();
    ctx.account = null;
    ctx.navigate(`${BASE}/sign-in`);
  });
  return h(
    'header',
    { class: 'top' },
    h('a', { href: `${BASE}/`, class: 'brand' }, 'Strata'),
    h('div', { class: 'org' }, switcher),
    h('div', { class: 'who' }, h('span', { class: 'email' }, account.user.email), signOut),
  );
}

function nav(path: string): HTMLElement {
  const groups = new Map<string, HTMLElement[]>();
  // the most specific entry is the current one (/agents/schedules is not also "Agents")
  const under = (p: string) => path === p || (p !== '/' && path.startsWith(p + '/'));
  const best = AREAS.filter((a) => a.nav && visible(a) && under(a.nav.path)).map((a) => a.nav!.path).sort((a, b) => b.length - a.length)[0];
  for (const area of AREAS) {
    if (!area.nav || !visible(area)) continue;
    const current = area.nav.path === best;
    const a = h('a', { href: BASE + (area.nav.path === '/' ? '/' : area.nav.path), 'aria-current': current ? 'page' : null }, area.nav.label);
    (groups.get(area.nav.group) ?? groups.set(area.nav.group, []).get(area.nav.group)!).push(h('li', {}, a));
  }
  return h(
    'nav',
    { class: 'side', 'aria-label': 'Dashboard' },
    [...groups].map(([group, items]) => h('div', { class: 'nav-group' }, h('h2', {}, group), h('ul', {}, items))),
  );
}

/** `focus`: after an in-app navigation, focus moves to the new page (as a page load would reset it). */
async function render(focus = false): Promise<void> {
  const seq = ++renderSeq;
  const path = appPath(location.pathname);
  const query = new URLSearchParams(location.search);
  if (session.signedIn && !ctx.account) {
    try {
      await loadAccount();
    } catch (err) {
      const box = errorBox();
      box.show(err);
      replace(root, h('main', { class: 'solo' }, box));
      if (!session.signedIn) return ctx.navigate(`${BASE}/sign-in`);
      return;
    }
  }
  const found = findRoute(AREAS, path);
  if (!found?.area.public && !ctx.account) {
    history.replaceState(null, '', `${BASE}/sign-in`);
    return render(focus);
  }
  if (found?.area.public && ctx.account) {
    history.replaceState(null, '', `${BASE}/`);
    return render(focus);
  }
  const main = h('main', { id: 'main', tabindex: '-1' });
  if (!found || !visible(found.area)) {
    document.title = 'Not found · Strata';
    replace(main, h('h1', {}, 'Not found'), h('p', {}, 'There is no such page, or your role in this organization cannot open it.'));
  } else document.title = `${found.area.title(found.params)} · Strata`;
  if (found?.area.public) replace(root, h('div', { class: 'solo' }, main));
  else replace(root, h('a', { href: '#main', class: 'skip' }, 'Skip to content'), header(), h('div', { class: 'layout' }, nav(path), main));
  if (focus) main.focus({ preventScroll: true });
  if (found && visible(found.area) && seq === renderSeq) {
    try {
      await found.area.render(ctx, found.params, main, query);
    } catch (err) {
      const box = errorBox();
      box.show(err);
      main.appendChild(box);
    }
  }
}

// in-app links navigate without reloading
document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element).closest('a');
  if (!a || a.target || a.hasAttribute('download') || (a.getAttribute('href') ?? '').startsWith('#')) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !(url.pathname === BASE || url.pathname.startsWith(BASE + '/'))) return;
  e.preventDefault();
  ctx.navigate(url.pathname + url.search);
});
window.addEventListener('popstate', () => void render(true));
void render();
