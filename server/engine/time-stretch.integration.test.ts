/**
 * Speed 0.25–4.0 (contract 2.1): tempo changes, pitch does not. Inside eSpeak's 80–450 wpm the engine sets the rate;
 * beyond it the time-stretch takes over. Measured on the real engine: speaking time from the first to the last
 * audible sample, median F0 with the YIN tracker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { concat } from '../../core/concat.ts'
import { createEspeakSynthesizer } from './espeak/pool.ts'
import { speechFeatures } from './markup/features.ts'
import { summarizePitch, trackPitch } from './markup/pitch.ts'
import { speak } from './speak.ts'
import type { Synthesizer } from './synthesizer.ts'
import { stretchTempo, TimeStretcher } from './time-stretch.ts'
import { voiceParamsFor } from './voice-params.ts'

const RATE = 24_000
const SLOW = 240_000

describe('stretchTempo', () => {
  it('is 1 inside eSpeak’s rates and makes up the rest outside them', () => {
    expect(stretchTempo(175, 1)).toBe(1)
    expect(stretchTempo(175, 2.5)).toBe(1)
    expect(stretchTempo(175, 4)).toBeCloseTo(700 / 450, 6)
    expect(stretchTempo(175, 0.25)).toBeCloseTo(43.75 / 80, 6)
    expect(stretchTempo(120, 0.5)).toBeCloseTo(60 / 80, 6)
  })
})

describe('TimeStretcher', () => {
  /** A voiced vowel-like signal at 150 Hz with a slow loudness contour, in uneven chunks. */
  const voiced = (() => {
    const n = RATE * 2
    const pcm = new Int16Array(n)
    for (let i = 0; i < n; i++) {
      const t = i / RATE
      const wave = Math.sin(2 * Math.PI * 150 * t) + 0.5 * Math.sin(2 * Math.PI * 300 * t + 1)
      pcm[i] = Math.round(9000 * wave * (0.6 + 0.4 * Math.sin(2 * Math.PI * 1.5 * t)))
    }
    return pcm
  })()

  for (const tempo of [0.4, 0.55, 1.6, 2.3]) {
    it(`stretches by 1/${tempo} and keeps the pitch`, () => {
      const stretcher = new TimeStretcher(tempo, RATE)
      const out: Int16Array[] = []
      for (let i = 0; i < voiced.length; i += 1000 + (i % 7) * 300)
        out.push(stretcher.push(voiced.subarray(i, i + 1000 + (i % 7) * 300)))
      out.push(stretcher.flush())
      const pcm = concat(out, Int16Array)
      expect(pcm.length).toBe(Math.round(voiced.length / tempo))
      const f0 = summarizePitch(trackPitch(pcm, RATE)).medianHz
      expect(Math.abs(12 * Math.log2(f0 / 150))).toBeLessThan(0.3)
    })
  }
})

describe('speed through speak', () => {
  let synth: Synthesizer
  beforeAll(async () => {
    synth = await createEspeakSynthesizer({ workers: 2 })
  })
  afterAll(() => synth.close())

  const TEXT = 'The quick brown fox jumps over the lazy dog, then rests in the shade of the old tree.'
  async function listen(voiceId: string, speed: number) {
    const voice = voiceParamsFor(voiceId)
    if (!voice) throw new Error(`${voiceId} is a catalog voice`)
    const parts: Int16Array[] = []
    for await (const c of speak(synth, {
      text: TEXT,
      voice,
      language: 'en-US',
      speed,
      markup: false,
      maxNewTokens: null,
    }))
      parts.push(c)
    return speechFeatures(concat(parts, Int16Array), RATE)
  }

  for (const voiceId of ['english_40', 'Bella']) {
    it(`${voiceId}: speaking time scales with 1/speed from 0.25 to 4.0 and median F0 stays within a semitone`, {
      timeout: SLOW,
    }, async () => {
      const normal = await listen(voiceId, 1)
      for (const speed of [0.25, 0.5, 2, 4]) {
        const heard = await listen(voiceId, speed)
        // eSpeak's own pauses do not scale exactly with its rate: within 15 % of the ideal tempo.
        const tempo = normal.activeSeconds / heard.activeSeconds
        expect(tempo / speed, `speed ${speed}: ${heard.activeSeconds.toFixed(2)} s`).toBeGreaterThan(0.85)
        expect(tempo / speed, `speed ${speed}: ${heard.activeSeconds.toFixed(2)} s`).toBeLessThan(1.15)
        expect(Math.abs(12 * Math.log2(heard.medianF0 / normal.medianF0)), `speed ${speed}`).toBeLessThan(1)
      }
    })
  }
})
