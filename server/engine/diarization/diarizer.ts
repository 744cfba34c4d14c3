/**
 * The engine's diarization contract: who spoke when, in seconds, for 16 kHz mono float audio. Speakers are
 * numbered 0, 1, … in order of first appearance; the API turns them into `speaker_0`, `speaker_1`, ….
 */

export interface SpeakerSpan {
  start: number
  end: number
  speaker: number
}

export interface SpeakerCount {
  /** Exact number of speakers; not with min/max. */
  numSpeakers?: number
  minSpeakers?: number
  maxSpeakers?: number
}

export interface Diarizer {
  /** Whether its models are present and intact; when false `diarize` rejects (the health report says so). */
  available?(): Promise<boolean>
  diarize(audio: Float32Array, opts?: SpeakerCount & { signal?: AbortSignal }): Promise<SpeakerSpan[]>
}

/** Refuses counts the contract does not allow (RangeError): not whole and positive, exact with bounds, min above max. */
export function checkSpeakerCount(opts: SpeakerCount): SpeakerCount {
  const { numSpeakers, minSpeakers, maxSpeakers } = opts
  if (numSpeakers !== undefined && (minSpeakers !== undefined || maxSpeakers !== undefined)) {
    throw new RangeError('numSpeakers cannot be combined with minSpeakers or maxSpeakers')
  }
  for (const value of [numSpeakers, minSpeakers, maxSpeakers]) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      throw new RangeError('speaker counts must be positive integers')
    }
  }
  if (minSpeakers !== undefined && maxSpeakers !== undefined && minSpeakers > maxSpeakers) {
    throw new RangeError('minSpeakers exceeds maxSpeakers')
  }
  return { numSpeakers, minSpeakers, maxSpeakers }
}

/** The fewest and most speakers a count allows (a checked count: exact, or bounds, or neither). */
export function speakerBounds(count: SpeakerCount): { least: number; most: number } {
  const least = Math.max(1, count.numSpeakers ?? count.minSpeakers ?? 1)
  return { least, most: Math.max(least, count.numSpeakers ?? count.maxSpeakers ?? Number.POSITIVE_INFINITY) }
}
