import type {
  DiarizationBlock,
  TranscriptionJson,
  TranscriptionResponseFormat,
  TranscriptionVerboseJson,
  TranscriptionWarning,
  TranscriptSegment,
} from '../../../schema/index.ts'

/** The upload's response bodies (docs/transcription.md): json, verbose_json, text, srt and vtt. */

export interface TimedWord {
  text: string
  start: number
  end: number
}

export interface TranscriptParts {
  text: string
  /** Transcript segments: words grouped at pauses, seconds from the start of the file. */
  segments: ReadonlyArray<{ start: number; end: number; text: string }>
  words: readonly TimedWord[]
  /** Length of the decoded audio in seconds. */
  duration: number
  warnings: TranscriptionWarning[]
  diarization?: DiarizationBlock
}

const round3 = (s: number) => Math.round(s * 1000) / 1000

/** `HH:MM:SS,mmm` (srt) or `HH:MM:SS.mmm` (vtt). */
export function timestamp(seconds: number, separator: ',' | '.'): string {
  const total = Math.max(0, Math.round(seconds * 1000))
  const h = Math.floor(total / 3_600_000)
  const m = Math.floor((total % 3_600_000) / 60_000)
  const s = Math.floor((total % 60_000) / 1000)
  const millis = total % 1000
  const pad = (n: number, w = 2) => String(n).padStart(w, '0')
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(millis, 3)}`
}

const cues = (segments: TranscriptParts['segments']) => segments.filter((s) => s.text.trim().length > 0)

export function toSrt(segments: TranscriptParts['segments']): string {
  return cues(segments)
    .map((s, i) => `${i + 1}\n${timestamp(s.start, ',')} --> ${timestamp(s.end, ',')}\n${s.text.trim()}\n`)
    .join('\n')
}

export function toVtt(segments: TranscriptParts['segments']): string {
  const body = cues(segments)
    .map((s) => `${timestamp(s.start, '.')} --> ${timestamp(s.end, '.')}\n${s.text.trim()}\n`)
    .join('\n')
  return body ? `WEBVTT\n\n${body}` : 'WEBVTT\n'
}

export function transcriptSegments(parts: TranscriptParts): TranscriptSegment[] {
  return parts.segments.map((s, id) => ({ id, start: round3(s.start), end: round3(s.end), text: s.text }))
}

export function toJson(parts: TranscriptParts): TranscriptionJson {
  return {
    text: parts.text,
    warnings: parts.warnings,
    ...(parts.diarization ? { diarization: parts.diarization } : {}),
  }
}

export function toVerboseJson(parts: TranscriptParts): TranscriptionVerboseJson {
  return {
    task: 'transcribe',
    language: 'en',
    duration: round3(parts.duration),
    text: parts.text,
    segments: transcriptSegments(parts),
    words: parts.words.map((w) => ({ word: w.text, start: round3(w.start), end: round3(w.end) })),
    warnings: parts.warnings,
    ...(parts.diarization ? { diarization: parts.diarization } : {}),
  }
}

/** The body and content type of a non-streamed response. */
export function renderTranscript(
  format: TranscriptionResponseFormat,
  parts: TranscriptParts,
): { contentType: string; body: string | TranscriptionJson | TranscriptionVerboseJson } {
  switch (format) {
    case 'json':
      return { contentType: 'application/json; charset=utf-8', body: toJson(parts) }
    case 'verbose_json':
      return { contentType: 'application/json; charset=utf-8', body: toVerboseJson(parts) }
    case 'text':
      return { contentType: 'text/plain; charset=utf-8', body: `${parts.text}\n` }
    case 'srt':
      return { contentType: 'application/x-subrip; charset=utf-8', body: toSrt(parts.segments) }
    case 'vtt':
      return { contentType: 'text/vtt; charset=utf-8', body: toVtt(parts.segments) }
  }
}
