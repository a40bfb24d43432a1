export function AccountPage() {
  return (
    <section>
      <h1 tabIndex={-1}>Account</h1>
    </section>
  );
}
