/**
 * Webhooks: the user's endpoints (GET /v2/users/me/webhooks), a new one for chosen events
 * (POST /v2/webhooks), Delete (DELETE /v2/webhooks/{id}), and the signing secret of jobs'
 * `webhook_url` deliveries (GET /v2/users/me/webhooks/signing-secret), hidden until Show.
 */
import { useState } from 'preact/hooks';
import { api, apiData } from '../api';
import { WEBHOOK_EVENT_NAMES, WEBHOOK_EVENT_WORDS, type WebhookEventName } from '../webhook-events';
import { AccountSection, CopyButton, ItemsTable, MessageLine, useAction, useLoaded, when } from './account-shared';

interface Webhook {
  id: string;
  url: string;
  events: string[];
  disabled?: boolean;
  failing?: boolean;
  signing_secret: string;
  created_at: string;
}

function SigningSecret() {
  const [secret, setSecret] = useState<string>();
  const [message, act, busy] = useAction();
  const show = () =>
    act(async () => {
      setSecret((await apiData<{ signing_secret: string }>('GET', '/v2/users/me/webhooks/signing-secret')).signing_secret);
      return 'The signing secret is shown.';
    });
  return (
    <div>
      <h3>Signing secret</h3>
      <p class="muted">It signs the deliveries to a job's own webhook_url (each endpoint below has its own secret).</p>
      {secret === undefined ? (
        <button type="button" class="secondary" onClick={() => void show()} disabled={busy}>
          Show
        </button>
      ) : (
        <div class="actions">
          <code class="secret" data-secret="account">
            {secret}
          </code>
          <CopyButton text={secret} label="Copy the signing secret" />
          <button type="button" class="secondary" onClick={() => setSecret(undefined)}>
            Hide
          </button>
        </div>
      )}
      <MessageLine message={message} />
    </div>
  );
}

export function AccountWebhooks() {
  const { data: hooks, error, reload } = useLoaded(() => apiData<Webhook[]>('GET', '/v2/users/me/webhooks?per_page=100'));
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Set<WebhookEventName>>(new Set(['job.finished', 'job.failed']));
  const [message, act, busy] = useAction();

  const toggle = (name: WebhookEventName, on: boolean) => {
    const next = new Set(events);
    if (on) next.add(name);
    else next.delete(name);
    setEvents(next);
  };
  const create = (e: Event) => {
    e.preventDefault();
    void act(async () => {
      const made = await apiData<Webhook>('POST', '/v2/webhooks', { url, events: WEBHOOK_EVENT_NAMES.filter((n) => events.has(n)) });
      setUrl('');
      await reload();
      return `Webhook for ${made.url} created.`;
    });
  };
  const remove = (hook: Webhook) =>
    act(async () => {
      await api('DELETE', `/v2/webhooks/${hook.id}`);
      await reload();
      return `Webhook for ${hook.url} deleted.`;
    });

  return (
    <AccountSection id="webhooks" title="Webhooks" error={error}>
      <ItemsTable
        items={hooks}
        label="Webhooks"
        columns={['URL', 'Events', 'Created', 'Actions']}
        empty="No webhook endpoints yet."
        row={(hook) => (
          <tr key={hook.id}>
            <td>
              <code>{hook.url}</code>
              {hook.disabled && <div class="status-error">Disabled (the endpoint answered 410 Gone)</div>}
              {!hook.disabled && hook.failing && <div class="status-error">Deliveries are failing</div>}
              <details class="hook-secret">
                <summary>Its signing secret</summary>
                <code class="secret">{hook.signing_secret}</code> <CopyButton text={hook.signing_secret} label={`Copy the signing secret of ${hook.url}`} />
              </details>
            </td>
            <td>{hook.events.join(', ')}</td>
            <td>{when(hook.created_at)}</td>
            <td>
              <button type="button" class="danger" aria-label={`Delete webhook ${hook.url}`} disabled={busy} onClick={() => void remove(hook)}>
                Delete
              </button>
            </td>
          </tr>
        )}
      />
      <form onSubmit={create}>
        <h3>New webhook</h3>
        <label for="webhook-url">Webhook URL</label>
        <input id="webhook-url" type="url" required placeholder="https://example.com/hooks/convert" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <fieldset class="checks">
          <legend>Events</legend>
          {WEBHOOK_EVENT_NAMES.map((name) => (
            <label key={name} class="check">
              <input type="checkbox" checked={events.has(name)} onChange={(e) => toggle(name, e.currentTarget.checked)} /> <code>{name}</code>{' '}
              <span class="muted">{WEBHOOK_EVENT_WORDS[name]}</span>
            </label>
          ))}
        </fieldset>
        <div class="actions">
          <button type="submit" disabled={busy || events.size === 0}>
            Create webhook
          </button>
        </div>
      </form>
      <MessageLine message={message} />
      <SigningSecret />
    </AccountSection>
  );
}
