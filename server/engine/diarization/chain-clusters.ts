import { type SpeakerCount, speakerBounds } from './diarizer.ts'
import type { ChainTrack } from './reidentify.ts'

/**
 * Chains of local speakers grouped into the recording's speakers: average-linkage agglomeration over the chains'
 * same-speaker scores, never joining two chains heard as different speakers of one window, until no pair scores
 * `threshold` or more — or, with a count given, until that count is reached. Joins a count forces on groups that
 * score as different people take the least-heard group each time, so the fewest seconds go to someone else. Chains
 * too small to be scored then join a speaker by time (joinSmallChains).
 */

export interface ChainClusterOptions extends SpeakerCount {
  /** Score (0–1) from which two groups of chains are one speaker. */
  threshold: number
  /** Seconds heard of each chain; without them every chain weighs the same. */
  seconds?: ArrayLike<number>
}

/**
 * `similarity[a][b]`: the score of chains a and b (NaN: not compared); `apart[a][b]`: the two shared a window as
 * different speakers. Returns each chain's cluster, numbered from 0.
 */
export function clusterChains(
  similarity: readonly Float64Array[],
  apart: readonly Uint8Array[],
  opts: ChainClusterOptions,
): Int32Array {
  const n = similarity.length
  let groups = Array.from({ length: n }, (_, i) => [i])
  const { least, most } = speakerBounds(opts)
  const linkage = (x: number[], y: number[]) => {
    let sum = 0
    let known = 0
    for (const a of x)
      for (const b of y) {
        if ((apart[a] as Uint8Array)[b]) return Number.NEGATIVE_INFINITY
        const s = (similarity[a] as Float64Array)[b] as number
        if (Number.isNaN(s)) continue
        sum += s
        known++
      }
    // Never compared: joined only when a count demands it.
    return known > 0 ? sum / known : -1
  }
  while (groups.length > least) {
    let best = Number.NEGATIVE_INFINITY
    let pair: [number, number] | null = null
    for (let i = 0; i < groups.length; i++)
      for (let j = i + 1; j < groups.length; j++) {
        const score = linkage(groups[i] as number[], groups[j] as number[])
        if (pair === null || score > best) {
          best = score
          pair = [i, j]
        }
      }
    if (!pair) break
    const mustMerge = groups.length > most
    if (!mustMerge && best < opts.threshold) break
    if (best < opts.threshold) pair = forcedPair(groups, linkage, opts.seconds)
    const [i, j] = pair
    groups[i] = [...(groups[i] as number[]), ...(groups[j] as number[])]
    groups = groups.filter((_, k) => k !== j)
  }
  const out = new Int32Array(n)
  groups.forEach((g, id) => {
    for (const c of g) out[c] = id
  })
  return out
}

/** The least-heard group and the group it is most like (heard apart from all of them: the first). */
function forcedPair(
  groups: number[][],
  linkage: (x: number[], y: number[]) => number,
  seconds?: ArrayLike<number>,
): [number, number] {
  const weight = (g: number[]) => g.reduce((t, c) => t + (seconds ? (seconds[c] as number) : 1), 0)
  const least = groups.reduce((a, g, i) => (weight(g) < weight(groups[a] as number[]) ? i : a), 0)
  let partner = -1
  let best = Number.NEGATIVE_INFINITY
  groups.forEach((g, i) => {
    if (i === least) return
    const score = linkage(groups[least] as number[], g)
    if (partner < 0 || score > best) [partner, best] = [i, score]
  })
  return least < partner ? [least, partner] : [partner, least]
}

/**
 * Each chain too small to be compared with the others (under a second of solo speech is too little voice for an
 * embedding), the most active first, goes to the speaker heard nearest it in time among those it never shared a
 * window with as another local speaker (the more active on a tie). A chain every speaker shared a window with
 * (someone who talks mostly over others) is a speaker of its own when it is active for `minSpeakerSeconds`, and is
 * left out when shorter — unless `most` speakers are found already: then any speaker may take it, and a count
 * given is never exceeded. Short of the count asked for, the most active small chains are speakers of their own.
 * Fills in `speakerOfChain` (−1: not yet any speaker's) where the compared chains' speakers are already set.
 */
export function joinSmallChains(
  tracks: readonly ChainTrack[],
  compared: number[],
  speakerOfChain: Int32Array,
  apart: Uint8Array[],
  activeSeconds: Float64Array,
  { wanted, most, minSpeakerSeconds }: { wanted: number; most: number; minSpeakerSeconds: number },
): void {
  const members = new Map<number, number[]>()
  for (const c of compared)
    members.set(speakerOfChain[c] as number, [...(members.get(speakerOfChain[c] as number) ?? []), c])
  const talk = (speaker: number) =>
    (members.get(speaker) ?? []).reduce((t, c) => t + (activeSeconds[c] as number), 0)
  /** Grid frames between the spans of chains a and b (0 where they overlap). */
  const gap = (a: number, b: number) => {
    const [x, y] = [tracks[a] as ChainTrack, tracks[b] as ChainTrack]
    return Math.max(0, y.start - (x.start + x.heard.length), x.start - (y.start + y.heard.length))
  }
  const small = tracks
    .map((_, c) => c)
    .filter((c) => (speakerOfChain[c] as number) < 0)
    .sort((a, b) => (activeSeconds[b] as number) - (activeSeconds[a] as number))
  for (const c of small) {
    let speaker: number | undefined
    if (members.size < wanted) speaker = Math.max(-1, ...members.keys()) + 1
    else {
      const neverWith = [...members.keys()].filter((s) =>
        (members.get(s) as number[]).every((other) => !(apart[c] as Uint8Array)[other]),
      )
      const candidates = neverWith.length === 0 && members.size >= most ? [...members.keys()] : neverWith
      const distance = (s: number) => Math.min(...(members.get(s) as number[]).map((o) => gap(c, o)))
      speaker = candidates.reduce<number | undefined>((best, s) => {
        if (best === undefined) return s
        const [d, e] = [distance(s), distance(best)]
        return d < e || (d === e && talk(s) > talk(best)) ? s : best
      }, undefined)
      if (speaker === undefined) {
        if ((activeSeconds[c] as number) < minSpeakerSeconds) continue
        speaker = Math.max(-1, ...members.keys()) + 1
      }
    }
    speakerOfChain[c] = speaker
    members.set(speaker, [...(members.get(speaker) ?? []), c])
  }
}
