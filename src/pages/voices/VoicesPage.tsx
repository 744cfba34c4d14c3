export function VoicesPage() {
  return (
    <section aria-labelledby="voices-heading" className="page">
      <h1 id="voices-heading">Voices</h1>
      <p>
        Not built yet: this is where consent administrators will record consent phrases, create saved voices
        bound to a consent and revoke them.
      </p>
    </section>
  )
}
