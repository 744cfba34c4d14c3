import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { concat } from '../../../core/concat.ts'
import { wavFile } from '../../testing/spoken-audio.ts'
import { decodeAudio } from '../codecs/decode.ts'
import { createEspeakSynthesizer } from '../espeak/pool.ts'
import { summarizePitch, trackPitch } from '../markup/pitch.ts'
import { speak } from '../speak.ts'
import type { Synthesizer, VoiceParams } from '../synthesizer.ts'
import { voiceParamsFor } from '../voice-params.ts'
import { averageEnvelope, bestFormantScale, FormantWarper } from './envelope.ts'
import { prepareVoice } from './prepare.ts'

/** The cloning approximation, measured: formant scaling keeps pitch, its estimate finds known scales, and a
 * prepared voice lands near its reference's pitch. */

let synth: Synthesizer
const TEXT =
  'The quick brown fox jumps over the lazy dog near the river bank, while birds sing in the tall trees.'
const OTHER = 'Please send the quarterly report to the finance team before Friday afternoon.'

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
})
afterAll(() => synth.close())

async function say(voice: VoiceParams, text = TEXT): Promise<Int16Array> {
  const chunks: Int16Array[] = []
  for await (const c of synth.synthesize({ text, voice, speed: 1 })) chunks.push(c)
  return concat(chunks, Int16Array)
}
const male: VoiceParams = { espeakVoice: 'en-us+m1', pitch: 50, range: 50, rate: 175 }
const warp = (pcm: Int16Array, scale: number, chunk = 3000) => {
  const w = new FormantWarper(scale)
  const out: Int16Array[] = []
  for (let i = 0; i < pcm.length; i += chunk) out.push(w.push(pcm.subarray(i, i + chunk)))
  out.push(w.flush())
  return concat(out, Int16Array)
}
const medianHz = (pcm: Int16Array, rate = 24_000) => summarizePitch(trackPitch(pcm, rate)).medianHz
const semitones = (a: number, b: number) => Math.abs(12 * Math.log2(a / b))

describe('formant scaling', () => {
  it('is transparent at scale 1 and keeps the length, whatever the chunking', async () => {
    const pcm = await say(male)
    for (const chunk of [1, 480, 7000]) {
      const out = warp(pcm, 1, chunk)
      expect(out.length).toBe(pcm.length)
      let signal = 0
      let noise = 0
      // The first frame lacks its overlap partners; compare past it.
      for (let i = 1024; i < pcm.length; i++) {
        signal += (pcm[i] as number) ** 2
        noise += ((out[i] as number) - (pcm[i] as number)) ** 2
      }
      expect(10 * Math.log10(signal / noise)).toBeGreaterThan(30)
    }
  }, 30_000)

  it('moves the envelope but not the pitch', async () => {
    const pcm = await say(male)
    for (const scale of [0.85, 1.2]) {
      const out = warp(pcm, scale)
      expect(semitones(medianHz(out), medianHz(pcm))).toBeLessThan(0.5)
      expect(
        Math.abs(bestFormantScale(averageEnvelope(out, 24_000), averageEnvelope(pcm, 24_000)) - scale),
      ).toBeLessThan(0.04)
    }
  }, 30_000)

  it('finds a known scale on different words than the base voice spoke', async () => {
    const base = averageEnvelope(await say(male), 24_000)
    for (const scale of [0.88, 1, 1.12]) {
      const reference = warp(await say(male, OTHER), scale)
      expect(
        Math.abs(bestFormantScale(averageEnvelope(reference, 24_000), base) - scale),
      ).toBeLessThanOrEqual(0.03)
    }
  }, 60_000)
})

describe('speak() with a formant scale', () => {
  it('renders the voice with its envelope moved by the scale', async () => {
    const render = async (voice: VoiceParams) => {
      const chunks: Int16Array[] = []
      for await (const c of speak(synth, {
        text: TEXT,
        voice,
        language: 'en-US',
        speed: 1,
        markup: false,
        maxNewTokens: null,
      }))
        chunks.push(c)
      return averageEnvelope(concat(chunks, Int16Array), 24_000)
    }
    const scaled = await render({ ...male, formantScale: 1.15 })
    expect(Math.abs(bestFormantScale(scaled, await render(male)) - 1.15)).toBeLessThanOrEqual(0.03)
  }, 30_000)
})

describe('prepareVoice', () => {
  it('brings the rendered voice within two semitones of each reference speaker', async () => {
    for (const id of ['marcus_deep_male_21', 'english_40', 'amber_warm_female_18', 'pixie_06']) {
      const reference = await say(voiceParamsFor(id) as VoiceParams)
      const audio16k = (await decodeAudio(wavFile(reference), { targetRate: 16_000 })).samples
      const { params } = await prepareVoice(synth, { audio: audio16k, sampleRate: 16_000, language: 'en-US' })
      const clone = await say(params, OTHER)
      expect(semitones(medianHz(clone), medianHz(reference)), id).toBeLessThan(2)
    }
  }, 120_000)

  it('speaks the language of its tag', async () => {
    const audio = (await decodeAudio(wavFile(await say(male)), { targetRate: 16_000 })).samples
    const german = await prepareVoice(synth, { audio, sampleRate: 16_000, language: 'de-DE' })
    expect(german.params.espeakVoice).toMatch(/^de\+/)
    const unknown = await prepareVoice(synth, { audio, sampleRate: 16_000, language: 'sw' })
    expect(unknown.params.espeakVoice).toMatch(/^en-us\+/)
  }, 60_000)
})
