import { describe, expect, it } from 'vitest'
import { mulberry32 } from '../markup/dsp.ts'
import { cosineSimilarity } from './embedder.ts'
import { GMM_FEATURES, normalizeColumns, supervector, supervectorWithHalves, voiceChange } from './gmm.ts'
import { SPEAKER_MODEL } from './speaker-model.ts'

/** `count` rows of features whose mean moves from `from` to `to` at row `change` (a voice changing), normalised. */
function rows(count: number, change: number, seed: number): { values: Float64Array; count: number } {
  const random = mulberry32(seed)
  const values = new Float64Array(count * GMM_FEATURES)
  for (let n = 0; n < count; n++)
    for (let d = 0; d < GMM_FEATURES; d++) {
      const shift = n < change ? 0 : d % 3 === 0 ? 1.5 : -0.5
      values[n * GMM_FEATURES + d] = random() + random() + random() - 1.5 + shift
    }
  normalizeColumns(values, count)
  return { values, count }
}

const adapt = (features: { values: Float64Array }, from: number, to: number) =>
  supervector(
    SPEAKER_MODEL,
    { values: features.values.subarray(from * GMM_FEATURES, to * GMM_FEATURES), count: to - from },
    8,
  )

/** The same search done the plain way: both sides of every split, then the halves of each, adapted from scratch. */
function bruteForce(features: { values: Float64Array; count: number }, minRows: number, stepRows: number) {
  let across = 1
  let at = 0
  for (let split = minRows; split <= features.count - minRows; split += stepRows) {
    const similarity = cosineSimilarity(adapt(features, 0, split), adapt(features, split, features.count))
    if (similarity < across) [across, at] = [similarity, split]
  }
  const half = (from: number, to: number) =>
    cosineSimilarity(adapt(features, from, (from + to) >> 1), adapt(features, (from + to) >> 1, to))
  return { across, within: (half(0, at) + half(at, features.count)) / 2 }
}

const OPTIONS = { minRows: 100, stepRows: 10, relevance: 8 }

describe('voiceChange', () => {
  it('equals adapting both sides of every split, and their halves, from scratch', () => {
    for (const seed of [1, 2]) {
      const features = rows(260, 140, seed)
      const swept = voiceChange(SPEAKER_MODEL, features, OPTIONS)
      const plain = bruteForce(features, 100, 10)
      expect(swept?.across).toBeCloseTo(plain.across, 5)
      expect(swept?.within).toBeCloseTo(plain.within, 5)
    }
  })

  it('is less alike across a change than within either side, and across no change', () => {
    const steady = voiceChange(SPEAKER_MODEL, rows(300, 300, 3), OPTIONS)
    const changed = voiceChange(SPEAKER_MODEL, rows(300, 150, 3), OPTIONS)
    expect(changed?.across).toBeLessThan((steady?.across ?? 1) - 0.2)
    expect(changed?.across).toBeLessThan((changed?.within ?? 1) - 0.2)
  })

  it('is null when no split leaves enough rows on both sides', () => {
    expect(voiceChange(SPEAKER_MODEL, rows(150, 75, 4), OPTIONS)).toBeNull()
  })
})

describe('supervectorWithHalves', () => {
  it('equals adapting the whole and each half from scratch', () => {
    const features = rows(201, 120, 5)
    const { vector, halves } = supervectorWithHalves(SPEAKER_MODEL, features, 8)
    const whole = adapt(features, 0, 201)
    expect(cosineSimilarity(vector, whole)).toBeCloseTo(1, 6)
    vector.forEach((x, i) => {
      expect(x).toBeCloseTo(whole[i] as number, 4)
    })
    expect(halves).toBeCloseTo(cosineSimilarity(adapt(features, 0, 100), adapt(features, 100, 201)), 5)
  })
})
