/**
 * Cuts audio into the utterances PocketSphinx decodes one by one. Its own voice-activity detection
 * (`-remove_silence`) drops frames without counting them, so the word times it reports drift by every pause; it is
 * switched off and the silence is cut here instead. Utterances are bounded in length so that the decoder's
 * per-utterance memory (lattice, back-pointer table) stays small on long recordings, and each gets its own cepstral
 * mean (the model's `-cmn batch`), which adapts to speakers and rooms that change over a meeting.
 */
import { RECOGNITION_SAMPLE_RATE } from './recognizer.ts'

/** PocketSphinx's analysis frame: 10 ms (`-frate 100`). */
export const FRAME_SAMPLES = RECOGNITION_SAMPLE_RATE / 100
export const FRAMES_PER_SECOND = 100

/** An utterance in frames, end exclusive. */
export interface Utterance {
  startFrame: number
  endFrame: number
}

export interface UtterancePlan {
  /** A frame is speech when it is this far above the recording's noise floor (its 10th percentile)… */
  overFloorDb: number
  /** …and above this absolute level (dBFS of the frame's RMS), so that near-digital silence is never speech. */
  minLevelDb: number
  /** Pauses shorter than this stay inside one utterance. */
  maxPauseSeconds: number
  /** Speech kept on each side of an utterance, so that soft onsets and endings are not cut. */
  paddingSeconds: number
  /** Less voiced time than this is a click or a breath, not speech. */
  minSpeechSeconds: number
  /** Longer stretches are cut at their quietest point between half this length and this length. */
  maxUtteranceSeconds: number
}

export const DEFAULT_PLAN: UtterancePlan = {
  overFloorDb: 10,
  minLevelDb: -55,
  maxPauseSeconds: 1,
  paddingSeconds: 0.3,
  minSpeechSeconds: 0.1,
  maxUtteranceSeconds: 20,
}

/**
 * @param levels the recording's frame levels (`frameLevels`)
 * @param boundaries frames, in increasing order, that no utterance may run across (the caller's cuts, such as the
 *   upload's recognition pieces); a side of a cut left with too little voiced time is dropped
 */
export function planUtterances(
  levels: Float32Array,
  plan: UtterancePlan = DEFAULT_PLAN,
  boundaries: readonly number[] = [],
): Utterance[] {
  const voiced = voicedFrames(levels, plan)
  const speech = speechStretches(voiced, plan)
  const cut = boundaries.length > 0 ? speech.flatMap((s) => cutAt(s, boundaries, voiced, plan)) : speech
  return cut.flatMap((stretch) => splitLong(stretch, levels, plan))
}

/** The stretch cut at every boundary inside it; pieces with less voiced time than `minSpeechSeconds` are dropped. */
function cutAt(
  stretch: Utterance,
  boundaries: readonly number[],
  voiced: Uint8Array,
  plan: UtterancePlan,
): Utterance[] {
  const minSpeech = Math.round(plan.minSpeechSeconds * FRAMES_PER_SECOND)
  const edges = [
    stretch.startFrame,
    ...boundaries.filter((b) => b > stretch.startFrame && b < stretch.endFrame),
    stretch.endFrame,
  ]
  const pieces: Utterance[] = []
  for (let i = 0; i + 1 < edges.length; i++) {
    const piece = { startFrame: edges[i] as number, endFrame: edges[i + 1] as number }
    let count = 0
    for (let f = piece.startFrame; f < piece.endFrame; f++) count += voiced[f] as number
    if (count >= minSpeech) pieces.push(piece)
  }
  return pieces
}

/** Which frames are above the speech threshold. */
export function voicedFrames(levels: Float32Array, plan: UtterancePlan = DEFAULT_PLAN): Uint8Array {
  const voiced = new Uint8Array(levels.length)
  if (levels.length === 0) return voiced
  const threshold = Math.max(percentile(levels, 0.1) + plan.overFloorDb, plan.minLevelDb)
  for (let f = 0; f < levels.length; f++) voiced[f] = (levels[f] as number) >= threshold ? 1 : 0
  return voiced
}

/** RMS level of each whole 10 ms frame, in dBFS. */
export function frameLevels(audio: Float32Array): Float32Array {
  const levels = new Float32Array(Math.floor(audio.length / FRAME_SAMPLES))
  for (let f = 0; f < levels.length; f++) {
    let sum = 0
    for (let i = f * FRAME_SAMPLES; i < (f + 1) * FRAME_SAMPLES; i++) sum += (audio[i] as number) ** 2
    levels[f] = 10 * Math.log10(sum / FRAME_SAMPLES + 1e-12)
  }
  return levels
}

function percentile(values: Float32Array, p: number): number {
  const sorted = Float32Array.from(values).sort()
  return sorted[Math.floor(p * (sorted.length - 1))] as number
}

/** Voiced frames joined across short pauses, padded, with too little voice dropped. */
function speechStretches(voiced: Uint8Array, plan: UtterancePlan): Utterance[] {
  const maxPause = Math.round(plan.maxPauseSeconds * FRAMES_PER_SECOND)
  const padding = Math.round(plan.paddingSeconds * FRAMES_PER_SECOND)
  const minSpeech = Math.round(plan.minSpeechSeconds * FRAMES_PER_SECOND)
  const stretches: Utterance[] = []
  let current: { start: number; end: number; voiced: number } | null = null
  const close = () => {
    if (current && current.voiced >= minSpeech) {
      const previousEnd = stretches.at(-1)?.endFrame ?? 0
      stretches.push({
        startFrame: Math.max(current.start - padding, previousEnd),
        endFrame: Math.min(current.end + padding, voiced.length),
      })
    }
    current = null
  }
  for (let f = 0; f < voiced.length; f++) {
    if (!voiced[f]) continue
    if (current && f - current.end > maxPause) close()
    if (current) {
      current.end = f + 1
      current.voiced++
    } else {
      current = { start: f, end: f + 1, voiced: 1 }
    }
  }
  close()
  return stretches
}

/** Cuts a stretch longer than the maximum at the quietest 0.2 s in the second half of each maximal piece. */
function splitLong(stretch: Utterance, levels: Float32Array, plan: UtterancePlan): Utterance[] {
  const maxFrames = Math.round(plan.maxUtteranceSeconds * FRAMES_PER_SECOND)
  const window = 20
  const pieces: Utterance[] = []
  let start = stretch.startFrame
  while (stretch.endFrame - start > maxFrames) {
    let cut = start + maxFrames
    let quietest = Number.POSITIVE_INFINITY
    for (let f = start + Math.floor(maxFrames / 2); f + window <= start + maxFrames; f++) {
      let sum = 0
      for (let i = f; i < f + window; i++) sum += levels[i] as number
      if (sum < quietest) {
        quietest = sum
        cut = f + window / 2
      }
    }
    pieces.push({ startFrame: start, endFrame: cut })
    start = cut
  }
  pieces.push({ startFrame: start, endFrame: stretch.endFrame })
  return pieces
}
