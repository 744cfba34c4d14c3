import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEspeakSynthesizer } from './espeak/pool.ts'
import { AUDIO_TOKENS_PER_SECOND, fromFirstSound, speak } from './speak.ts'
import type { Synthesizer } from './synthesizer.ts'
import { normalizeText } from './text/index.ts'
import { voiceParamsFor } from './voice-params.ts'

let synth: Synthesizer
const english = voiceParamsFor('english_40')
if (!english) throw new Error('english_40 is a catalog voice')

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
})
afterAll(() => synth.close())

async function seconds(iterable: AsyncIterable<Int16Array>) {
  let n = 0
  for await (const c of iterable) n += c.length
  return n / 24_000
}

const base = { voice: english, language: 'en-US', speed: 1, markup: true, maxNewTokens: null }

describe('speak', () => {
  it('speaks the normalized text, sentence by sentence', async () => {
    const text = 'It cost $1,234.56 on 2024-03-05. Call me at 3:30 pm.'
    const spoken = await seconds(speak(synth, { ...base, text }))
    let direct = 0
    for (const sentence of [
      'It cost one thousand two hundred thirty-four dollars and fifty-six cents on March fifth, twenty twenty-four.',
      'Call me at three thirty p.m.',
    ]) {
      direct += await seconds(synth.synthesize({ text: sentence, voice: english, speed: 1 }))
    }
    expect(normalizeText(text, { voiceLanguage: 'en-US' })).toContain(
      'one thousand two hundred thirty-four dollars',
    )
    expect(spoken).toBeCloseTo(direct, 1)
  })

  it('cuts a segment off at max_new_tokens, mid-speech, without regenerating', async () => {
    const text =
      'This single long sentence keeps going on and on, with many words, clauses and phrases, so that it lasts well over the small budget.'
    const full = await seconds(speak(synth, { ...base, text }))
    const capped = await seconds(speak(synth, { ...base, text, maxNewTokens: 50 }))
    expect(full).toBeGreaterThan(4)
    expect(capped).toBeCloseTo(50 / AUDIO_TOKENS_PER_SECOND, 2)
  })

  it('applies the budget per segment: each sentence gets its own', async () => {
    const capped = await seconds(
      speak(synth, {
        ...base,
        text: 'First long sentence with quite a few words in it. Second long sentence with quite a few words too.',
        maxNewTokens: 25,
      }),
    )
    expect(capped).toBeCloseTo(2, 2)
  })

  it('interprets markup only when asked: <pause> is silence, not a spoken word', async () => {
    const longestSilence = async (markup: boolean) => {
      let run = 0
      let longest = 0
      for await (const chunk of speak(synth, {
        ...base,
        markup,
        text: 'One two three <pause> four five six.',
      })) {
        for (const s of chunk) {
          run = Math.abs(s) < 200 ? run + 1 : 0
          longest = Math.max(longest, run)
        }
      }
      return longest / 24_000
    }
    expect(await longestSilence(true)).toBeGreaterThan(0.45)
    expect(await longestSilence(false)).toBeLessThan(0.35)
  })

  it('stops when aborted', async () => {
    const controller = new AbortController()
    let n = 0
    const run = async () => {
      for await (const c of speak(synth, {
        ...base,
        text: 'Sentence number one. '.repeat(50),
        signal: controller.signal,
      })) {
        n += c.length
        if (n > 24_000) controller.abort()
      }
    }
    await expect(run()).rejects.toThrow()
    expect(n / 24_000).toBeLessThan(15)
  })

  it('asks for only its first segment in the foreground: the rest follows audio the listener has', async () => {
    const jobs: Array<{ text: string; background: boolean | undefined }> = []
    const recording: Synthesizer = {
      ...synth,
      sampleRate: synth.sampleRate,
      synthesize: (job) => {
        jobs.push({ text: job.text, background: job.background })
        return synth.synthesize(job)
      },
    }
    await seconds(speak(recording, { ...base, text: 'First things first. Then the rest. And the end.' }))
    expect(jobs.map((j) => j.background)).toEqual([false, true, true])
    // Within a marked-up segment too: after the first part is heard, the next parts follow it.
    jobs.length = 0
    await seconds(speak(recording, { ...base, text: '[whispering] Quietly now. <laugh> [shouting] Loud!' }))
    expect(jobs[0]?.background).toBe(false)
    expect(jobs.length).toBeGreaterThan(1)
    expect(jobs.slice(1).every((j) => j.background)).toBe(true)
  })

  it('starts the stream at its first sound: eSpeak’s lead-in silence is not sent', async () => {
    const firstSound = async (audio: AsyncIterable<Int16Array>) => {
      const all: number[] = []
      for await (const c of audio) all.push(...c)
      return all.findIndex((s) => Math.abs(s) > 33) / 24
    }
    const direct = await firstSound(synth.synthesize({ text: 'Hello there.', voice: english, speed: 1 }))
    const spoken = await firstSound(speak(synth, { ...base, text: 'Hello there.' }))
    expect(direct).toBeGreaterThan(5)
    expect(spoken).toBeGreaterThan(1)
    expect(spoken).toBeLessThanOrEqual(3.05)
  })
})

describe('fromFirstSound', () => {
  async function collect(chunks: number[][]) {
    async function* source() {
      for (const c of chunks) yield Int16Array.from(c)
    }
    const out: number[] = []
    for await (const c of fromFirstSound(source())) out.push(...c)
    return out
  }
  const silence = (n: number) => new Array<number>(n).fill(0)

  it('drops silence before the onset across chunks, keeping 3 ms (72 samples) before it', async () => {
    const out = await collect([silence(100), [...silence(50), 1000, 2000], [3000]])
    expect(out).toEqual([...silence(72), 1000, 2000, 3000])
  })

  it('keeps a stream that starts with sound as it is', async () => {
    expect(await collect([[500, 0, 0], [7]])).toEqual([500, 0, 0, 7])
  })

  it('drops at most 100 ms: a longer opening pause keeps the rest', async () => {
    const out = await collect([silence(2000), silence(2000), [900]])
    expect(out.length).toBe(4001 - 2400)
    expect(out.at(-1)).toBe(900)
  })

  it('keeps a short answer that is all silence', async () => {
    expect(await collect([silence(10), silence(5)])).toEqual(silence(15))
  })
})
