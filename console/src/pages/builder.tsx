export function BuilderPage() {
  return (
    <section>
      <h1 tabIndex={-1}>Job builder</h1>
    </section>
  );
}
