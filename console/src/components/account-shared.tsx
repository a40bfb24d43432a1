/**
 * What the account sections share: loading a list from the API with its error, a message line that
 * screen readers hear (status, or an alert for errors), a Copy button, and how times are shown.
 */
import type { ComponentChildren, VNode } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';

/** The API's words for a failure (with the per-field errors when there are any). */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const fields = Object.entries(err.errors ?? {}).map(([field, messages]) => `${field}: ${messages.join(' ')}`);
    return [err.message, ...fields].join(' ');
  }
  return err instanceof Error ? err.message : String(err);
}

/** Data loaded from the API, again on `reload`; `error` holds the failure's words. */
export function useLoaded<T>(load: () => Promise<T>): { data: T | undefined; error: string | undefined; reload: () => Promise<void> } {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const reload = useCallback(async () => {
    try {
      setData(await load());
      setError(undefined);
    } catch (err) {
      setError(errorText(err));
    }
    // The loader is the section's own, fixed for its life: the first one is kept.
  }, []);
  useEffect(() => void reload(), [reload]);
  return { data, error, reload };
}

export type Message = { kind: 'status' | 'error'; text: string } | undefined;

/**
 * The section's last message: always rendered (an empty live region), so that a screen reader hears
 * the text put into it.
 */
export function MessageLine({ message }: { message: Message }) {
  return (
    <>
      <p role="status" class={message?.kind === 'status' ? 'muted' : 'visually-hidden'}>
        {message?.kind === 'status' ? message.text : ''}
      </p>
      {message?.kind === 'error' && (
        <p role="alert" class="error">
          {message.text}
        </p>
      )}
    </>
  );
}

/** Runs an action, reporting its outcome (or its failure) as the section's message. */
export function useAction(): [Message, (run: () => Promise<string>) => Promise<void>, boolean] {
  const [message, setMessage] = useState<Message>();
  const [busy, setBusy] = useState(false);
  const act = useCallback(async (run: () => Promise<string>) => {
    setBusy(true);
    try {
      setMessage({ kind: 'status', text: await run() });
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    } finally {
      setBusy(false);
    }
  }, []);
  return [message, act, busy];
}

/** A button that copies `text`, saying so (or saying to copy by hand when the browser refuses). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [said, setSaid] = useState('');
  return (
    <>
      <button
        type="button"
        class="secondary"
        aria-label={label}
        onClick={() =>
          navigator.clipboard.writeText(text).then(
            () => setSaid('Copied.'),
            () => setSaid('The browser did not allow copying: select the text and copy it.'),
          )
        }
      >
        Copy
      </button>
      <span role="status" class="muted">
        {said}
      </span>
    </>
  );
}

/** An ISO time as `YYYY-MM-DD HH:MM UTC`. */
export const when = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** An account section: its heading (naming the region) and its load error, as an alert. */
export function AccountSection(props: { id: string; title: string; error?: string; children?: ComponentChildren }) {
  return (
    <section aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      {props.error && (
        <p role="alert" class="error">
          {props.error}
        </p>
      )}
      {props.children}
    </section>
  );
}

/** A named table of items with a header row, or the `empty` words when there are none (nothing while loading). */
export function ItemsTable<T>(props: { items: T[] | undefined; label: string; columns: string[]; empty?: string; row: (item: T) => VNode }) {
  if (!props.items) return null;
  if (!props.items.length && props.empty) return <p class="muted">{props.empty}</p>;
  return (
    <table aria-label={props.label}>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{props.items.map(props.row)}</tbody>
    </table>
  );
}
