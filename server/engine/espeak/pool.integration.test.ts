import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Synthesizer } from '../synthesizer.ts'
import { voiceParamsFor } from '../voice-params.ts'
import { createEspeakSynthesizer } from './pool.ts'

let synth: Synthesizer
const english = voiceParamsFor('english_40')
if (!english) throw new Error('english_40 is a catalog voice')
const voice = english

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 2 })
})
afterAll(() => synth.close())

async function collect(iterable: AsyncIterable<Int16Array>) {
  const chunks: Int16Array[] = []
  for await (const c of iterable) chunks.push(c)
  return chunks
}

const frames = (chunks: Int16Array[]) => chunks.reduce((n, c) => n + c.length, 0)
const rms = (chunks: Int16Array[]) => {
  let sum = 0
  let n = 0
  for (const c of chunks) {
    for (const s of c) sum += (s / 32768) ** 2
    n += c.length
  }
  return Math.sqrt(sum / n)
}

describe('eSpeak synthesizer pool', () => {
  it('streams a sentence as several 24 kHz chunks of real speech', async () => {
    const chunks = await collect(
      synth.synthesize({ text: 'Hello there, this is a test of the speech engine.', voice, speed: 1 }),
    )
    expect(synth.sampleRate).toBe(24_000)
    expect(chunks.length).toBeGreaterThan(5)
    // About three seconds of speech at 175 words per minute.
    expect(frames(chunks) / 24_000).toBeGreaterThan(1.5)
    expect(frames(chunks) / 24_000).toBeLessThan(6)
    expect(rms(chunks)).toBeGreaterThan(0.02)
  })

  it('speaks faster at a higher speed', async () => {
    const text = 'One two three four five six seven eight nine ten.'
    const normal = frames(await collect(synth.synthesize({ text, voice, speed: 1 })))
    const fast = frames(await collect(synth.synthesize({ text, voice, speed: 2 })))
    expect(fast / normal).toBeLessThan(0.7)
  })

  it('reads markup characters as text rather than failing', async () => {
    const chunks = await collect(synth.synthesize({ text: 'If a < b & c > d, say so.', voice, speed: 1 }))
    expect(frames(chunks)).toBeGreaterThan(12_000)
  })

  it('stops producing when aborted and frees its worker', async () => {
    const controller = new AbortController()
    const text = 'This sentence goes on and on. '.repeat(200)
    let received = 0
    for await (const c of synth.synthesize({ text, voice, speed: 1, signal: controller.signal })) {
      received += c.length
      if (received > 24_000) controller.abort()
    }
    // Far less than the minutes the whole text would take; the credit window bounds the overshoot.
    expect(received / 24_000).toBeLessThan(10)
    await expect.poll(() => synth.stats.busy, { timeout: 10_000 }).toBe(0)
  })

  it('frees its worker when the consumer stops reading early', async () => {
    const iterator = synth
      .synthesize({ text: 'Keep talking. '.repeat(200), voice, speed: 1 })
      [Symbol.asyncIterator]()
    await iterator.next()
    await iterator.return?.()
    await expect.poll(() => synth.stats.busy, { timeout: 10_000 }).toBe(0)
  })

  it('runs two jobs at once on two workers and queues a third', async () => {
    const text = 'A short line for the pool.'
    const jobs = [1, 2, 3].map(() => collect(synth.synthesize({ text, voice, speed: 1 })))
    const results = await Promise.all(jobs)
    const [first, ...rest] = results.map(frames)
    for (const r of rest) expect(r).toBe(first)
  })

  it('reports an unknown eSpeak voice as an error', async () => {
    const bad = { ...voice, espeakVoice: 'xx-nowhere' }
    await expect(collect(synth.synthesize({ text: 'hi', voice: bad, speed: 1 }))).rejects.toThrow(/no voice/)
    await expect.poll(() => synth.stats.busy, { timeout: 10_000 }).toBe(0)
  })
})

describe('foreground and background workers', () => {
  /** Starts a long job and holds it after its first chunk, so its worker stays busy until `release`. */
  async function hold(background: boolean) {
    const iterator = synth
      .synthesize({ text: 'Keep talking. '.repeat(200), voice, speed: 1, background })
      [Symbol.asyncIterator]()
    await iterator.next()
    return { release: () => iterator.return?.() }
  }

  it('gives a later segment a background worker and a first one a foreground worker, each preferring its own', async () => {
    // Two workers: one of each.
    expect(synth.stats.background).toEqual({ workers: 1, busy: 0 })
    const later = await hold(true)
    expect(synth.stats).toMatchObject({ busy: 1, background: { busy: 1 } })
    const first = await hold(false)
    expect(synth.stats).toMatchObject({ busy: 2, background: { busy: 1 } })
    await later.release()
    await first.release()
    await expect.poll(() => synth.stats.busy, { timeout: 10_000 }).toBe(0)

    // A role is a preference, never a wait: with the foreground worker busy a first segment takes the other one.
    const a = await hold(false)
    const b = await hold(false)
    expect(synth.stats).toMatchObject({ busy: 2, background: { busy: 1 } })
    await a.release()
    await b.release()
    await expect.poll(() => synth.stats.busy, { timeout: 10_000 }).toBe(0)
  })

  it.runIf(process.platform === 'linux')('runs the background workers at a lower priority', async () => {
    const { readdirSync, readFileSync } = await import('node:fs')
    const nice = readdirSync('/proc/self/task').map((tid) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
    })
    // This file's pool has one background worker; the process itself runs at its own priority.
    expect(nice.filter((n) => n === 10)).toHaveLength(1)
  })
})
