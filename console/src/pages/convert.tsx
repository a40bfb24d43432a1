export function ConvertPage() {
  return (
    <section>
      <h1 tabIndex={-1}>Convert</h1>
    </section>
  );
}
