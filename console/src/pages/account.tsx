/**
 * The Account page: a list of sections, each its own component (components/account-*.tsx), each
 * talking to the public API with the signed-in user's token.
 */
import { AccountKeys } from '../components/account-keys';

export function AccountPage() {
  return (
    <>
      <h1 tabIndex={-1}>Account</h1>
      <AccountKeys />
    </>
  );
}
