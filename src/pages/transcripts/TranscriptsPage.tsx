export function TranscriptsPage() {
  return (
    <section aria-labelledby="transcripts-heading" className="page">
      <h1 id="transcripts-heading">Transcripts</h1>
      <p>
        Not built yet: this is where reviewers will upload recordings and read speaker-labelled transcripts
        against the waveform.
      </p>
    </section>
  )
}
