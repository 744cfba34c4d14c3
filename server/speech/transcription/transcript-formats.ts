import {
  finishCues,
  renderSrt,
  renderVtt,
  type SubtitleCue,
  splitCues,
  subtitleTime,
  wordsOverSpan,
} from '../../../core/subtitle-cues.ts'
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
  /** The recognizer's posterior (0…1), when it gives one. */
  confidence?: number
}

export interface TranscriptParts {
  text: string
  /**
   * Transcript segments: words grouped at pauses, seconds from the start of the file; with their words when known
   * (subtitle cues are cut at their times, else at times spread over the segment).
   */
  segments: ReadonlyArray<{ start: number; end: number; text: string; words?: readonly TimedWord[] }>
  words: readonly TimedWord[]
  /** Length of the decoded audio in seconds. */
  duration: number
  warnings: TranscriptionWarning[]
  diarization?: DiarizationBlock
}

const round3 = (s: number) => Math.round(s * 1000) / 1000

/** `HH:MM:SS,mmm` (srt) or `HH:MM:SS.mmm` (vtt). */
export const timestamp = subtitleTime

/**
 * Subtitle cues (core/subtitle-cues.ts): each segment's words cut into cues of at most 7 s and two lines of at most
 * 42 characters, at word boundaries; a cue never spans two segments.
 */
export function subtitleCues(segments: TranscriptParts['segments']): SubtitleCue[] {
  const cues = segments.flatMap((s) => {
    const words = s.words && s.words.length > 0 ? s.words : wordsOverSpan(s.text, s.start, s.end)
    return splitCues(words)
  })
  return finishCues(cues)
}

export const toSrt = (segments: TranscriptParts['segments']): string => renderSrt(subtitleCues(segments))

export const toVtt = (segments: TranscriptParts['segments']): string => renderVtt(subtitleCues(segments))

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
    words: parts.words.map((w) => ({
      word: w.text,
      start: round3(w.start),
      end: round3(w.end),
      ...(w.confidence !== undefined ? { confidence: round3(w.confidence) } : {}),
    })),
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
