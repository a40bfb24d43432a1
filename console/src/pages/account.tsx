import { AccountApps } from '../components/account-apps';
import { AccountProfile } from '../components/account-profile';
import { AccountSandbox } from '../components/account-sandbox';
import { AccountSignedUrls } from '../components/account-signed-urls';
import { AccountUsage } from '../components/account-usage';
import { AccountWebhooks } from '../components/account-webhooks';

// A temporary page wiring the sections of branch w31-account (the keys section and the page are w31-keys').
export function AccountPage() {
  return (
    <>
      <h1 tabIndex={-1}>Account</h1>
      <AccountProfile />
      <AccountUsage />
      <AccountWebhooks />
      <AccountSignedUrls />
      <AccountSandbox />
      <AccountApps />
    </>
  );
}
