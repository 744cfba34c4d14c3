/**
 * Speaker windows: the statistics of 1.5 s stretches of speech, standardised by the population normalization, and
 * their clustering into speakers: how the consent screen hears a second voice in a recording (screen.ts).
 */
import type { SpeakerCount } from '../diarization/diarizer.ts'
import { clusterEmbeddings } from './cluster.ts'
import { FRAMES_PER_SECOND } from './features.ts'
import { standardize } from './mfcc-embedder.ts'
import { POPULATION } from './population.ts'
import { type SpeechTrack, speakerStatistics } from './statistics.ts'

/**
 * Average cosine similarity (between centred windows) from which two groups of windows are one speaker. Centred
 * windows of one voice still differ by what is said: −0.2 to −0.3 between sentences of one eSpeak voice, about −0.45
 * between two clearly different voices.
 */
export const DEFAULT_CLUSTER_THRESHOLD = -0.27

/** A stretch of speech in seconds. */
export interface SpeechRegion {
  start: number
  end: number
}

/** A window needs a third of a second of voiced frames for its statistics to mean anything. */
const MIN_WINDOW_VOICED_FRAMES = 30
/** Hierarchical clustering is cubic: longer recordings are clustered over runs of neighbouring windows. */
const MAX_CLUSTER_ITEMS = 400

export interface Window {
  /** Frame range. */
  from: number
  to: number
  embedding: Float32Array
  voicedFrames: number
}

/** Windows over each speech region (a short region gets one window of its own length). */
export function slideWindows(
  track: SpeechTrack,
  regions: SpeechRegion[],
  config: { windowSeconds: number; hopSeconds: number },
): Window[] {
  const length = Math.round(config.windowSeconds * FRAMES_PER_SECOND)
  const hop = Math.round(config.hopSeconds * FRAMES_PER_SECOND)
  const windows: Window[] = []
  for (const region of regions) {
    const first = Math.round(region.start * FRAMES_PER_SECOND)
    const last = Math.min(track.features.count, Math.round(region.end * FRAMES_PER_SECOND))
    const starts = [first]
    for (let from = first + hop; from + length <= last; from += hop) starts.push(from)
    for (const from of starts) {
      const to = Math.min(last, from + length)
      const statistics = speakerStatistics(track, from, to, MIN_WINDOW_VOICED_FRAMES)
      if (!statistics) continue
      let voicedFrames = 0
      for (let f = from; f < to; f++) voicedFrames += track.voiced[f] as number
      windows.push({ from, to, embedding: standardize(statistics, POPULATION), voicedFrames })
    }
  }
  return windows
}

/**
 * A speaker label per window. The windows are first centred on their average: what they all share is the recording's
 * channel (and for synthetic voices, the synthesizer) as much as any voice, and only departures from it tell speakers
 * apart. Centred windows of pure noise have an average cosine of −1/(n − 1), so the threshold moves with it. Runs of
 * neighbouring windows stand for them when there are too many to cluster directly.
 */
export function clusterWindows(windows: Window[], opts: SpeakerCount & { threshold: number }): number[] {
  const mean = new Float64Array(windows[0]?.embedding.length ?? 0)
  for (const w of windows)
    w.embedding.forEach((x, d) => {
      mean[d] = (mean[d] as number) + x / windows.length
    })
  const centred = windows.map((w) => ({
    ...w,
    embedding: w.embedding.map((x, d) => x - (mean[d] as number)),
  }))
  const threshold = opts.threshold - 1 / Math.max(1, windows.length - 1)
  const groupSize = Math.ceil(windows.length / MAX_CLUSTER_ITEMS)
  const groups: Window[][] = []
  for (let i = 0; i < centred.length; i += groupSize) groups.push(centred.slice(i, i + groupSize))
  const embeddings = groups.map((group) => {
    const sum = new Float32Array((group[0] as Window).embedding.length)
    for (const w of group)
      w.embedding.forEach((x, d) => {
        sum[d] = (sum[d] as number) + x * w.voicedFrames
      })
    return sum
  })
  const weights = groups.map((group) => group.reduce((total, w) => total + w.voicedFrames, 0))
  const groupLabels = clusterEmbeddings(embeddings, weights, { ...opts, threshold })
  return groups.flatMap((group, g) => group.map(() => groupLabels[g] as number))
}
