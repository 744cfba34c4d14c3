import { describe, expect, it } from 'vitest'
import { whiteNoise } from '../markup/dsp.ts'
import { type FrameMatrix, fitGmm, posteriors, prepare, refineGmm } from './gmm.ts'

/** `perGroup` rows around each centre (2-d), with unit-variance noise. */
function blobs(centres: [number, number][], perGroup: number[]): FrameMatrix {
  const noise = whiteNoise(3)
  const rows: number[] = []
  centres.forEach(([x, y], g) => {
    for (let i = 0; i < (perGroup[g] as number); i++) rows.push(x + noise() * 1.7, y + noise() * 1.7)
  })
  return { rows: rows.length / 2, dimension: 2, data: Float64Array.from(rows) }
}

describe('diagonal GMM', () => {
  const frames = blobs(
    [
      [-10, 0],
      [10, 5],
    ],
    [600, 200],
  )

  it('finds two separated groups: their means and shares', () => {
    const gmm = fitGmm(frames, { components: 2, iterations: 10 })
    const order = (gmm.means[0] as number) < (gmm.means[2] as number) ? [0, 1] : [1, 0]
    const [left, right] = order as [number, number]
    expect(gmm.means[left * 2]).toBeCloseTo(-10, 0)
    expect(gmm.means[right * 2]).toBeCloseTo(10, 0)
    expect(gmm.means[right * 2 + 1]).toBeCloseTo(5, 0)
    expect(gmm.weights[left]).toBeCloseTo(0.75, 1)
  })

  it('gives posteriors summing to one and the log-likelihood of a single Gaussian', () => {
    const single = fitGmm(frames, { components: 1, iterations: 1 })
    const model = prepare(single)
    const out = new Float64Array(1)
    const ll = posteriors(model, frames.data, 0, out)
    expect(out[0]).toBeCloseTo(1, 12)
    let expected = 0
    for (let j = 0; j < 2; j++) {
      const v = single.variances[j] as number
      expected +=
        -0.5 * Math.log(2 * Math.PI * v) -
        ((frames.data[j] as number) - (single.means[j] as number)) ** 2 / (2 * v)
    }
    expect(ll).toBeCloseTo(expected, 9)
    const two = prepare(fitGmm(frames, { components: 2, iterations: 10 }))
    const both = new Float64Array(2)
    posteriors(two, frames.data, 5, both)
    expect((both[0] as number) + (both[1] as number)).toBeCloseTo(1, 12)
  })

  it('never lowers the likelihood while refining, and keeps variances above the floor', () => {
    const rows = Array.from({ length: frames.rows }, (_, i) => i)
    const total = (gmm: ReturnType<typeof fitGmm>) => {
      const model = prepare(gmm)
      return rows.reduce((sum, r) => sum + posteriors(model, frames.data, r), 0)
    }
    const start = fitGmm(frames, { components: 3, iterations: 1 })
    const floor = Float64Array.of(2, 2)
    const refined = refineGmm(start, frames, rows, 5, floor)
    expect(total(refined)).toBeGreaterThanOrEqual(total(refineGmm(start, frames, rows, 1, floor)) - 1e-6)
    expect(Math.min(...refined.variances)).toBeGreaterThanOrEqual(2)
  })
})
