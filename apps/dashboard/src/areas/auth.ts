import type { Tokens } from '../api.js';
import type { Area, Ctx } from '../context.js';
import { busy, errorBox, field, h, input, replace } from '../dom.js';
import { BASE } from '../router.js';

/** Signing in and signing up: the only pages shown without a session. */
function form(ctx: Ctx, main: HTMLElement, mode: 'sign-in' | 'sign-up'): void {
  const email = input({ type: 'email', name: 'email', autocomplete: 'email', required: true });
  const password = input({ type: 'password', name: 'password', autocomplete: mode === 'sign-in' ? 'current-password' : 'new-password', required: true });
  const name = input({ name: 'name', autocomplete: 'name' });
  const orgName = input({ name: 'organization_name', autocomplete: 'organization' });
  const errors = errorBox();
  const submit = h('button', { type: 'submit' }, mode === 'sign-in' ? 'Sign in' : 'Create account');
  const f = h(
    'form',
    { class: 'card auth', novalidate: true },
    h('h1', {}, mode === 'sign-in' ? 'Sign in to Strata' : 'Create your Strata account'),
    field('E-mail', email),
    field('Password', password, mode === 'sign-up' ? 'At least 8 characters.' : undefined),
    mode === 'sign-up' ? [field('Your name (optional)', name), field('Organization name (optional)', orgName)] : null,
    errors,
    submit,
    h('p', {}, mode === 'sign-in' ? ['No account yet? ', h('a', { href: `${BASE}/sign-up` }, 'Create one')] : ['Already have an account? ', h('a', { href: `${BASE}/sign-in` }, 'Sign in')]),
  );
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    void busy(submit, errors, async () => {
      const tokens =
        mode === 'sign-in'
          ? await ctx.api.post<Tokens, '/v1/auth/login'>('/v1/auth/login', { email: email.value, password: password.value }, { anonymous: true })
          : await ctx.api.post<Tokens, '/v1/auth/signup'>(
              '/v1/auth/signup',
              { email: email.value, password: password.value, ...(name.value ? { name: name.value } : {}), ...(orgName.value ? { organization_name: orgName.value } : {}) },
              { anonymous: true },
            );
      ctx.session.clear();
      ctx.session.store(tokens);
      await ctx.reloadAccount();
    });
  });
  replace(main, f);
  email.focus();
}

export const signIn: Area = {
  id: 'sign-in',
  routes: ['/sign-in'],
  public: true,
  title: () => 'Sign in',
  render: (ctx, _p, main) => form(ctx, main, 'sign-in'),
};

export const signUp: Area = {
  id: 'sign-up',
  routes: ['/sign-up'],
  public: true,
  title: () => 'Sign up',
  render: (ctx, _p, main) => form(ctx, main, 'sign-up'),
};
