/**
 * Whether two chains of local speakers are one person, asked of the segmentation model itself: a few seconds of
 * each, where it speaks alone, are put side by side in one window, and the model says whether it hears one speaker
 * across both halves or two. Inside one window it tells speakers apart far better than classical statistics of
 * short segments do (docs/diarization.md), and this works across any gap, not only between overlapping windows.
 */

import { concat } from '../../../core/concat.ts'
import type { Segmenter } from '../segmentation/segmenter.ts'
import { type SpeakerEmbedder, verificationScore } from '../speaker/embedder.ts'
import type { LocalSpeakers } from './local-speakers.ts'
import { frameSample } from './reconstruct.ts'
import { node } from './stitch.ts'

export interface Excerpt {
  /** The chain's solo speech, its longest stretches first, then kept in time order. */
  samples: Float32Array
  /** Seconds of it. */
  seconds: number
}

/** One chain on the recording's frame grid, from the first frame of its first window to the last of its last. */
export interface ChainTrack {
  /** Grid frame of `heard[0]`. */
  start: number
  /** 1 where, in at least half of the chain's windows covering the frame, its local speaker is active. */
  heard: Uint8Array
  /** 1 where, in at least half of them, it is active and no other local speaker of that window is. */
  solo: Uint8Array
}

/**
 * Each chain's track, judged window by window, so a chain heard in few windows keeps its speech beside a chain heard
 * in many; memory is the chains' own spans of the grid, not chains × recording. A chain listed in `ranges` (a piece
 * of a cut chain, chain-splits.ts) is kept to its part of the grid, so two pieces never share speech.
 */
export function chainTracks(
  ls: LocalSpeakers,
  chains: Int32Array,
  total: number,
  ranges: ReadonlyMap<number, readonly [from: number, to: number]> = new Map(),
): ChainTrack[] {
  const { frames: perWindow, speakers } = ls.segmenter
  const first = new Int32Array(total).fill(-1)
  const last = new Int32Array(total)
  ls.activity.forEach((_, w) => {
    for (let s = 0; s < speakers; s++) {
      const c = chains[node(ls, w, s)] as number
      if (c < 0) continue
      if ((first[c] as number) < 0) first[c] = ls.starts[w] as number
      last[c] = (ls.starts[w] as number) + perWindow
    }
  })
  for (const [c, [from, to]] of ranges) {
    if ((first[c] as number) < 0) continue
    first[c] = Math.max(first[c] as number, from)
    last[c] = Math.min(last[c] as number, to)
  }
  const counts = Array.from({ length: total }, (_, c) => {
    const length = Math.max(0, (last[c] as number) - (first[c] as number))
    return {
      present: new Uint16Array(length),
      active: new Uint16Array(length),
      alone: new Uint16Array(length),
    }
  })
  ls.activity.forEach((a, w) => {
    const start = ls.starts[w] as number
    for (let s = 0; s < speakers; s++) {
      const c = chains[node(ls, w, s)] as number
      if (c < 0) continue
      const { present, active, alone } = counts[c] as (typeof counts)[number]
      const offset = start - (first[c] as number)
      const end = Math.min(perWindow, present.length - offset)
      for (let f = Math.max(0, -offset); f < end; f++) {
        let others = 0
        for (let t = 0; t < speakers; t++) if (t !== s) others += a[f * speakers + t] as number
        const at = offset + f
        present[at] = (present[at] as number) + 1
        if (a[f * speakers + s]) {
          active[at] = (active[at] as number) + 1
          if (others === 0) alone[at] = (alone[at] as number) + 1
        }
      }
    }
  })
  const majority = (votes: Uint16Array, present: Uint16Array) =>
    Uint8Array.from(votes, (v, i) => (v > 0 && 2 * v >= (present[i] as number) ? 1 : 0))
  return counts.map(({ present, active, alone }, c) => ({
    start: Math.max(0, first[c] as number),
    heard: majority(active, present),
    solo: majority(alone, present),
  }))
}

/**
 * Up to `seconds` of each chain's solo speech, built from its longest runs (at least `minRunSeconds` each) so the
 * comparison hears whole stretches of voice rather than fragments.
 */
export function soloExcerpts(
  audio: Float32Array,
  ls: LocalSpeakers,
  tracks: readonly ChainTrack[],
  seconds: number,
  minRunSeconds: number,
): Excerpt[] {
  const runs = tracks.map(({ start, solo }) => {
    const list: { start: number; end: number }[] = []
    let open: { start: number; end: number } | null = null
    for (let f = 0; f < solo.length; f++) {
      if (!solo[f]) continue
      const g = start + f
      if (open && open.end === g) open.end = g + 1
      else {
        open = { start: g, end: g + 1 }
        list.push(open)
      }
    }
    return list
  })
  const step = ls.segmenter.frameStep
  const minFrames = Math.round(minRunSeconds / step)
  return runs.map((list) => {
    const chosen: { start: number; end: number }[] = []
    let total = 0
    for (const run of [...list].sort((a, b) => b.end - b.start - (a.end - a.start))) {
      if (run.end - run.start < minFrames || total >= seconds) break
      const take = Math.min(run.end - run.start, Math.round((seconds - total) / step))
      chosen.push({ start: run.start, end: run.start + take })
      total += take * step
    }
    chosen.sort((a, b) => a.start - b.start)
    const pieces = chosen.map((r) =>
      audio.subarray(frameSample(ls, r.start), Math.min(audio.length, frameSample(ls, r.end))),
    )
    const samples = concat(pieces, Float32Array)
    return { samples, seconds: samples.length / 16_000 }
  })
}

/**
 * The probability that two excerpts are one speaker, for each pair asked: the first excerpt's first half window ends
 * the window's first half, the second's begins its second half; the model's local speakers are counted over each
 * half, and the score is Σₖ p₁(k)·p₂(k): 1 when one local speaker holds both, 0 when they share none. (Alternating
 * four pieces, A B A B, separated worse: docs/diarization.md.)
 */
export async function sameSpeaker(
  segmenter: Segmenter,
  excerpts: readonly Excerpt[],
  pairs: readonly [number, number][],
  signal?: AbortSignal,
): Promise<number[]> {
  const half = segmenter.windowSamples / 2
  const halfFrames = half / 16_000 / segmenter.frameStep
  // A few windows' audio at a time: one window per pair would hold 640 kB for every pair asked.
  const scores: number[] = []
  for (let first = 0; first < pairs.length; first += 16) {
    signal?.throwIfAborted()
    scores.push(...(await scoreWindows(pairs.slice(first, first + 16))))
  }
  return scores

  async function scoreWindows(batch: readonly [number, number][]): Promise<number[]> {
    const windows = batch.map(([a, b]) => {
      const window = new Float32Array(segmenter.windowSamples)
      const first = (excerpts[a] as Excerpt).samples.subarray(0, half)
      window.set(first, half - first.length)
      window.set((excerpts[b] as Excerpt).samples.subarray(0, half), half)
      return window
    })
    const decoded = await segmenter.segment(windows, signal)
    const { frames, speakers } = segmenter
    return decoded.map(({ active }) => {
      const sides = [new Float64Array(speakers), new Float64Array(speakers)] as const
      for (let f = 0; f < frames; f++) {
        const side = sides[f < halfFrames ? 0 : 1]
        for (let s = 0; s < speakers; s++)
          side[s] = (side[s] as number) + (active[f * speakers + s] as number)
      }
      const [first, second] = sides
      const n1 = first.reduce((x, y) => x + y, 0)
      const n2 = second.reduce((x, y) => x + y, 0)
      if (n1 === 0 || n2 === 0) return 0
      let same = 0
      for (let s = 0; s < speakers; s++) same += ((first[s] as number) / n1) * ((second[s] as number) / n2)
      return same
    })
  }
}

/** How two chains' excerpts are compared: a score per pair, and the score from which they are one speaker. */
export interface ExcerptComparer {
  readonly threshold: number
  compare(
    excerpts: readonly Excerpt[],
    pairs: readonly [number, number][],
    signal?: AbortSignal,
  ): Promise<number[]>
}

/** The segmentation model itself, the excerpts side by side in one window (sameSpeaker); one speaker from 0.5. */
export function modelComparer(segmenter: Segmenter, threshold = 0.5): ExcerptComparer {
  return { threshold, compare: (excerpts, pairs, signal) => sameSpeaker(segmenter, excerpts, pairs, signal) }
}

/**
 * A speaker embedder's score of the excerpts (NaN where one holds too little voice to embed); each excerpt is
 * embedded once however many pairs it is in.
 */
export function embeddingComparer(embedder: SpeakerEmbedder, threshold: number): ExcerptComparer {
  const embeddings = new WeakMap<Excerpt, Float32Array | null>()
  const embedding = (excerpt: Excerpt) => {
    if (!embeddings.has(excerpt)) embeddings.set(excerpt, embedder.embed(excerpt.samples))
    return embeddings.get(excerpt) ?? null
  }
  return {
    threshold,
    async compare(excerpts, pairs, signal) {
      return pairs.map(([a, b]) => {
        signal?.throwIfAborted()
        const x = embedding(excerpts[a] as Excerpt)
        const y = embedding(excerpts[b] as Excerpt)
        return x && y ? verificationScore(embedder, x, y) : Number.NaN
      })
    },
  }
}
