export function JobsPage() {
  return (
    <section>
      <h1 tabIndex={-1}>Jobs</h1>
    </section>
  );
}
