import { describe, expect, it } from 'vitest'
import {
  applyTemperature,
  type DecodingSettings,
  decodingDistribution,
  minP,
  sampleToken,
  seededRandom,
  softmax,
  topK,
  topP,
} from './sampler.ts'

const logitsOf = (probs: number[]) => probs.map(Math.log)
const off: DecodingSettings = { temperature: 1, top_k: 0, top_p: 1, min_p: 0 }
const closeTo = (actual: number[], expected: number[]) =>
  expected.forEach((p, i) => {
    expect(actual[i], `token ${i}`).toBeCloseTo(p, 6)
  })

describe('each filter on a known distribution', () => {
  const p = [0.5, 0.25, 0.15, 0.1]

  it('leaves the distribution alone when every control is neutral', () => {
    closeTo(decodingDistribution(logitsOf(p), off), p)
  })

  it('temperature sharpens below 1 and flattens above, as p^(1/T) renormalized', () => {
    const sharp = softmax(applyTemperature(logitsOf(p), 0.5))
    const total = p.reduce((a, x) => a + x ** 2, 0)
    closeTo(
      sharp,
      p.map((x) => x ** 2 / total),
    )
    const flat = softmax(applyTemperature(logitsOf(p), 2))
    const sqrtTotal = p.reduce((a, x) => a + Math.sqrt(x), 0)
    closeTo(
      flat,
      p.map((x) => Math.sqrt(x) / sqrtTotal),
    )
    expect(flat[0]).toBeLessThan(p[0] as number)
    expect(sharp[0]).toBeGreaterThan(p[0] as number)
  })

  it('top_k keeps the k likeliest; 0 disables it', () => {
    closeTo(softmax(topK(logitsOf(p), 2)), [0.5 / 0.75, 0.25 / 0.75, 0, 0])
    closeTo(softmax(topK(logitsOf(p), 0)), p)
    closeTo(softmax(topK(logitsOf(p), 1)), [1, 0, 0, 0])
  })

  it('top_p keeps the smallest set holding that mass; 1.0 disables it', () => {
    // 0.5 < 0.7, 0.75 ≥ 0.7: two tokens.
    closeTo(softmax(topP(logitsOf(p), 0.7)), [2 / 3, 1 / 3, 0, 0])
    // Exactly 0.9 after three tokens: the set stops there.
    closeTo(softmax(topP(logitsOf(p), 0.9)), [0.5 / 0.9, 0.25 / 0.9, 0.15 / 0.9, 0])
    closeTo(softmax(topP(logitsOf(p), 1)), p)
  })

  it('min_p drops tokens under that fraction of the likeliest; 0 disables it', () => {
    // Threshold 0.25 × 0.5 = 0.125: 0.1 goes.
    closeTo(softmax(minP(logitsOf(p), 0.25)), [0.5 / 0.9, 0.25 / 0.9, 0.15 / 0.9, 0])
    closeTo(softmax(minP(logitsOf(p), 0.5)), [0.5 / 0.75, 0.25 / 0.75, 0, 0])
    closeTo(softmax(minP(logitsOf(p), 0)), p)
  })
})

describe('the order: temperature, top_k, top_p, min_p', () => {
  it('applies temperature before top_p', () => {
    // At T=0.5 the head holds 0.658 of the mass and top_p 0.6 keeps it alone; on the raw distribution top_p would
    // have kept two tokens (0.5 < 0.6).
    const p = [0.5, 0.3, 0.2]
    const d = decodingDistribution(logitsOf(p), { ...off, temperature: 0.5, top_p: 0.6 })
    closeTo(d, [1, 0, 0])
    closeTo(softmax(topP(logitsOf(p), 0.6)), [0.5 / 0.8, 0.3 / 0.8, 0])
  })

  it('applies top_k before top_p: top_p measures mass within the k kept', () => {
    // top_k 2 renormalizes to [0.625, 0.375]; top_p 0.6 then keeps one token. top_p first would keep two.
    const p = [0.5, 0.3, 0.2]
    closeTo(decodingDistribution(logitsOf(p), { ...off, top_k: 2, top_p: 0.6 }), [1, 0, 0])
    closeTo(softmax(topK(topP(logitsOf(p), 0.6), 2)), [0.5 / 0.8, 0.3 / 0.8, 0])
  })

  it('applies min_p last, relative to the likeliest token after the others', () => {
    // T=2 flattens [0.63, 0.2, 0.17] to about [0.48, 0.27, 0.25]: min_p 0.5 then keeps all three. Before
    // temperature, both 0.2 and 0.17 are under 0.315 and would have gone.
    const p = [0.63, 0.2, 0.17]
    const d = decodingDistribution(logitsOf(p), { ...off, temperature: 2, min_p: 0.5 })
    expect(d.filter((x) => x > 0)).toHaveLength(3)
    expect(softmax(minP(logitsOf(p), 0.5)).filter((x) => x > 0)).toHaveLength(1)
  })

  it('combines all four', () => {
    const p = [0.3, 0.25, 0.2, 0.12, 0.08, 0.05]
    // T=1 keeps p; top_k 5 drops 0.05; top_p 0.8 of the renormalized five keeps four (0.3+0.25+0.2 = 0.75/0.95 =
    // 0.79 < 0.8, +0.12 → 0.92); min_p 0.5 then drops 0.12 (< 0.15).
    const d = decodingDistribution(logitsOf(p), { temperature: 1, top_k: 5, top_p: 0.8, min_p: 0.5 })
    closeTo(d, [0.3 / 0.75, 0.25 / 0.75, 0.2 / 0.75, 0, 0, 0])
  })
})

describe('sampleToken', () => {
  it('draws with the filtered frequencies', () => {
    const p = [0.5, 0.25, 0.15, 0.1]
    const random = seededRandom(1)
    const counts = [0, 0, 0, 0]
    const n = 20_000
    const settings = { temperature: 1, top_k: 3, top_p: 1, min_p: 0 }
    for (let i = 0; i < n; i++) {
      const t = sampleToken(logitsOf(p), settings, random)
      counts[t] = (counts[t] ?? 0) + 1
    }
    const expected = [0.5 / 0.9, 0.25 / 0.9, 0.15 / 0.9, 0]
    // Binomial standard error at n = 20,000 is under 0.004; 0.015 is about four of them.
    counts.forEach((c, i) => {
      expect(Math.abs(c / n - (expected[i] ?? 0)), `token ${i}`).toBeLessThan(0.015)
    })
    expect(counts[3]).toBe(0)
  })

  it('is greedy with top_k 1 whatever the randomness', () => {
    const logits = logitsOf([0.2, 0.45, 0.35])
    const drawn = new Set(
      Array.from({ length: 200 }, () =>
        sampleToken(logits, { ...off, top_k: 1, temperature: 2 }, Math.random),
      ),
    )
    expect([...drawn]).toEqual([1])
  })

  it('breaks ties by vocabulary order, so greedy decoding is reproducible', () => {
    expect(softmax(topK([0, 0, -1], 1))).toEqual([1, 0, 0])
  })

  it('gives reproducible draws from a seed', () => {
    const a = seededRandom(9)
    const b = seededRandom(9)
    const logits = logitsOf([0.4, 0.3, 0.2, 0.1])
    const take = (r: () => number) => Array.from({ length: 50 }, () => sampleToken(logits, off, r))
    expect(take(a)).toEqual(take(b))
    expect(new Set(take(seededRandom(10))).size).toBeGreaterThan(2)
  })
})
