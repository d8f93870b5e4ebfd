import { useState } from 'react';
import type { Tokens } from '../api.js';
import type { Area, PageProps } from '../context.js';
import { BASE } from '../router.js';
import { ErrorBox, Field, useAction } from '../ui.js';

/** Signing in and signing up: the only pages shown without a session. */
function AuthForm({ ctx, mode }: PageProps & { mode: 'sign-in' | 'sign-up' }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const [orgName, setOrgName] = useState('');
  const action = useAction();
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const tokens =
        mode === 'sign-in'
          ? await ctx.api.post<Tokens, '/v1/auth/login'>('/v1/auth/login', { email, password }, { anonymous: true })
          : await ctx.api.post<Tokens, '/v1/auth/signup'>(
              '/v1/auth/signup',
              { email, password, ...(name ? { name } : {}), ...(orgName ? { organization_name: orgName } : {}) },
              { anonymous: true },
            );
      ctx.session.clear();
      ctx.session.store(tokens);
      await ctx.reloadAccount();
    });
  };
  return (
    <form className="card auth" noValidate onSubmit={submit}>
      <h1>{mode === 'sign-in' ? 'Sign in to Strata' : 'Create your Strata account'}</h1>
      <Field label="E-mail">
        <input type="email" name="email" autoComplete="email" required autoFocus value={email} onChange={(e) => setEmail(e.currentTarget.value)} />
      </Field>
      <Field label="Password" hint={mode === 'sign-up' ? 'At least 8 characters.' : undefined}>
        <input
          type="password"
          name="password"
          autoComplete={mode === 'sign-in' ? 'current-password' : 'new-password'}
          required
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
        />
      </Field>
      {mode === 'sign-up' ? (
        <>
          <Field label="Your name (optional)">
            <input type="text" name="name" autoComplete="name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="Organization name (optional)">
            <input type="text" name="organization_name" autoComplete="organization" value={orgName} onChange={(e) => setOrgName(e.currentTarget.value)} />
          </Field>
        </>
      ) : null}
      <ErrorBox error={action.error} />
      <button type="submit" disabled={action.busy} aria-busy={action.busy || undefined}>
        {mode === 'sign-in' ? 'Sign in' : 'Create account'}
      </button>
      <p>
        {mode === 'sign-in' ? (
          <>
            No account yet? <a href={`${BASE}/sign-up`}>Create one</a>
          </>
        ) : (
          <>
            Already have an account? <a href={`${BASE}/sign-in`}>Sign in</a>
          </>
        )}
      </p>
    </form>
  );
}

export const signIn: Area = {
  id: 'sign-in',
  routes: ['/sign-in'],
  public: true,
  title: () => 'Sign in',
  Page: (props) => <AuthForm {...props} mode="sign-in" />,
};

export const signUp: Area = {
  id: 'sign-up',
  routes: ['/sign-up'],
  public: true,
  title: () => 'Sign up',
  Page: (props) => <AuthForm {...props} mode="sign-up" />,
};
