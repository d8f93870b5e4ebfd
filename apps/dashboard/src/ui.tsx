import { Children, cloneElement, isValidElement, useCallback, useEffect, useId, useRef, useState, type ButtonHTMLAttributes, type ReactElement, type ReactNode } from 'react';
import { messageOf } from './format.js';

/**
 * The few building blocks every page is made of. React sets text from the server as text
 * (never parsed as HTML), so nothing the server returns can inject markup.
 */

/** The server's error message in a live region (empty and hidden when there is none). */
export function ErrorBox({ error }: { error: unknown }) {
  return (
    <div className="error" role="alert" hidden={!error}>
      {error ? messageOf(error) : ''}
    </div>
  );
}

type Control = ReactElement<{ id?: string; 'aria-describedby'?: string }>;

/** A labelled form control: the label points at the control, a hint describes it. */
export function Field({ label, hint, hidden, children }: { label: ReactNode; hint?: ReactNode; hidden?: boolean; children: Control }) {
  const auto = useId();
  const control = Children.only(children);
  const id = (isValidElement(control) && control.props.id) || auto;
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className="field" hidden={hidden}>
      <label htmlFor={id}>{label}</label>
      {cloneElement(control, { id, ...(hintId ? { 'aria-describedby': hintId } : {}) })}
      {hint ? (
        <small id={hintId} className="hint">
          {hint}
        </small>
      ) : null}
    </div>
  );
}

/** A labelled checkbox: the box, then what it means, on one line. */
export function CheckField({ label, checked, onChange, name, disabled }: { label: ReactNode; checked: boolean; onChange(on: boolean): void; name?: string; disabled?: boolean }) {
  return (
    <div className="field">
      <label className="check">
        <input type="checkbox" name={name} checked={checked} disabled={disabled} onChange={(e) => onChange(e.currentTarget.checked)} /> {label}
      </label>
    </div>
  );
}

/** A select over `[value, label]` pairs (or values that are their own label). */
export function Select({ options, ...rest }: { options: readonly (string | readonly [string, string])[] } & React.SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <select {...rest}>
      {options.map((o) => {
        const [v, label] = typeof o === 'string' ? [o, o] : o;
        return (
          <option key={v} value={v}>
            {label}
          </option>
        );
      })}
    </select>
  );
}

/** A table with a caption (screen readers announce it) and one row per item. */
export function Table<T>({ caption, columns, items, empty = 'Nothing yet.', rowKey }: { caption: string; columns: [string, (item: T) => ReactNode][]; items: T[]; empty?: string; rowKey?: (item: T, i: number) => string }) {
  if (items.length === 0) return <p className="empty">{empty}</p>;
  return (
    <div className="table-wrap">
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map(([name]) => (
              <th key={name} scope="col">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item, i) => (
            <tr key={rowKey ? rowKey(item, i) : i}>
              {columns.map(([name, cell]) => (
                <td key={name}>{cell(item)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Json({ value }: { value: unknown }) {
  return <pre className="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** Whether the component is still mounted (an answer arriving after the person left is dropped). */
export function useMounted(): () => boolean {
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  return useCallback(() => mounted.current, []);
}

/**
 * Runs long actions: `busy` while one runs (its button disabled and `aria-busy`, the label the
 * same width, so no layout shift), `error` the server's message when it failed.
 */
export function useAction(): { busy: boolean; error: unknown; setError(e: unknown): void; run<T>(action: () => Promise<T>): Promise<T | undefined> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mounted = useMounted();
  const run = useCallback(
    async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
      setError(null);
      setBusy(true);
      try {
        return await action();
      } catch (err) {
        if (mounted()) setError(err);
        return undefined;
      } finally {
        if (mounted()) setBusy(false);
      }
    },
    [mounted],
  );
  return { busy, error, setError, run };
}

/** A button that runs an async action, disabled and `aria-busy` meanwhile; a failure goes to `onError`. */
export function BusyButton({ action, onError, children, ...rest }: { action(): Promise<unknown>; onError(err: unknown): void } & Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onClick' | 'onError'>) {
  const [busy, setBusy] = useState(false);
  const mounted = useMounted();
  return (
    <button
      type="button"
      {...rest}
      disabled={busy || rest.disabled}
      aria-busy={busy || undefined}
      onClick={async () => {
        onError(null);
        setBusy(true);
        try {
          await action();
        } catch (err) {
          if (mounted()) onError(err);
        } finally {
          if (mounted()) setBusy(false);
        }
      }}
    >
      {children}
    </button>
  );
}

/** Loads what a page shows; `reload` reads it again, `error` is the server's refusal. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; reload(): Promise<void>; setData(d: T): void } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const mounted = useMounted();
  const latest = useRef(load);
  latest.current = load;
  const reload = useCallback(async () => {
    try {
      const d = await latest.current();
      if (mounted()) {
        setData(d);
        setError(null);
      }
    } catch (err) {
      if (mounted()) setError(err);
    }
  }, [mounted]);
  useEffect(() => {
    void reload();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return { data, error, reload, setData };
}
