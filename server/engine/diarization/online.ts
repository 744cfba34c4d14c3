/**
 * The online speaker tracker of a realtime session: each finished turn (16 kHz) is cut into windows, clustered
 * together with the windows of the turns before it, and the clusters are matched to the speakers already named, so
 * that a speaker keeps their number across turns. A change of speaker inside a turn shows as several segments.
 */

import { FRAMES_PER_SECOND } from '../speaker/features.ts'
import { analyzeSpeech } from '../speaker/statistics.ts'
import { DEFAULT_CLUSTER_THRESHOLD } from './classical.ts'
import { clusterWindows, slideWindows, type Window } from './windows.ts'

export interface TurnSpeakers {
  /** The speaker of most of the turn, or null when it holds too little voiced speech to tell. */
  speaker: number | null
  /** Seconds within the turn. */
  segments: { speaker: number; start: number; end: number }[]
}

export interface OnlineSpeakerTracker {
  /** Attributes one finished turn and remembers it for the turns after it. */
  assign(audio: Float32Array): TurnSpeakers
  /** Where, in seconds into `audio` (a turn still going on), another speaker took over; null if nobody did. */
  speakerChange(audio: Float32Array): number | null
}

/** The turns kept to cluster against: about four minutes of speech. */
const MAX_HISTORY_WINDOWS = 300
const WINDOWS = { windowSeconds: 1.5, hopSeconds: 0.75 }
/** A new speaker inside a turn must hold the floor this long to count as a change. */
const MIN_CHANGE_SECONDS = 1

export function createOnlineSpeakerTracker(opts: { maxSpeakers: number }): OnlineSpeakerTracker {
  const maxSpeakers = Math.max(1, opts.maxSpeakers)
  let history: { window: Window; speaker: number }[] = []
  let named = 0

  /** Speaker numbers for the turn's windows, and the history relabelled by the same clustering. */
  function label(audio: Float32Array) {
    const track = analyzeSpeech(audio)
    const windows = slideWindows(track, [{ start: 0, end: audio.length / 16_000 }], WINDOWS)
    if (windows.length === 0) return null
    const clusters = clusterWindows([...history.map((h) => h.window), ...windows], {
      maxSpeakers,
      threshold: DEFAULT_CLUSTER_THRESHOLD,
    })
    const numberOf = matchClusters(
      clusters,
      history.map((h) => h.speaker),
    )
    let next = named
    const speakerOf = (cluster: number) => {
      if (!numberOf.has(cluster)) numberOf.set(cluster, next < maxSpeakers ? next++ : 0)
      return numberOf.get(cluster) as number
    }
    const turn = smooth(windows.map((_, i) => speakerOf(clusters[history.length + i] as number)))
    const relabelled = history.map((h, i) => ({
      window: h.window,
      speaker: speakerOf(clusters[i] as number),
    }))
    return { windows, turn, relabelled, named: next }
  }

  return {
    assign(audio) {
      const labelled = label(audio)
      if (!labelled) return { speaker: null, segments: [] }
      const { windows, turn } = labelled
      history = [
        ...labelled.relabelled,
        ...windows.map((window, i) => ({ window, speaker: turn[i] as number })),
      ]
      history = history.slice(-MAX_HISTORY_WINDOWS)
      named = labelled.named
      const segments = toSegments(windows, turn, audio.length / 16_000)
      const talk = new Map<number, number>()
      for (const s of segments) talk.set(s.speaker, (talk.get(s.speaker) ?? 0) + s.end - s.start)
      const speaker = [...talk].reduce((a, b) => (b[1] > a[1] ? b : a))[0]
      return { speaker, segments }
    },
    speakerChange(audio) {
      const labelled = label(audio)
      if (!labelled) return null
      const segments = toSegments(labelled.windows, labelled.turn, audio.length / 16_000)
      const change = segments.find((s, i) => i > 0 && s.end - s.start >= MIN_CHANGE_SECONDS)
      return change ? change.start : null
    },
  }
}

/** Cluster → speaker number, each number given to the cluster holding most of the windows it labelled before. */
function matchClusters(clusters: number[], previous: number[]): Map<number, number> {
  const counts = new Map<string, number>()
  previous.forEach((speaker, i) => {
    const key = `${clusters[i]}:${speaker}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  })
  const numberOf = new Map<number, number>()
  const taken = new Set<number>()
  for (const [key] of [...counts].sort((a, b) => b[1] - a[1])) {
    const [cluster, speaker] = key.split(':').map(Number) as [number, number]
    if (numberOf.has(cluster) || taken.has(speaker)) continue
    numberOf.set(cluster, speaker)
    taken.add(speaker)
  }
  return numberOf
}

/** A single window whose neighbours agree with each other takes their label: one window is too little to trust. */
function smooth(labels: number[]): number[] {
  return labels.map((label, i) => {
    const before = labels[i - 1]
    const after = labels[i + 1]
    return before !== undefined && before === after ? before : label
  })
}

/** Contiguous windows of one speaker as segments, cut halfway through the overlap of the windows either side. */
function toSegments(windows: Window[], labels: number[], duration: number): TurnSpeakers['segments'] {
  const segments: TurnSpeakers['segments'] = []
  windows.forEach((window, i) => {
    const speaker = labels[i] as number
    const last = segments.at(-1)
    if (last && last.speaker === speaker) return
    const previous = windows[i - 1]
    const start = previous ? (window.from + previous.to) / 2 / FRAMES_PER_SECOND : 0
    if (last) last.end = start
    segments.push({ speaker, start, end: duration })
  })
  return segments
}
