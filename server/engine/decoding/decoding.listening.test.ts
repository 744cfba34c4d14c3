/**
 * Decoding heard through the real eSpeak NG engine: takes of one text rendered by `speak`, measured instead of heard
 * (duration, median F0 and pitch range with the YIN tracker). Seeded randomness makes each run reproducible; the
 * engine itself starts every job from the same state, so equal plans give equal samples.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { concat } from '../../../core/concat.ts'
import { MODE_PRESETS } from '../../../schema/index.ts'
import { createEspeakSynthesizer } from '../espeak/pool.ts'
import { type SpeechFeatures, speechFeatures } from '../markup/features.ts'
import { AUDIO_TOKENS_PER_SECOND, type SpeakRequest, speak } from '../speak.ts'
import type { Synthesizer } from '../synthesizer.ts'
import { voiceParamsFor } from '../voice-params.ts'
import { type DecodingSettings, seededRandom } from './sampler.ts'

const RATE = 24_000
const SLOW = 240_000
const TEXT =
  'I never thought it would end like this, after all these years together. We walked the long road home, and nobody said a word.'
const english = voiceParamsFor('english_40')
if (!english) throw new Error('english_40 is a catalog voice')

let synth: Synthesizer
beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 2 })
})
afterAll(() => synth.close())

async function render(req: Partial<SpeakRequest>): Promise<Int16Array> {
  const parts: Int16Array[] = []
  for await (const chunk of speak(synth, {
    text: TEXT,
    voice: english as NonNullable<typeof english>,
    language: 'en-US',
    speed: 1,
    markup: true,
    maxNewTokens: null,
    ...req,
  }))
    parts.push(chunk)
  return concat(parts, Int16Array)
}

const open = (temperature: number): DecodingSettings => ({ temperature, top_k: 0, top_p: 1, min_p: 0 })
const sd = (values: number[]) => {
  const mean = values.reduce((a, v) => a + v, 0) / values.length
  return Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (values.length - 1))
}

/** How much takes differ: spread of speaking time (relative) and of median F0 (semitones). */
function spread(takes: SpeechFeatures[]) {
  const meanSeconds = takes.reduce((a, f) => a + f.activeSeconds, 0) / takes.length
  return {
    time: sd(takes.map((f) => f.activeSeconds)) / meanSeconds,
    pitch: sd(takes.map((f) => 12 * Math.log2(f.medianF0 / 100))),
  }
}

async function takes(decoding: DecodingSettings, n: number, seed: number) {
  const random = seededRandom(seed)
  const out: SpeechFeatures[] = []
  for (let i = 0; i < n; i++) out.push(speechFeatures(await render({ decoding, random }), RATE))
  return out
}

describe('takes rendered by eSpeak', () => {
  it('are sample-for-sample identical with top_k 1', { timeout: SLOW }, async () => {
    const greedy = { ...MODE_PRESETS.expressive, top_k: 1 }
    const a = await render({ decoding: greedy, random: seededRandom(1) })
    const b = await render({ decoding: greedy, random: Math.random })
    expect(a.length).toBeGreaterThan(RATE * 4)
    expect(b.length).toBe(a.length)
    expect(b.every((s, i) => s === a[i])).toBe(true)
  })

  it('are fresh takes at the presets: no two alike', { timeout: SLOW }, async () => {
    const rendered = [
      await render({ decoding: MODE_PRESETS.expressive }),
      await render({ decoding: MODE_PRESETS.expressive }),
      await render({ decoding: MODE_PRESETS.stable }),
    ]
    const same = (x: Int16Array, y: Int16Array) => x.length === y.length && x.every((s, i) => s === y[i])
    expect(same(rendered[0] as Int16Array, rendered[1] as Int16Array)).toBe(false)
    expect(same(rendered[1] as Int16Array, rendered[2] as Int16Array)).toBe(false)
  })

  it('vary more the higher the temperature', { timeout: SLOW }, async () => {
    const cold = spread(await takes(open(0.3), 6, 21))
    const warm = spread(await takes(open(1), 6, 21))
    const hot = spread(await takes(open(2), 6, 21))
    expect(warm.time).toBeGreaterThan(cold.time)
    expect(hot.time).toBeGreaterThan(warm.time)
    expect(hot.pitch).toBeGreaterThan(cold.pitch)
    expect(hot.pitch).toBeGreaterThan(warm.pitch)
  })

  it('degrade at a high temperature with no filters, and the filters restore them', {
    timeout: SLOW,
  }, async () => {
    const plain = speechFeatures(await render({}), RATE)
    const wild = await takes(open(2), 4, 5)
    const tamed = await takes({ ...open(2), top_k: 3, top_p: 0.8 }, 4, 5)
    const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length
    // Garbled: long gaps between words stretch the speech, and the melody jumps by several semitones.
    expect(mean(wild.map((f) => f.activeSeconds))).toBeGreaterThan(plain.activeSeconds * 1.2)
    expect(mean(wild.map((f) => f.rangeSemitones))).toBeGreaterThan(plain.rangeSemitones + 1)
    expect(mean(tamed.map((f) => f.activeSeconds))).toBeLessThan(plain.activeSeconds * 1.1)
    expect(mean(tamed.map((f) => f.rangeSemitones))).toBeLessThan(plain.rangeSemitones + 1)
  })

  it('run to the token cap with greedy decoding when the text breaks off (contract 2.8 rule 7)', {
    timeout: SLOW,
  }, async () => {
    const text = 'and so we kept on walking down the road'
    const cap = 500
    const greedy = await render({ text, decoding: { ...MODE_PRESETS.stable, top_k: 1 }, maxNewTokens: cap })
    const sampled = await render({
      text,
      decoding: MODE_PRESETS.stable,
      maxNewTokens: cap,
      random: seededRandom(2),
    })
    expect(greedy.length).toBe((cap / AUDIO_TOKENS_PER_SECOND) * RATE)
    expect(sampled.length).toBeLessThan(greedy.length / 3)
    // What fills the cap is silence after the words.
    expect(greedy.subarray(sampled.length + RATE).every((s) => s === 0)).toBe(true)
  })

  it('leave rendering without decoding as it was: deterministic and unsampled', {
    timeout: SLOW,
  }, async () => {
    const a = await render({})
    const b = await render({ random: seededRandom(99) })
    expect(b.every((s, i) => s === a[i]) && a.length === b.length).toBe(true)
  })
})
