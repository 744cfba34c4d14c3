import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seededRandom } from './decoding/sampler.ts'
import { createEspeakSynthesizer } from './espeak/pool.ts'
import { speak } from './speak.ts'
import type { Synthesizer } from './synthesizer.ts'
import { voiceParamsFor } from './voice-params.ts'

/**
 * The local service's phoneme form `[[IPA]]` through the real pipeline and the real eSpeak NG: said as the phonemes
 * given (the same audio as eSpeak's own phoneme input), never as the word's usual pronunciation or as brackets, with
 * and without markup and sampled prosody.
 */

let synth: Synthesizer
const english = voiceParamsFor('english_40')
if (!english) throw new Error('english_40 is a catalog voice')

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
})
afterAll(() => synth.close())

async function pcm(iterable: AsyncIterable<Int16Array>): Promise<Int16Array> {
  const parts: Int16Array[] = []
  for await (const c of iterable) parts.push(c)
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const same = (a: Int16Array, b: Int16Array) => a.length === b.length && a.every((x, i) => x === b[i])
const base = { voice: english, language: 'en-US', speed: 1, markup: true, maxNewTokens: null }

describe('the phoneme form', () => {
  it('says the phonemes given: eSpeak’s own phoneme input, not the word as eSpeak reads it', async () => {
    const phonemes = await pcm(speak(synth, { ...base, text: 'A [[təˈmɑːtoʊ]] here.' }))
    const direct = await pcm(synth.synthesize({ text: "A [[t@'mA:toU]] here.", voice: english, speed: 1 }))
    const word = await pcm(speak(synth, { ...base, text: 'A tomato here.' }))
    expect(same(phonemes, direct)).toBe(true)
    expect(same(phonemes, word)).toBe(false)
  })

  it('keeps digits of the mnemonics from being read as numbers', async () => {
    // ɜː is eSpeak's "3:": read as "three" it would be a word longer.
    const world = await pcm(speak(synth, { ...base, text: '[[wɜːld]]' }))
    const direct = await pcm(synth.synthesize({ text: '[[w3:ld]]', voice: english, speed: 1 }))
    expect(same(world, direct)).toBe(true)
  })

  it('is never spoken as brackets or tag names, inside emotion, emphasis and sampled prosody', async () => {
    const decoding = { temperature: 0.9, top_k: 50, top_p: 0.9, min_p: 0 }
    for (const extra of [{}, { decoding, random: seededRandom(7) }]) {
      const withPhonemes = await pcm(
        speak(synth, { ...base, ...extra, text: '[sad] I want a (((big [[təˈmɑːtoʊ]]))), please.' }),
      )
      const withWord = await pcm(
        speak(synth, { ...base, ...extra, text: '[sad] I want a (((big tomato))), please.' }),
      )
      // Brackets or "slash prosody" read aloud would add well over a second.
      expect(Math.abs(withPhonemes.length - withWord.length)).toBeLessThan(0.35 * 24_000)
    }
  })

  it('drops a span with nothing English in it rather than reading it', async () => {
    const empty = await pcm(speak(synth, { ...base, text: 'Yes [[۝]] no.' }))
    const plain = await pcm(speak(synth, { ...base, text: 'Yes no.' }))
    expect(Math.abs(empty.length - plain.length)).toBeLessThan(0.2 * 24_000)
  })
})
