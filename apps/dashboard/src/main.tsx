import { StrictMode, useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { Api, Session } from './api.js';
import { AREAS } from './areas/index.js';
import type { Area, Ctx } from './context.js';
import { BASE, appPath, findRoute } from './router.js';
import type { Account } from './types.js';
import { ErrorBox } from './ui.js';

/**
 * The shell: a header with the organization switcher, the navigation of the areas the
 * person's role may use, and the page. Navigation stays in the page (history API); every
 * /app path is served the same document, so a deep link or a reload lands on the same page.
 */
const session = new Session();
const api = new Api(session);

type View =
  | { kind: 'loading' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'page'; seq: number; path: string; found: { area: Area; params: Record<string, string> } | null; query: URLSearchParams; focus: boolean };

let show: (v: View) => void = () => undefined;
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

/** Decides which page the address shows (signing in first when needed), then draws it. */
async function render(focus = false): Promise<void> {
  const seq = ++renderSeq;
  if (session.signedIn && !ctx.account) {
    try {
      await loadAccount();
    } catch (err) {
      if (!session.signedIn) return ctx.navigate(`${BASE}/sign-in`);
      show({ kind: 'failed', error: err });
      return;
    }
    if (seq !== renderSeq) return;
  }
  const path = appPath(location.pathname);
  const found = findRoute(AREAS, path);
  if (!found?.area.public && !ctx.account) {
    history.replaceState(null, '', `${BASE}/sign-in`);
    return render(focus);
  }
  if (found?.area.public && ctx.account) {
    history.replaceState(null, '', `${BASE}/`);
    return render(focus);
  }
  const shown = found && visible(found.area) ? found : null;
  document.title = shown ? `${shown.area.title(shown.params)} · Strata` : 'Not found · Strata';
  show({ kind: 'page', seq, path, found: shown, query: new URLSearchParams(location.search), focus });
}

function Header() {
  const account = ctx.account!;
  const current = session.orgId ?? account.current_org_id ?? '';
  return (
    <header className="top">
      <a href={`${BASE}/`} className="brand">
        Strata
      </a>
      <div className="org">
        <select
          id="org-switch"
          aria-label="Organization"
          defaultValue={current}
          onChange={(e) => {
            session.orgId = e.currentTarget.value;
            // nothing of the previous organization stays on screen while the new one loads
            show({ kind: 'loading' });
            void ctx.reloadAccount();
          }}
        >
          {account.memberships.map((m) => (
            <option key={m.org_id} value={m.org_id}>{`${m.org_name} (${m.role})`}</option>
          ))}
        </select>
      </div>
      <div className="who">
        <span className="email">{account.user.email}</span>
        <button
          type="button"
          className="link-button"
          id="sign-out"
          onClick={() => {
            session.clear();
            ctx.account = null;
            ctx.navigate(`${BASE}/sign-in`);
          }}
        >
          Sign out
        </button>
      </div>
    </header>
  );
}

function Nav({ path }: { path: string }) {
  const groups = new Map<string, Area[]>();
  // the most specific entry is the current one (/agents/schedules is not also "Agents")
  const under = (p: string) => path === p || (p !== '/' && path.startsWith(p + '/'));
  const best = AREAS.filter((a) => a.nav && visible(a) && under(a.nav.path)).map((a) => a.nav!.path).sort((a, b) => b.length - a.length)[0];
  for (const area of AREAS) {
    if (!area.nav || !visible(area)) continue;
    (groups.get(area.nav.group) ?? groups.set(area.nav.group, []).get(area.nav.group)!).push(area);
  }
  return (
    <nav className="side" aria-label="Dashboard">
      {[...groups].map(([group, areas]) => (
        <div className="nav-group" key={group}>
          <h2>{group}</h2>
          <ul>
            {areas.map((area) => (
              <li key={area.id}>
                <a href={BASE + (area.nav!.path === '/' ? '/' : area.nav!.path)} aria-current={area.nav!.path === best ? 'page' : undefined}>
                  {area.nav!.label}
                </a>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}

/** The page's `main`, focused after an in-app navigation (as a page load would reset focus). */
function Main({ view }: { view: Extract<View, { kind: 'page' }> }) {
  const ref = useRef<HTMLElement>(null);
  const { found } = view;
  useEffect(() => {
    if (view.focus) ref.current!.focus({ preventScroll: true });
  }, [view]);
  const Page = found?.area.Page;
  return (
    <main id="main" tabIndex={-1} ref={ref}>
      {Page ? (
        <Page ctx={ctx} params={found.params} query={view.query} />
      ) : (
        <>
          <h1>Not found</h1>
          <p>There is no such page, or your role in this organization cannot open it.</p>
        </>
      )}
    </main>
  );
}

function App() {
  const [view, setView] = useState<View>({ kind: 'loading' });
  useEffect(() => {
    show = setView;
    void render();
    const onPop = () => void render(true);
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  if (view.kind === 'loading')
    return (
      <main className="solo">
        <p className="muted">Loading Strata…</p>
      </main>
    );
  if (view.kind === 'failed')
    return (
      <main className="solo">
        <ErrorBox error={view.error} />
      </main>
    );
  // a new `main` for every navigation: a page's state and streams end with it
  const main = <Main key={view.seq} view={view} />;
  if (view.found?.area.public) return <div className="solo">{main}</div>;
  return (
    <>
      <a href="#main" className="skip">
        Skip to content
      </a>
      <Header key={`${session.orgId}-${ctx.account?.user.id}`} />
      <div className="layout">
        <Nav path={view.path} />
        {main}
      </div>
    </>
  );
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

createRoot(document.getElementById('app')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
