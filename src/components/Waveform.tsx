import { useMemo } from 'react'
import { PeakAccumulator } from '../audio/peaks.ts'
import './waveform.css'

/**
 * A small waveform of audio held in memory (PCM16), drawn as mirrored bars from its peaks (src/audio/peaks.ts, the
 * same peaks the transcripts page draws with wavesurfer.js, which needs a media element and is too heavy for a list
 * of takes). `progress` (0…1) shades the part already heard.
 */
export function Waveform({
  pcm,
  label,
  progress = null,
  bars = 120,
}: {
  pcm: Int16Array
  /** What the picture is of, for assistive technology ("Waveform of take 2"). */
  label: string
  progress?: number | null
  bars?: number
}) {
  const path = useMemo(() => {
    const acc = new PeakAccumulator(pcm.length, bars)
    acc.add(pcm)
    // PCM16 peaks come out in sample units; each bar is drawn from the middle line, at least a hairline.
    return acc
      .finish()
      .map((p, i) => {
        const h = Math.max(0.5, Math.min(1, p / 32768) * 20)
        return `M${i + 0.5} ${(20 - h).toFixed(2)}v${(2 * h).toFixed(2)}`
      })
      .join('')
  }, [pcm, bars])
  return (
    <svg
      className="waveform-mini"
      viewBox={`0 0 ${bars} 40`}
      preserveAspectRatio="none"
      role="img"
      aria-label={label}
    >
      {progress !== null && (
        <rect
          className="waveform-mini-heard"
          x={0}
          y={0}
          width={Math.max(0, Math.min(1, progress)) * bars}
          height={40}
        />
      )}
      <path d={path} />
    </svg>
  )
}
