/**
 * Agglomerative clustering of speaker embeddings with average linkage on cosine similarity. The whole dendrogram is
 * built once; the number of speakers is then either the one asked for, or where merging would join clusters less
 * similar than the threshold, kept within the minimum and maximum asked for.
 */
import type { SpeakerCount } from '../diarization/diarizer.ts'
import { cosineSimilarity } from './embedder.ts'

export interface ClusterOptions extends SpeakerCount {
  /** Clusters whose average similarity is at least this are the same speaker when the count is not given. */
  threshold: number
}

interface Merge {
  a: number
  b: number
  similarity: number
}

/** A cluster index per embedding, numbered 0… in order of first appearance. */
export function clusterEmbeddings(
  embeddings: Float32Array[],
  weights: number[],
  opts: ClusterOptions,
): number[] {
  const n = embeddings.length
  if (n === 0) return []
  const merges = dendrogram(embeddings, weights)
  const count = clusterCount(merges, n, opts)
  // Replaying the first n − count merges with union-find leaves `count` clusters.
  const parent = Array.from({ length: n }, (_, i) => i)
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i] as number] as number
    return i
  }
  for (const merge of merges.slice(0, n - count)) parent[root(merge.b)] = root(merge.a)
  const numbering = new Map<number, number>()
  return embeddings.map((_, i) => {
    const r = root(i)
    if (!numbering.has(r)) numbering.set(r, numbering.size)
    return numbering.get(r) as number
  })
}

function clusterCount(merges: Merge[], n: number, opts: ClusterOptions): number {
  if (opts.numSpeakers !== undefined) return clamp(opts.numSpeakers, 1, n)
  // Average linkage never merges at a higher similarity than before, so the merges above threshold come first.
  const confident = merges.filter((m) => m.similarity >= opts.threshold).length
  const low = Math.max(1, opts.minSpeakers ?? 1)
  const high = Math.max(low, opts.maxSpeakers ?? n)
  return clamp(n - confident, Math.min(low, n), Math.min(high, n))
}

function clamp(x: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, x))
}

/** All n − 1 merges, most similar first, with sizes weighted by `weights` (e.g. seconds of speech). */
function dendrogram(embeddings: Float32Array[], weights: number[]): Merge[] {
  const n = embeddings.length
  const similarity = embeddings.map((a) => Float64Array.from(embeddings, (b) => cosineSimilarity(a, b)))
  const size = Float64Array.from(weights)
  const alive = new Set(embeddings.keys())
  const merges: Merge[] = []
  while (alive.size > 1) {
    let best: Merge = { a: -1, b: -1, similarity: Number.NEGATIVE_INFINITY }
    for (const a of alive) {
      const row = similarity[a] as Float64Array
      for (const b of alive) {
        if (b > a && (row[b] as number) > best.similarity) best = { a, b, similarity: row[b] as number }
      }
    }
    const { a, b } = best
    const wa = size[a] as number
    const wb = size[b] as number
    alive.delete(b)
    for (const k of alive) {
      if (k === a) continue
      const merged =
        (wa * ((similarity[a] as Float64Array)[k] as number) +
          wb * ((similarity[b] as Float64Array)[k] as number)) /
        (wa + wb)
      ;(similarity[a] as Float64Array)[k] = merged
      ;(similarity[k] as Float64Array)[a] = merged
    }
    size[a] = wa + wb
    merges.push(best)
  }
  return merges.length === n - 1 ? merges : []
}
