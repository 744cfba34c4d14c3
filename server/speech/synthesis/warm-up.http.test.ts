import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MODELS } from '../../../schema/index.ts'
import { createEspeakSynthesizer, type Synthesizer } from '../../engine/index.ts'
import type { SynthesisJob } from '../../engine/synthesizer.ts'
import { type RunningService, readSse, startSpeechService } from '../../testing/service.ts'

/** The real eSpeak pool, with every job it is given written down. */
function recording(synth: Synthesizer, jobs: SynthesisJob[]): Synthesizer {
  return {
    sampleRate: synth.sampleRate,
    synthesize: (job) => {
      jobs.push(job)
      return synth.synthesize(job)
    },
    get stats() {
      return synth.stats
    },
    close: () => synth.close(),
  }
}

describe('the service warm-up', () => {
  let engine: Synthesizer
  const jobs: SynthesisJob[] = []
  let svc: RunningService

  beforeAll(async () => {
    engine = await createEspeakSynthesizer({ workers: 2 })
    svc = await startSpeechService({ synthesizer: recording(engine, jobs) })
  })
  afterAll(async () => {
    await svc.close()
    await engine.close()
  })

  it('speaks a plain and a marked-up line in every model through the engine, serving requests meanwhile', async () => {
    expect(jobs).toHaveLength(0) // a service does not warm up by itself: tests' services stay cheap
    const warming = svc.service.warmUp()
    // A request arriving during the warm-up is served as usual.
    const res = await fetch(`${svc.baseUrl}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'Hello there.', response_format: 'pcm', stream_format: 'sse' }),
    })
    expect(res.status).toBe(200)
    const events = await readSse(res)
    expect(events.at(-1)?.type).toBe('speech.audio.done')
    await warming

    const warmUpJobs = jobs.filter((job) => !job.text.includes('Hello there'))
    // With decoding controls the second generation wraps each word in its own prosody.
    const plain = warmUpJobs.filter((job) => /Welcome\b.*\bstudio/s.test(job.text))
    const marked = warmUpJobs.filter((job) => job.text.includes('wonderful'))
    // Three rounds of each model's line; the second generation renders its markup (a style, emphasis, a sound).
    expect(plain.length).toBeGreaterThanOrEqual(3 * MODELS.length)
    expect(marked.length).toBeGreaterThanOrEqual(3 * MODELS.length)
    expect(marked.some((job) => job.ssml)).toBe(true)
    expect(marked.some((job) => job.text.includes('[joyful]'))).toBe(true) // the 0.8 models read brackets as words
    // Every worker is back and nothing waits: the warm-up holds nothing once done.
    expect(engine.stats).toMatchObject({ busy: 0, queued: 0 })
  })

  it('stops when the service closes mid-way, and the close does not wait for it', async () => {
    const engine2 = await createEspeakSynthesizer({ workers: 1 })
    const seen: SynthesisJob[] = []
    const other = await startSpeechService({ synthesizer: recording(engine2, seen) })
    const warming = other.service.warmUp()
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 5))
    await other.close()
    await expect(warming).resolves.toBeUndefined()
    const started = seen.length
    await new Promise((r) => setTimeout(r, 300))
    expect(seen.length).toBe(started) // nothing more was asked of the engine after the close
    expect(started).toBeLessThan(3 * MODELS.length * 2)
    await engine2.close()
  })
})
