import './transcripts.css'
import { LivePanel } from './LivePanel.tsx'
import { Review } from './Review.tsx'
import { useReview } from './review-store.ts'
import { SavedTranscripts } from './SavedTranscripts.tsx'
import { UploadPanel } from './UploadPanel.tsx'

/**
 * Transcripts, for reviewers: transcribe a recording (uploaded or live from the microphone) with speaker labels,
 * review it against its waveform, rename and merge speakers, move turns between them or split a turn at the playhead
 * and give the part after it to another (or a new) speaker (saved apart from the service's result), and export
 * subtitles or text. Saved transcripts stay with their audio for the organization.
 */
export function TranscriptsPage() {
  const open = useReview((s) => s.open)
  return (
    <section aria-labelledby="transcripts-heading" className="page transcripts-page">
      <h1 id="transcripts-heading">Transcripts</h1>
      <div className="sources">
        <UploadPanel />
        <LivePanel />
      </div>
      {open && <Review key={open.transcript.id} open={open} />}
      <SavedTranscripts />
    </section>
  )
}
