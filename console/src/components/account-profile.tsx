/** The account at the top of the Account page: name, e-mail and credits from GET /v2/users/me. */
import { apiData } from '../api';
import { AccountSection, useLoaded } from './account-shared';

interface Me {
  id: number;
  username: string;
  email: string;
  credits: number;
  credits_unlimited?: boolean;
  region: string | null;
}

export function AccountProfile() {
  const { data: me, error } = useLoaded(() => apiData<Me>('GET', '/v2/users/me'));
  return (
    <AccountSection id="profile" title="Profile" error={error}>
      {me && (
        <dl class="facts">
          <dt>Name</dt>
          <dd>{me.username}</dd>
          <dt>E-mail</dt>
          <dd>{me.email}</dd>
          <dt>Credits</dt>
          <dd>{me.credits_unlimited ? 'unlimited' : me.credits.toLocaleString('en')}</dd>
          <dt>Region</dt>
          <dd>{me.region ?? 'chosen per request'}</dd>
        </dl>
      )}
    </AccountSection>
  );
}
