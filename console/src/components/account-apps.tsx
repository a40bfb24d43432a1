/**
 * Authorized applications: the OAuth clients the user allowed (GET /v2/users/me/authorizations), each
 * with its scopes and Revoke (DELETE /v2/users/me/authorizations/{client_id}), which ends its tokens.
 */
import { api, apiData } from '../api';
import { AccountSection, ItemsTable, MessageLine, useAction, useLoaded, when } from './account-shared';

interface Authorization {
  client_id: string;
  name: string;
  scopes: string[];
  sandbox: boolean;
  created_at: string;
  updated_at: string;
}

export function AccountApps() {
  const { data: apps, error, reload } = useLoaded(() => apiData<Authorization[]>('GET', '/v2/users/me/authorizations'));
  const [message, act, busy] = useAction();
  const revoke = (app: Authorization) =>
    act(async () => {
      await api('DELETE', `/v2/users/me/authorizations/${app.client_id}`);
      await reload();
      return `${app.name} can no longer use your account.`;
    });
  return (
    <AccountSection id="apps" title="Authorized applications" error={error}>
      <ItemsTable
        items={apps}
        label="Authorized applications"
        columns={['Application', 'Allowed to', 'Authorized', 'Actions']}
        empty="You have not authorized any application."
        row={(app) => (
          <tr key={app.client_id}>
            <td>
              <strong>{app.name}</strong>
              {app.sandbox && <span class="muted"> (sandbox)</span>}
            </td>
            <td>
              {app.scopes.map((s) => (
                <code key={s} class="scope">
                  {s}
                </code>
              ))}
            </td>
            <td>
              {when(app.created_at)}
              {app.updated_at !== app.created_at && <div class="muted">again {when(app.updated_at)}</div>}
            </td>
            <td>
              <button type="button" class="danger" aria-label={`Revoke ${app.name}`} disabled={busy} onClick={() => void revoke(app)}>
                Revoke
              </button>
            </td>
          </tr>
        )}
      />
      <MessageLine message={message} />
    </AccountSection>
  );
}
