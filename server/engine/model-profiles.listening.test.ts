/**
 * The three 0.8 models heard through eSpeak: the same voice and text, measured. Mini renders as the engine always
 * has; micro and nano are quicker, flatter and duller in that order (model-profiles.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { concat } from '../../core/concat.ts'
import { LEGACY_MODELS } from '../../schema/index.ts'
import { createEspeakSynthesizer } from './espeak/pool.ts'
import { soundFeatures, speechFeatures } from './markup/features.ts'
import { speak } from './speak.ts'
import type { Synthesizer } from './synthesizer.ts'
import { voiceParamsFor } from './voice-params.ts'

const RATE = 24_000
const TEXT =
  'I never thought it would end like this, after all these years together. We walked the long road home, and nobody said a word.'

let synth: Synthesizer
beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 2 })
})
afterAll(() => synth.close())

async function listen(voiceId: string, model: string | undefined) {
  const voice = voiceParamsFor(voiceId)
  if (!voice) throw new Error(`${voiceId} is a catalog voice`)
  const parts: Int16Array[] = []
  for await (const c of speak(synth, {
    text: TEXT,
    voice,
    language: 'en-US',
    speed: 1,
    markup: false,
    maxNewTokens: null,
    model,
  }))
    parts.push(c)
  const pcm = concat(parts, Int16Array)
  return { pcm, ...speechFeatures(pcm, RATE), centroidHz: soundFeatures(pcm, RATE).centroidHz }
}

describe('the 0.8 models', () => {
  for (const voiceId of ['Bella', 'Jasper']) {
    it(`${voiceId}: mini, micro and nano differ in pacing, melody and brightness, in that order`, {
      timeout: 240_000,
    }, async () => {
      const [nano, micro, mini] = await Promise.all(LEGACY_MODELS.map((m) => listen(voiceId, m)))
      if (!nano || !micro || !mini) throw new Error('three models')
      // Pacing: each smaller model at least 5 % quicker.
      expect(mini.activeSeconds / micro.activeSeconds).toBeGreaterThan(1.05)
      expect(micro.activeSeconds / nano.activeSeconds).toBeGreaterThan(1.05)
      // F0 smoothing: each smaller model's melody at least 0.7 semitone narrower.
      expect(mini.rangeSemitones - micro.rangeSemitones).toBeGreaterThan(0.7)
      expect(micro.rangeSemitones - nano.rangeSemitones).toBeGreaterThan(0.7)
      // Spectral smoothing: a lower spectral centroid.
      expect(micro.centroidHz).toBeLessThan(mini.centroidHz)
      expect(nano.centroidHz).toBeLessThan(micro.centroidHz)
    })
  }

  it('mini renders exactly as the engine does without a model', async () => {
    const mini = await listen('Bella', 'svc-tts-mini-0.8')
    const plain = await listen('Bella', undefined)
    expect(mini.pcm.length).toBe(plain.pcm.length)
    expect(mini.pcm.every((s, i) => s === plain.pcm[i])).toBe(true)
  })
})
