/**
 * Listening tests: the markup plan rendered by the real eSpeak NG engine, measured instead of heard. "Audible" means
 * a difference past common just-noticeable differences for speech: 1 semitone of pitch level or range, 8% of
 * speaking time, 1.5 dB of loudness.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { concat } from '../../../core/concat.ts'
import { EMOTION_TAGS } from '../../../schema/markup.ts'
import { createEspeakSynthesizer } from '../index.ts'
import type { Synthesizer, VoiceParams } from '../synthesizer.ts'
import { voiceParamsFor } from '../voice-params.ts'
import { type SpeechFeatures, speechFeatures } from './features.ts'
import { planUtterance } from './plan.ts'
import { renderPlan, soundPitchHz } from './render.ts'
import { synthesizeSound } from './sounds.ts'
import type { EmotionTag } from './tags.ts'

const RATE = 24_000
/** Rendering and pitch-tracking a dozen sentences takes seconds, and more on a busy machine. */
const SLOW = 120_000
const SENTENCE = 'I never thought it would end like this, after all these years together.'

function catalogVoice(id: string): VoiceParams {
  const voice = voiceParamsFor(id)
  if (!voice) throw new Error(`${id} is a catalog voice`)
  return voice
}
const english = catalogVoice('english_40')

let synth: Synthesizer
beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
})
afterAll(() => synth.close())

async function collect(chunks: AsyncIterable<Int16Array>): Promise<Int16Array[]> {
  const all: Int16Array[] = []
  for await (const chunk of chunks) all.push(chunk)
  return all
}

async function listen(text: string): Promise<SpeechFeatures> {
  return speechFeatures(
    concat(await collect(renderPlan(planUtterance(text), synth, { voice: english, speed: 1 })), Int16Array),
    RATE,
  )
}

const semitones = (a: number, b: number) => Math.abs(12 * Math.log2(a / b))

function audibleDifferences(a: SpeechFeatures, b: SpeechFeatures): string[] {
  const found: string[] = []
  if (semitones(a.medianF0, b.medianF0) >= 1) found.push('pitch')
  if (Math.abs(a.rangeSemitones - b.rangeSemitones) >= 1) found.push('range')
  if (Math.max(a.activeSeconds, b.activeSeconds) / Math.min(a.activeSeconds, b.activeSeconds) >= 1.08)
    found.push('rate')
  if (Math.abs(a.loudnessDb - b.loudnessDb) >= 1.5) found.push('loudness')
  return found
}

describe('emotions rendered by eSpeak', () => {
  const heard = new Map<EmotionTag | 'neutral', SpeechFeatures>()
  const get = (name: EmotionTag | 'neutral') => {
    const features = heard.get(name)
    if (!features) throw new Error(`${name} was not rendered`)
    return features
  }

  beforeAll(async () => {
    heard.set('neutral', await listen(SENTENCE))
    for (const tag of EMOTION_TAGS) heard.set(tag, await listen(`[${tag}] ${SENTENCE}`))
  }, SLOW)

  it('makes every emotion audibly different from neutral speech', () => {
    for (const tag of EMOTION_TAGS) expect(audibleDifferences(get(tag), get('neutral')), tag).not.toEqual([])
  })

  it('makes every emotion audibly different from every other', () => {
    for (const [i, a] of EMOTION_TAGS.entries()) {
      for (const b of EMOTION_TAGS.slice(i + 1)) {
        expect(audibleDifferences(get(a), get(b)), `${a} vs ${b}`).not.toEqual([])
      }
    }
  })

  it('moves each emotion the way it is meant to', () => {
    const neutral = get('neutral')
    const pitchShift = (tag: EmotionTag) => 12 * Math.log2(get(tag).medianF0 / neutral.medianF0)
    const tempo = (tag: EmotionTag) => neutral.activeSeconds / get(tag).activeSeconds
    const gainDb = (tag: EmotionTag) => get(tag).loudnessDb - neutral.loudnessDb
    // Sad: lower, narrower, slower, softer.
    expect(pitchShift('sad')).toBeLessThan(-2)
    expect(get('sad').rangeSemitones).toBeLessThan(neutral.rangeSemitones - 0.5)
    expect(tempo('sad')).toBeLessThan(0.85)
    expect(gainDb('sad')).toBeLessThan(-2)
    // Angry: louder, faster, a wider melody.
    expect(gainDb('angry')).toBeGreaterThan(2)
    expect(tempo('angry')).toBeGreaterThan(1.08)
    expect(get('angry').rangeSemitones).toBeGreaterThan(neutral.rangeSemitones)
    // Raised voices: joy, excitement, surprise.
    for (const tag of ['joyful', 'excited', 'surprised'] as const)
      expect(pitchShift(tag), tag).toBeGreaterThan(2)
    expect(tempo('excited')).toBeGreaterThan(1.15)
    expect(tempo('nervous')).toBeGreaterThan(1.15)
    expect(tempo('contemplative')).toBeLessThan(0.8)
    expect(gainDb('tender')).toBeLessThan(-1.5)
    expect(gainDb('stern')).toBeGreaterThan(0.5)
    expect(pitchShift('stern')).toBeLessThan(-2)
    expect(get('mundane').rangeSemitones).toBeLessThan(neutral.rangeSemitones - 1)
  })

  it('keeps the emotion to its sentence', async () => {
    const after = await listen(`[excited] Wow. ${SENTENCE}`)
    const plain = await listen(`Wow. ${SENTENCE}`)
    // Only the short first sentence is raised and quickened; the long one after it sounds as it does alone.
    expect(semitones(after.medianF0, plain.medianF0)).toBeLessThan(1)
    expect(after.activeSeconds / plain.activeSeconds).toBeGreaterThan(0.95)
  })

  it('colours a sentence that follows another in the same stretch of speech', async () => {
    const plain = await listen(`Wow. ${SENTENCE}`)
    const sad = await listen(`Wow. [sad] ${SENTENCE}`)
    expect(12 * Math.log2(sad.medianF0 / plain.medianF0)).toBeLessThan(-2)
    expect(sad.activeSeconds / plain.activeSeconds).toBeGreaterThan(1.15)
  })

  it('never clips, not even a whole sentence emphasized in the loudest emotion', {
    timeout: SLOW,
  }, async () => {
    for (const tag of EMOTION_TAGS) {
      expect((await listen(`[${tag}] (((Get out of my house right now, all of you!)))`)).clipped, tag).toBe(0)
    }
  })
})

describe('emphasis rendered by eSpeak', () => {
  it('raises the pitch of the stressed word audibly, in neutral speech and every emotion', {
    timeout: SLOW,
  }, async () => {
    for (const tag of [undefined, ...EMOTION_TAGS]) {
      const prefix = tag ? `[${tag}] ` : ''
      const plain = await listen(`${prefix}Never.`)
      const stressed = await listen(`${prefix}(((Never))).`)
      expect(12 * Math.log2(stressed.peakF0 / plain.peakF0), tag ?? 'neutral').toBeGreaterThan(1.5)
    }
  })

  it('makes the stressed word stand out within a sentence', async () => {
    const plain = await listen('I will never do that again.')
    const stressed = await listen('I will (((never))) do that again.')
    expect(12 * Math.log2(stressed.peakF0 / plain.peakF0)).toBeGreaterThan(1)
    expect(stressed.peakDb - plain.peakDb).toBeGreaterThan(1)
    expect(stressed.activeSeconds / plain.activeSeconds).toBeGreaterThan(1.05)
  })
})

describe('renderPlan', () => {
  it('streams speech and sounds in the order of the text, the sound pitched for the voice', async () => {
    const chunks = await collect(
      renderPlan(planUtterance('Hello there. <laugh> Goodbye.'), synth, { voice: english, speed: 1 }),
    )
    const laugh = synthesizeSound('laugh', { pitchHz: soundPitchHz(english), sampleRate: RATE })
    const at = chunks.findIndex((c) => c.length === laugh.length && c.every((s, i) => s === laugh[i]))
    expect(at).toBeGreaterThan(0)
    expect(at).toBeLessThan(chunks.length - 1)
    const before = concat(chunks.slice(0, at), Int16Array)
    const after = concat(chunks.slice(at + 1), Int16Array)
    expect(before.length / RATE).toBeGreaterThan(0.4)
    expect(after.length / RATE).toBeGreaterThan(0.3)
  })

  it('renders a plan of sounds alone without the synthesizer', async () => {
    const chunks = await collect(
      renderPlan(planUtterance('<pause><gulp>'), synth, { voice: english, speed: 1 }),
    )
    expect(chunks).toHaveLength(2)
    expect(chunks[0]?.every((s) => s === 0)).toBe(true)
  })

  it('stops at once when aborted, sounds included', async () => {
    const controller = new AbortController()
    const parts = planUtterance(`${'This goes on and on. '.repeat(40)}<laugh> The end.`)
    let received = 0
    for await (const chunk of renderPlan(parts, synth, {
      voice: english,
      speed: 1,
      signal: controller.signal,
    })) {
      received += chunk.length
      controller.abort()
    }
    expect(received / RATE).toBeLessThan(5)
    await expect.poll(() => synth.stats.busy).toBe(0)
  })

  it('pitches sounds from the voice: eSpeak pitch 0–100 onto 90–260 Hz', () => {
    expect(soundPitchHz({ ...english, pitch: 0 })).toBe(90)
    expect(soundPitchHz({ ...english, pitch: 100 })).toBe(260)
    expect(soundPitchHz({ ...english, pitch: 50 })).toBe(175)
    expect(soundPitchHz(catalogVoice('giant_07'))).toBeLessThan(soundPitchHz(catalogVoice('pixie_06')))
  })
})
