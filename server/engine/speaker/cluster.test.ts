import { describe, expect, it } from 'vitest'
import { whiteNoise } from '../markup/dsp.ts'
import { clusterEmbeddings } from './cluster.ts'

/** `perGroup` noisy copies of each of `groups` random directions in 20 dimensions, interleaved. */
function groupedVectors(groups: number, perGroup: number) {
  const noise = whiteNoise(7)
  const centres = Array.from({ length: groups }, () => Float32Array.from({ length: 20 }, () => noise()))
  const vectors: Float32Array[] = []
  const truth: number[] = []
  for (let i = 0; i < perGroup; i++) {
    centres.forEach((centre, g) => {
      vectors.push(centre.map((x) => x + 0.3 * noise()))
      truth.push(g)
    })
  }
  return { vectors, truth, weights: vectors.map(() => 1) }
}

describe('clusterEmbeddings', () => {
  const { vectors, truth, weights } = groupedVectors(3, 6)

  it('finds the groups when the count is estimated', () => {
    const labels = clusterEmbeddings(vectors, weights, { threshold: 0.5 })
    expect(labels).toEqual(truth)
  })

  it('gives exactly numSpeakers clusters', () => {
    for (const numSpeakers of [1, 2, 3, 5]) {
      const labels = clusterEmbeddings(vectors, weights, { numSpeakers, threshold: 0.5 })
      expect(new Set(labels).size).toBe(numSpeakers)
    }
  })

  it('keeps the estimate within minSpeakers and maxSpeakers', () => {
    expect(new Set(clusterEmbeddings(vectors, weights, { threshold: 0.5, maxSpeakers: 2 })).size).toBe(2)
    expect(new Set(clusterEmbeddings(vectors, weights, { threshold: 0.5, minSpeakers: 4 })).size).toBe(4)
    expect(
      new Set(clusterEmbeddings(vectors, weights, { threshold: 0.5, minSpeakers: 2, maxSpeakers: 5 })).size,
    ).toBe(3)
  })

  it('numbers clusters by first appearance and never asks for more clusters than items', () => {
    const labels = clusterEmbeddings(vectors.slice(0, 2), [1, 1], { numSpeakers: 4, threshold: 0.5 })
    expect(labels).toEqual([0, 1])
  })
})
