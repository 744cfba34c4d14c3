import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { concat } from '../../../core/concat.ts'
import { silence, speak16k, synthesizeMusic } from '../../testing/audio-16k.ts'
import { createEspeakSynthesizer } from '../espeak/pool.ts'
import type { Synthesizer } from '../synthesizer.ts'
import { createStreamingVad, detectSpeech, type VadEvent } from './index.ts'

let synth: Synthesizer
let speech: Float32Array

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  speech = await speak16k(
    synth,
    'english_40',
    'The meeting starts at nine, and everybody is welcome to join.',
  )
}, 60_000)
afterAll(() => synth.close())

describe('detectSpeech', () => {
  it('finds the speech between two seconds of silence', async () => {
    const regions = await detectSpeech(concat([silence(2), speech, silence(2)], Float32Array))
    expect(regions.length).toBeGreaterThanOrEqual(1)
    const first = regions[0] as { start: number }
    const last = regions.at(-1) as { end: number }
    const end = 2 + speech.length / 16_000
    expect(first.start).toBeGreaterThan(1.7)
    expect(first.start).toBeLessThan(2.5)
    expect(last.end).toBeGreaterThan(end - 0.5)
    expect(last.end).toBeLessThan(end + 0.5)
  }, 60_000)

  it('finds nothing in silence', async () => {
    expect(await detectSpeech(silence(3))).toEqual([])
  }, 60_000)

  it('stops when aborted', async () => {
    const controller = new AbortController()
    controller.abort()
    await expect(detectSpeech(speech, { signal: controller.signal })).rejects.toThrow()
  }, 60_000)
})

describe('createStreamingVad', () => {
  it('reports a start and an end at the speech, from pieces of any length', async () => {
    const vad = await createStreamingVad()
    const audio = concat([silence(1), speech, silence(1.5)], Float32Array)
    const events: VadEvent[] = []
    for (let offset = 0; offset < audio.length; offset += 777) {
      events.push(...(await vad.push(audio.subarray(offset, offset + 777))))
    }
    events.push(...(await vad.flush()))
    expect(events[0]?.type).toBe('start')
    expect(events.at(-1)?.type).toBe('end')
    expect(events[0]?.time).toBeGreaterThan(0.7)
    expect(events[0]?.time).toBeLessThan(1.5)
    expect(events.at(-1)?.time).toBeGreaterThan(1 + speech.length / 16_000 - 0.5)
    expect(events.at(-1)?.time).toBeLessThan(1 + speech.length / 16_000 + 0.5)
  }, 60_000)

  it('closes speech still open when the stream is flushed', async () => {
    const vad = await createStreamingVad()
    const events = [...(await vad.push(concat([silence(0.5), speech], Float32Array))), ...(await vad.flush())]
    expect(events.map((e) => e.type)).toEqual(['start', 'end'])
  }, 60_000)

  it('does not take synthetic music for speech throughout', async () => {
    const regions = await detectSpeech(synthesizeMusic(6))
    const seconds = regions.reduce((total, r) => total + r.end - r.start, 0)
    expect(seconds).toBeLessThan(3)
  }, 60_000)
})
