/**
 * A chain is one voice only if its parts sound alike. Where one person stops and another starts in the same local
 * speaker's slot, the model hands the slot over and stitching carries both people in one chain. Each chain's solo
 * speech is embedded in stretches of its span, and the chain is cut where the stretches before and after a point are
 * unlike (binary segmentation on their mean embedding, as a change detector splits a stream), so that clustering
 * can place both people.
 */
import { concat } from '../../../core/concat.ts'
import { type SpeakerEmbedder, verificationScore } from '../speaker/embedder.ts'
import type { LocalSpeakers } from './local-speakers.ts'
import { frameSample } from './reconstruct.ts'
import { type ChainTrack, chainTracks } from './reidentify.ts'
import { node } from './stitch.ts'

export interface ChainSplitOptions {
  /** Length of the stretches of a chain's span whose solo speech is embedded (seconds of the recording). */
  stretchSeconds: number
  /** Solo speech a stretch needs to be embedded (seconds). */
  minSeconds: number
  /** Similarity of the two sides' mean embeddings under which they are two voices. */
  cutBelow: number
}

/** Grid frames [from, to) that a piece of a cut chain owns. */
export type GridRange = readonly [from: number, to: number]

export interface SplitChains {
  /** Chain of each local speaker after the cuts, numbered from 0 (−1: never active). */
  chains: Int32Array
  /** The part of the grid each piece of a cut chain owns, for chainTracks (chains that were not cut are absent). */
  ranges: Map<number, GridRange>
}

interface Stretch {
  /** First grid frame after the stretch. */
  end: number
  embedding: Float32Array | null
  seconds: number
}

export function splitChains(
  audio: Float32Array,
  local: LocalSpeakers,
  chains: Int32Array,
  embedder: SpeakerEmbedder,
  opts: ChainSplitOptions,
): SplitChains {
  const k = local.segmenter.speakers
  const tracks = chainTracks(local, chains, Math.max(-1, ...chains) + 1)
  const out = chains.slice()
  const owned = new Map<number, GridRange>()
  let next = tracks.length
  tracks.forEach((track, c) => {
    const stretches = stretchesOf(audio, local, track, embedder, opts)
    const cuts: number[] = []
    const score = (a: Float32Array, b: Float32Array) => verificationScore(embedder, a, b)
    bisect(stretches, 0, stretches.length, { score, cutBelow: opts.cutBelow }, cuts)
    if (cuts.length === 0) return
    const bounds = cuts.sort((a, b) => a - b).map((i) => (stretches[i - 1] as Stretch).end)
    const ids = [c, ...bounds.map(() => next++)]
    ids.forEach((id, i) => {
      owned.set(id, [
        i === 0 ? 0 : (bounds[i - 1] as number),
        (bounds[i] as number | undefined) ?? local.frames,
      ])
    })
    // A local speaker goes to the piece holding its window's middle: the model heard it as one voice there.
    local.activity.forEach((_, w) => {
      const middle = (local.starts[w] as number) + local.segmenter.frames / 2
      let piece = 0
      while (piece < bounds.length && middle >= (bounds[piece] as number)) piece++
      for (let s = 0; s < k; s++)
        if (chains[node(local, w, s)] === c) out[node(local, w, s)] = ids[piece] as number
    })
  })
  const numbering = new Map<number, number>()
  const renumbered = out.map((c) => {
    if (c < 0) return -1
    if (!numbering.has(c)) numbering.set(c, numbering.size)
    return numbering.get(c) as number
  })
  const ranges = new Map<number, GridRange>()
  for (const [c, range] of owned) if (numbering.has(c)) ranges.set(numbering.get(c) as number, range)
  return { chains: renumbered, ranges }
}

function stretchesOf(
  audio: Float32Array,
  local: LocalSpeakers,
  track: ChainTrack,
  embedder: SpeakerEmbedder,
  opts: ChainSplitOptions,
): Stretch[] {
  const step = local.segmenter.frameStep
  const length = Math.max(1, Math.round(opts.stretchSeconds / step))
  const half = Math.round((step * 16_000) / 2)
  const stretches: Stretch[] = []
  for (let from = 0; from < track.solo.length; from += length) {
    const to = Math.min(track.solo.length, from + length)
    const pieces: Float32Array[] = []
    for (let f = from; f < to; f++) {
      if (!track.solo[f]) continue
      const middle = frameSample(local, track.start + f)
      pieces.push(audio.subarray(Math.max(0, middle - half), Math.min(audio.length, middle + half)))
    }
    const seconds = pieces.length * step
    const embedding = seconds >= opts.minSeconds ? embedder.embed(concat(pieces, Float32Array)) : null
    stretches.push({ end: track.start + to, embedding, seconds })
  }
  return stretches
}

/** The least alike cut of stretches [from, to), if it scores under `cutBelow`; then the same on both sides. */
function bisect(
  stretches: readonly Stretch[],
  from: number,
  to: number,
  by: { score: (left: Float32Array, right: Float32Array) => number; cutBelow: number },
  cuts: number[],
) {
  const embedded = stretches.slice(from, to).filter((s) => s.embedding)
  if (embedded.length < 2) return
  const dimension = ((embedded[0] as Stretch).embedding as Float32Array).length
  // Seconds-weighted sums of the stretches' embeddings: the left side grows as the cut moves right.
  const left = new Float32Array(dimension)
  const right = new Float32Array(dimension)
  for (const s of embedded) add(right, s, 1)
  let leftCount = 0
  let least = Number.POSITIVE_INFINITY
  let at = -1
  for (let i = from + 1; i < to; i++) {
    const moved = stretches[i - 1] as Stretch
    if (moved.embedding) {
      add(left, moved, 1)
      add(right, moved, -1)
      leftCount++
    }
    if (leftCount === 0 || leftCount === embedded.length) continue
    const score = by.score(left, right)
    if (score < least) {
      least = score
      at = i
    }
  }
  if (at < 0 || least >= by.cutBelow) return
  cuts.push(at)
  bisect(stretches, from, at, by, cuts)
  bisect(stretches, at, to, by, cuts)
}

function add(sum: Float32Array, { embedding, seconds }: Stretch, sign: number) {
  const e = embedding as Float32Array
  for (let d = 0; d < e.length; d++) sum[d] = (sum[d] as number) + sign * seconds * (e[d] as number)
}
