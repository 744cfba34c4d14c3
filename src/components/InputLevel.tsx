import type { RefObject } from 'react'

/**
 * The microphone's level while recording: a `<meter>` that useRecordingMeter writes every frame, and a word for it
 * (a dash when not recording).
 */
export function InputLevel({
  id,
  meterRef,
  word,
}: {
  id: string
  meterRef: RefObject<HTMLMeterElement | null>
  word: string | null
}) {
  return (
    <div className="level">
      <label htmlFor={id}>Input level</label>
      <meter id={id} ref={meterRef} min={0} max={1} low={0.25} high={0.95} optimum={0.6} value={0} />
      <span className="level-word">{word ?? '–'}</span>
    </div>
  )
}
