/**
 * The recording as the segmentation model hears it: sliding windows, each with its local speakers' activity on one
 * frame grid for the whole recording (the model's own frames), with speech the VAD hears and the model does not
 * given to the speakers the model would choose there (the model alone misses long audible stretches of some meetings).
 */
import type { LocalActivity, Segmenter } from '../segmentation/segmenter.ts'

export const RATE = 16_000

export interface SlidingOptions {
  /** Seconds between window starts (rounded to whole frames, so every window lies on one frame grid). */
  stepSeconds: number
}

export interface LocalSpeakers {
  segmenter: Pick<Segmenter, 'frames' | 'speakers' | 'frameStep' | 'frameDuration'>
  /** Frames of the recording's grid (frame g starts at g · frameStep s). */
  frames: number
  /** First grid frame of each window. */
  starts: number[]
  /** Each window's activity, fused with the VAD (frames × speakers, 0/1). */
  activity: Uint8Array[]
}

/** Grid frame g ↦ seconds at its middle. */
export const frameMiddle = (seg: LocalSpeakers['segmenter'], g: number) =>
  g * seg.frameStep + seg.frameDuration / 2

/**
 * Runs the model over windows `stepSeconds` apart (the last one reaching the end of the audio) and fuses each
 * window's activity with `speech` (seconds, from the VAD): a frame the VAD hears as speech and the model as nobody
 * takes the model's most likely speakers given speech.
 */
export async function localSpeakers(
  audio: Float32Array,
  segmenter: Segmenter,
  speech: readonly { start: number; end: number }[],
  { stepSeconds }: SlidingOptions,
  signal?: AbortSignal,
): Promise<LocalSpeakers> {
  const shift = Math.round(segmenter.frameStep * RATE)
  const stepFrames = Math.max(1, Math.round((stepSeconds * RATE) / shift))
  const span = segmenter.windowSamples
  const count = audio.length <= span ? 1 : Math.ceil((audio.length - span) / (stepFrames * shift)) + 1
  const starts = Array.from({ length: count }, (_, i) => i * stepFrames)
  const frames = (count - 1) * stepFrames + segmenter.frames
  const vad = speechFrames(segmenter, frames, speech)
  const activity: Uint8Array[] = []
  // A few windows at a time: the audio of all windows at once would be ten times the recording.
  const group = 16
  for (let first = 0; first < count; first += group) {
    const windows = starts.slice(first, first + group).map((start) => {
      const from = start * shift
      const window = new Float32Array(span)
      window.set(audio.subarray(from, Math.min(audio.length, from + span)))
      return window
    })
    const decoded = await segmenter.segment(windows, signal)
    decoded.forEach((local, i) => {
      activity.push(fuse(local, vad, starts[first + i] as number, segmenter))
    })
  }
  return { segmenter, frames, starts, activity }
}

/** 1 where the VAD hears speech at the frame's middle. */
function speechFrames(
  seg: LocalSpeakers['segmenter'],
  frames: number,
  speech: readonly { start: number; end: number }[],
): Uint8Array {
  const mask = new Uint8Array(frames)
  for (const region of speech) {
    const first = Math.max(0, Math.ceil((region.start - seg.frameDuration / 2) / seg.frameStep))
    for (let g = first; g < frames && frameMiddle(seg, g) < region.end; g++) mask[g] = 1
  }
  return mask
}

function fuse(
  local: LocalActivity,
  vad: Uint8Array,
  start: number,
  seg: LocalSpeakers['segmenter'],
): Uint8Array {
  const out = local.active.slice()
  const k = seg.speakers
  for (let f = 0; f < seg.frames; f++) {
    if (!vad[start + f]) continue
    let any = 0
    for (let s = 0; s < k; s++) any |= out[f * k + s] as number
    if (!any) for (let s = 0; s < k; s++) out[f * k + s] = local.activeIfSpeech[f * k + s] as number
  }
  return out
}

/**
 * Speakers heard per frame: the mean over the windows covering it of how many local speakers are active, rounded
 * (as pyannote.audio does), so overlap is kept where most windows hear two; `offset` is added before rounding.
 */
export function speakerCounts(ls: LocalSpeakers, offset = 0): Uint8Array {
  const sum = new Float32Array(ls.frames)
  const covered = new Uint16Array(ls.frames)
  const { frames, speakers } = ls.segmenter
  ls.activity.forEach((a, w) => {
    const start = ls.starts[w] as number
    for (let f = 0; f < frames; f++) {
      let n = 0
      for (let s = 0; s < speakers; s++) n += a[f * speakers + s] as number
      sum[start + f] = (sum[start + f] as number) + n
      covered[start + f] = (covered[start + f] as number) + 1
    }
  })
  return Uint8Array.from(sum, (total, g) =>
    Math.max(0, Math.round(total / Math.max(1, covered[g] as number) + offset)),
  )
}
