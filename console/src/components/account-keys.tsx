/**
 * The Account page's "API keys" section: the user's keys (GET /v2/users/me/api-keys), a form that
 * makes one (POST, the secret shown once in a read-only field with a Copy button), and Revoke per key
 * (DELETE) behind an inline confirmation that takes the keyboard's focus and gives it back.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { KEYS_PATH, SCOPE_CHOICES, keyFormErrors, keyRows, newKeyBody, type ApiKeyView, type CreatedKey, type KeyFormErrors } from '../api-keys';

const when = (iso: string) => <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>;
const messageOf = (err: unknown) => (err instanceof ApiError ? err.message : 'The service could not be reached.');

function NewKey({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState('');
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, [created.key]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.select();
      setCopied('The browser refused the clipboard: the key is selected, copy it with the keyboard.');
    }
  };
  return (
    <div class="panel new-key">
      <label for="new-api-key">New API key</label>
      <p id="new-api-key-warning" class="warning">
        Copy the key “{created.name}” now: it will not be shown again. Only its id ({created.id}) stays visible here.
      </p>
      <div class="actions">
        <input id="new-api-key" type="text" readOnly value={created.key} aria-describedby="new-api-key-warning" ref={field} class="secret" spellcheck={false} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status" class="muted">
        {copied}
      </p>
    </div>
  );
}

function KeyRow(props: { k: ApiKeyView; onRevoked: (k: ApiKeyView) => void; onError: (message: string) => void }) {
  const { k } = props;
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const revokeButton = useRef<HTMLButtonElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
    else if (wasConfirming.current) revokeButton.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);
  const revoke = async () => {
    setBusy(true);
    try {
      await api('DELETE', `${KEYS_PATH}/${k.id}`);
      // Closed without handing the focus back to Revoke: the section takes it (onRevoked).
      wasConfirming.current = false;
      setConfirming(false);
      props.onRevoked(k);
    } catch (err) {
      props.onError(`The key “${k.name}” was not revoked: ${messageOf(err)}`);
      setConfirming(false);
    } finally {
      setBusy(false);
    }
  };
  const prompt = `revoke-${k.id}-prompt`;
  return (
    <tr>
      <td id={`key-name-${k.id}`}>{k.name}</td>
      <td>
        <code>{k.id}</code>
      </td>
      <td>{k.scopes.join(', ')}</td>
      <td>{when(k.created_at)}</td>
      <td>{k.sandbox ? 'Yes' : 'No'}</td>
      <td>{k.revoked_at ? <>Revoked {when(k.revoked_at)}</> : 'Active'}</td>
      <td>
        {k.revoked_at ? null : confirming ? (
          <div role="group" aria-labelledby={prompt} onKeyDown={(e) => e.key === 'Escape' && setConfirming(false)}>
            <p id={prompt}>Revoke “{k.name}”? Programs using it stop working at once.</p>
            <div class="actions">
              <button type="button" class="danger" ref={confirmButton} disabled={busy} onClick={() => void revoke()}>
                Yes, revoke
              </button>
              <button type="button" class="secondary" disabled={busy} onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          </div>
        ) : (
          <button type="button" class="danger" ref={revokeButton} aria-describedby={`key-name-${k.id}`} onClick={() => setConfirming(true)}>
            Revoke
          </button>
        )}
      </td>
    </tr>
  );
}

function CreateKeyForm({ onCreated }: { onCreated: (key: CreatedKey) => void }) {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Set<string>>(() => new Set());
  const [sandbox, setSandbox] = useState(false);
  const [errors, setErrors] = useState<KeyFormErrors>({ fields: {} });
  const [busy, setBusy] = useState(false);
  const toggle = (scope: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(scope);
    else next.delete(scope);
    setChosen(next);
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErrors({ fields: {} });
    try {
      const res = await api<{ data: CreatedKey }>('POST', KEYS_PATH, newKeyBody(name, chosen, sandbox));
      setName('');
      setChosen(new Set());
      setSandbox(false);
      onCreated(res.data);
    } catch (err) {
      setErrors(err instanceof ApiError ? keyFormErrors(err) : { fields: {}, general: messageOf(err) });
    } finally {
      setBusy(false);
    }
  };
  const { fields, general } = errors;
  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <h3>New key</h3>
      {general && (
        <p role="alert" class="error">
          {general}
        </p>
      )}
      <label for="key-name">Name</label>
      <input
        id="key-name"
        type="text"
        maxLength={100}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
        aria-invalid={fields.name ? true : undefined}
        aria-describedby={fields.name ? 'key-name-error' : undefined}
      />
      {fields.name && (
        <p id="key-name-error" role="alert" class="error">
          {fields.name}
        </p>
      )}
      <fieldset aria-describedby={fields.scopes ? 'key-scopes-error' : undefined}>
        <legend>Scopes</legend>
        {SCOPE_CHOICES.map(({ scope, words }) => (
          <label key={scope} class="choice" for={`key-scope-${scope}`}>
            <input id={`key-scope-${scope}`} type="checkbox" checked={chosen.has(scope)} onChange={(e) => toggle(scope, e.currentTarget.checked)} /> {words}{' '}
            <code>{scope}</code>
          </label>
        ))}
        {fields.scopes && (
          <p id="key-scopes-error" role="alert" class="error">
            {fields.scopes}
          </p>
        )}
      </fieldset>
      <label class="choice" for="key-sandbox">
        <input id="key-sandbox" type="checkbox" checked={sandbox} onChange={(e) => setSandbox(e.currentTarget.checked)} aria-describedby="key-sandbox-hint" /> Sandbox key
      </label>
      <p id="key-sandbox-hint" class="muted">
        A sandbox key works only at the <code>/sandbox/v2</code> base, on whitelisted files, without spending credits.
      </p>
      {fields.sandbox && (
        <p role="alert" class="error">
          {fields.sandbox}
        </p>
      )}
      <div class="actions">
        <button type="submit" disabled={busy}>
          Create key
        </button>
      </div>
    </form>
  );
}

export function AccountKeys() {
  const [keys, setKeys] = useState<ApiKeyView[] | undefined>();
  const [loadError, setLoadError] = useState('');
  const [created, setCreated] = useState<CreatedKey | undefined>();
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const heading = useRef<HTMLHeadingElement>(null);
  const load = async () => {
    try {
      const res = await api<{ data: ApiKeyView[] }>('GET', `${KEYS_PATH}?per_page=1000`);
      setKeys(res.data);
      setLoadError('');
    } catch (err) {
      setLoadError(`The keys could not be listed: ${messageOf(err)}`);
    }
  };
  useEffect(() => void load(), []);
  const onCreated = (key: CreatedKey) => {
    setCreated(key);
    setError('');
    setStatus(`The key “${key.name}” was created.`);
    void load();
  };
  const onRevoked = (key: ApiKeyView) => {
    setError('');
    setStatus(`The key “${key.name}” was revoked.`);
    if (created?.id === key.id) setCreated(undefined);
    heading.current?.focus();
    void load();
  };
  const rows = keys && keyRows(keys);
  return (
    <section aria-labelledby="api-keys-title">
      <h2 id="api-keys-title" tabIndex={-1} ref={heading}>
        API keys
      </h2>
      <p class="muted">
        Keys let programs, scripts and the SDKs use the API as you (<code>Authorization: Bearer …</code>). Give each program its own key with only the scopes it needs.
      </p>
      <p role="status" class="muted">
        {status}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {created && (
        <NewKey
          created={created}
          onDone={() => {
            setCreated(undefined);
            heading.current?.focus();
          }}
        />
      )}
      {loadError ? (
        <p role="alert" class="error">
          {loadError}
        </p>
      ) : !rows ? (
        <p class="muted">Loading the keys…</p>
      ) : (
        <div class="table-scroll">
          <table>
            <caption>Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">ID</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Sandbox</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.length === 0 ? (
                <tr>
                  <td colSpan={7} class="muted">
                    No keys yet.
                  </td>
                </tr>
              ) : (
                rows.map((k) => <KeyRow key={k.id} k={k} onRevoked={onRevoked} onError={setError} />)
              )}
            </tbody>
          </table>
        </div>
      )}
      <CreateKeyForm onCreated={onCreated} />
    </section>
  );
}
