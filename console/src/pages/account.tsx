/**
 * The Account page: a list of sections, each its own component (components/account-*.tsx), each
 * talking to the public API with the signed-in user's token.
 */
import { AccountApps } from '../components/account-apps';
import { AccountKeys } from '../components/account-keys';
import { AccountProfile } from '../components/account-profile';
import { AccountSandbox } from '../components/account-sandbox';
import { AccountSignedUrls } from '../components/account-signed-urls';
import { AccountUsage } from '../components/account-usage';
import { AccountWebhooks } from '../components/account-webhooks';

export function AccountPage() {
  return (
    <>
      <h1 tabIndex={-1}>Account</h1>
      <AccountProfile />
      <AccountKeys />
      <AccountWebhooks />
      <AccountSignedUrls />
      <AccountSandbox />
      <AccountUsage />
      <AccountApps />
    </>
  );
}
