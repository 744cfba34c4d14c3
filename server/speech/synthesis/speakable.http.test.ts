/**
 * A request never succeeds with silence (docs/api.md, "Text that cannot be spoken"): digit runs, other scripts, emoji
 * and symbols give audio that grows with the text; text with nothing that can be spoken is a 400 naming it. The
 * default model streaming pcm is the cheapest honest request (about 300 times faster than real time); the
 * second-generation model is checked on stream: false and its stream alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningService, readSse, startSpeechService } from '../../testing/service.ts'

let svc: RunningService

beforeAll(async () => {
  svc = await startSpeechService()
})
afterAll(() => svc.close())

const SECOND_GEN = { model: 'svc-tts-2-latest' }
const BYTES_PER_SECOND = 48_000

function speech(body: Record<string, unknown>, init: RequestInit = {}) {
  return fetch(`${svc.baseUrl}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${svc.apiKey}` },
    body: JSON.stringify({ response_format: 'pcm', ...body }),
    ...init,
  })
}

/** Seconds of audio above silence (-60 dBFS), so that a stream of zeros counts for nothing. */
function audibleSeconds(bytes: Buffer): number {
  const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1)
  let loud = 0
  for (const s of pcm) if (s > 33 || s < -33) loud++
  return loud / 24_000
}

async function spoken(input: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await speech({ input, ...extra })
  const bytes = Buffer.from(await res.arrayBuffer())
  expect(res.status, bytes.subarray(0, 300).toString()).toBe(200)
  return audibleSeconds(bytes)
}

const digitsOf = (n: number) => '1234567890'.repeat(Math.ceil(n / 10)).slice(0, n)

/**
 * `once` is the audio of one copy, `twice` of two, `four` of four: each doubles the one before, within `slack` (the
 * default model renders deterministically; the second-generation model samples each take's prosody, 2.8 rule 7).
 */
function expectGrowing(once: number, twice: number, four?: number, slack = 0.2) {
  expect(once).toBeGreaterThan(0.3)
  const ratios = four === undefined ? [twice / once] : [twice / once, four / twice]
  for (const r of ratios) {
    expect(r).toBeGreaterThan(2 - slack)
    expect(r).toBeLessThan(2 + slack)
  }
}

const SAMPLED = 0.4

describe('long digit runs', () => {
  it('reads 200 digits in full: twice the digits, twice the audio', async () => {
    const [a, b, c] = [await spoken(digitsOf(50)), await spoken(digitsOf(100)), await spoken(digitsOf(200))]
    expectGrowing(a, b, c)
    // Digit by digit: about a third of a second each, pauses between groups of four included.
    expect(c / 200).toBeGreaterThan(0.25)
  })

  it('reads them in full at a quarter speed: four times as long, not cut at the 30 s cap', async () => {
    const normal = await spoken(digitsOf(200))
    const slow = await spoken(digitsOf(200), { speed: 0.25 })
    // Measured 4.2: eSpeak NG's slowest rate is 80 wpm, and the time-stretch that does the rest keeps its pauses.
    expect(slow / normal).toBeGreaterThan(3.5)
    expect(slow / normal).toBeLessThan(4.8)
  })

  // The second-generation model renders about five times faster than real time here, so its runs are shorter.
  it('reads digit runs in full on the second-generation model', async () => {
    const extra = { ...SECOND_GEN, stream: false }
    expectGrowing(await spoken(digitsOf(16), extra), await spoken(digitsOf(32), extra), undefined, SAMPLED)
  })

  it('reads them in full with a voice of another language, whose own number rules stop partway', async () => {
    const extra = { ...SECOND_GEN, voice: 'german_39', stream: false }
    expectGrowing(await spoken(digitsOf(16), extra), await spoken(digitsOf(32), extra), undefined, SAMPLED)
  })

  it('gives the same audio on the second-generation stream as in its complete file', async () => {
    const input = `Account ${digitsOf(32)}.`
    const file = await spoken(input, { ...SECOND_GEN, stream: false, mode: 'stable', temperature: 0.3 })
    const res = await speech({ input, ...SECOND_GEN, stream_format: 'sse', mode: 'stable', temperature: 0.3 })
    const events = await readSse(res)
    const bytes = Buffer.concat(
      events
        .filter((e) => e.type === 'speech.audio.delta')
        .map((e) => Buffer.from(e.audio as string, 'base64')),
    )
    // Takes differ slightly (2.8 rule 7) and only the file is loudness-normalized: the same speech, not the same bytes.
    expect(audibleSeconds(bytes) / file).toBeGreaterThan(0.8)
    expect(audibleSeconds(bytes) / file).toBeLessThan(1.25)
  })

  it('streams the 40,000-digit maximum as speech, past what 200 digits give', async () => {
    const shorter = await spoken(digitsOf(200))
    // All 40,000 digits are read (normalize.test.ts counts them); hearing the whole would take about four hours of
    // audio (the figure is in docs/api.md), so the stream is read until it is clearly longer than 200 digits' worth.
    const controller = new AbortController()
    const res = await speech({ input: digitsOf(40_000) }, { signal: controller.signal })
    expect(res.status).toBe(200)
    const parts: Buffer[] = []
    let length = 0
    const want = Math.ceil(shorter * 2 * BYTES_PER_SECOND)
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      parts.push(Buffer.from(chunk))
      length += chunk.length
      if (length >= want) break
    }
    controller.abort()
    expect(audibleSeconds(Buffer.concat(parts))).toBeGreaterThan(shorter * 1.5)
  })
})

describe('other scripts, emoji and symbols', () => {
  it.each([
    ['Cyrillic with Latin', 'Привет, world.'],
    ['Greek', 'Καλημέρα κόσμε.'],
    ['Chinese', '你好世界。'],
    ['Arabic', 'مرحبا بالعالم.'],
  ])('speaks %s, longer for more of it', async (_, text) => {
    const [a, b, c] = [
      await spoken(text),
      await spoken(`${text} ${text}`),
      await spoken(`${text} ${text} ${text} ${text}`),
    ]
    expectGrowing(a, b, c)
  })

  it.each([
    ['emoji', '😀 🎉 👩‍💻'],
    ['symbols', '% & @ # ∑ √'],
  ])('speaks %s, longer for more of it, on both models', async (_, text) => {
    for (const [extra, slack] of [
      [{}, undefined],
      [{ ...SECOND_GEN, stream: false }, SAMPLED],
    ] as const) {
      const [a, b, c] = [
        await spoken(text, extra),
        await spoken(`${text} ${text}`, extra),
        await spoken(`${text} ${text} ${text} ${text}`, extra),
      ]
      expectGrowing(a, b, c, slack)
    }
  })

  // eSpeak NG reads at most about 25 emoji or 40 spelled letters as one word; the pieces must still fit their budget.
  it.each([
    ['a word without vowels', (n: number) => 'x'.repeat(n)],
    ['emoji without spaces', (n: number) => '😀'.repeat(n / 2)],
    ['Chinese without punctuation', (n: number) => '猫'.repeat(n)],
  ])('speaks %s in full, however long', async (_, make) => {
    expectGrowing(await spoken(make(80)), await spoken(make(160)), await spoken(make(320)))
  })

  it('speaks what it can of text with characters it cannot say', async () => {
    expect(await spoken('Total █████ 42')).toBeGreaterThan(0.5)
  })
})

describe('text with nothing that can be spoken', () => {
  const refusal = async (body: Record<string, unknown>) => {
    const res = await speech(body)
    expect(res.status).toBe(400)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    const json = (await res.json()) as { detail: string; param: string; request_id: string }
    expect(json.param).toBe('input')
    expect(json.request_id).toMatch(/^req_/)
    return json.detail
  }

  it('is a 400 naming the characters, on the stream, the SSE stream and the complete file', async () => {
    for (const extra of [{}, { stream_format: 'sse' }, { ...SECOND_GEN, stream: false }, SECOND_GEN]) {
      expect(await refusal({ input: '█▓ \uE000', ...extra })).toBe(
        'input has nothing that can be spoken: "█" (U+2588), "▓" (U+2593), "\uE000" (U+E000).',
      )
    }
  })

  it('is a 400 for only punctuation, spaces or markup tags', async () => {
    expect(await refusal({ input: '… …' })).toBe(
      'input has nothing to speak: it holds only spaces and punctuation.',
    )
    expect(await refusal({ input: '   ' })).toBe(
      'input has nothing to speak: it holds only spaces and punctuation.',
    )
    expect(await refusal({ input: '[sad] …', ...SECOND_GEN })).toBe(
      'input has nothing to speak: it holds only spaces, punctuation and markup tags.',
    )
  })

  it('is silence when the input asks for a pause', async () => {
    const res = await speech({ input: '<pause>', ...SECOND_GEN })
    expect(res.status).toBe(200)
    const bytes = Buffer.from(await res.arrayBuffer())
    expect(bytes.length).toBeGreaterThan(0.2 * BYTES_PER_SECOND)
    expect(audibleSeconds(bytes)).toBe(0)
  })
})
