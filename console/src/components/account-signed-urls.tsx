/**
 * Signed URLs: the user's signed-URL bases (GET /v2/signed-urls), a new one (POST; its signing secret
 * is shown in that answer only, so here once), Delete (DELETE /v2/signed-urls/{id}), each base's URL
 * copyable. A URL is the base plus `?job=…&s=…` signed with the secret (docs/using/signed-urls.md).
 */
import { useState } from 'preact/hooks';
import { api, apiData } from '../api';
import { AccountSection, CopyButton, ItemsTable, MessageLine, useAction, useLoaded, when } from './account-shared';

interface SignedUrlBase {
  id: string;
  url: string;
  sandbox: boolean;
  created_at: string;
  signing_secret?: string;
}

export function AccountSignedUrls() {
  const { data: bases, error, reload } = useLoaded(() => apiData<SignedUrlBase[]>('GET', '/v2/signed-urls'));
  const [made, setMade] = useState<SignedUrlBase>();
  const [message, act, busy] = useAction();

  const create = () =>
    act(async () => {
      const base = await apiData<SignedUrlBase>('POST', '/v2/signed-urls', {});
      setMade(base);
      await reload();
      return 'Signed-URL base created: copy its signing secret now, it is shown only once.';
    });
  const remove = (base: SignedUrlBase) =>
    act(async () => {
      await api('DELETE', `/v2/signed-urls/${base.id}`);
      if (made?.id === base.id) setMade(undefined);
      await reload();
      return `Signed-URL base ${base.url} deleted: its URLs no longer work.`;
    });

  return (
    <AccountSection id="signed-urls" title="Signed URLs" error={error}>
      <p class="muted">
        A base URL and its signing secret let anyone you hand a signed URL to run that one job as you: the SDKs'
        <code> signedUrls.sign(base, secret, job)</code> add the job and the signature.
      </p>
      <ItemsTable
        items={bases}
        label="Signed-URL bases"
        columns={['Base URL', 'Created', 'Actions']}
        empty="No signed-URL bases yet."
        row={(base) => (
          <tr key={base.id}>
            <td>
              <code>{base.url}</code>
              {base.sandbox && <span class="muted"> (sandbox)</span>}
            </td>
            <td>{when(base.created_at)}</td>
            <td class="actions-cell">
              <CopyButton text={base.url} label={`Copy base URL ${base.url}`} />
              <button type="button" class="danger" aria-label={`Delete signed-URL base ${base.url}`} disabled={busy} onClick={() => void remove(base)}>
                Delete
              </button>
            </td>
          </tr>
        )}
      />
      {made?.signing_secret && (
        <div class="panel once" role="group" aria-label="New signed-URL base">
          <p>
            Base URL <code>{made.url}</code>
          </p>
          <p>
            Signing secret <code class="secret">{made.signing_secret}</code> <CopyButton text={made.signing_secret} label="Copy the new signing secret" />
          </p>
          <p class="muted">The secret is not shown again; delete the base and create another if it is lost.</p>
        </div>
      )}
      <div class="actions">
        <button type="button" onClick={() => void create()} disabled={busy}>
          Create signed-URL base
        </button>
      </div>
      <MessageLine message={message} />
    </AccountSection>
  );
}
