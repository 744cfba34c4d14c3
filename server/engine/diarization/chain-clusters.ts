/**
 * Chains of local speakers grouped into the recording's speakers: average-linkage agglomeration over the model's
 * same-speaker scores, never joining two chains heard as different speakers of one window, until no pair scores
 * `threshold` or more — or, with a count given, until that count is reached. Joins a count forces on groups that
 * score as different people take the least-heard group each time, so the fewest seconds go to someone else.
 */

export interface ChainClusterOptions {
  /** Score (0–1) from which two groups of chains are one speaker. */
  threshold: number
  numSpeakers?: number
  minSpeakers?: number
  maxSpeakers?: number
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
  const least = Math.max(1, opts.numSpeakers ?? opts.minSpeakers ?? 1)
  const most = Math.max(least, opts.numSpeakers ?? opts.maxSpeakers ?? Number.POSITIVE_INFINITY)
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
