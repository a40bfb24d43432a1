export function JobPage({ id }: { id: string }) {
  return (
    <section>
      <h1 tabIndex={-1}>Job {id}</h1>
    </section>
  );
}
