import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { alignmentSchema, transcriptionVerboseJsonSchema } from '../../../schema/index.ts'
import { decodeAudio } from '../../engine/codecs/decode.ts'
import { meetingFile } from '../../testing/meetings.ts'
import { type RunningService, startSpeechService } from '../../testing/service.ts'
import { floatToPcm16Wav } from '../../wav.ts'

/**
 * Forced alignment through the real API and PocketSphinx (`POST /v1/audio/alignments`, docs/api.md), on the first
 * 20 s of a real meeting excerpt: the words the service itself recognized (one replaced by a word no dictionary
 * holds) are placed again, from a span of the file, where it heard them; hostile forms are refused in the contract's
 * shapes.
 */
let svc: RunningService
let recording: Buffer

beforeAll(async () => {
  svc = await startSpeechService()
  const decoded = await decodeAudio(readFileSync(meetingFile('trn00.wav')), { targetRate: 16_000 })
  recording = floatToPcm16Wav(decoded.samples.subarray(0, 20 * 16_000), 16_000)
}, 60_000)
afterAll(async () => {
  await svc?.close()
})

function post(
  path: string,
  fields: Record<string, string>,
  file: Buffer | null = recording,
  key = svc.apiKey,
) {
  const form = new FormData()
  if (file) form.append('file', new Blob([new Uint8Array(file)]), 'meeting.wav')
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  return fetch(`${svc.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  })
}
const align = (fields: Record<string, string>, file?: Buffer | null, key?: string) =>
  post('/v1/audio/alignments', fields, file, key)

describe('forced alignment', () => {
  it('places words of a span where the recognizer heard them, in seconds of the file', async () => {
    const res = await post('/v1/audio/transcriptions', { response_format: 'verbose_json' })
    const heard = transcriptionVerboseJsonSchema.parse(await res.json()).words
    expect(heard.length).toBeGreaterThan(12)
    const span = heard.slice(2, 12)
    const start = Math.max(0, (span[0]?.start ?? 0) - 0.2)
    const end = (span.at(-1)?.end ?? 0) + 0.2
    // One word the dictionary cannot hold stands in for a name: its neighbours still land.
    const written = span.map((w, i) => (i === 4 ? 'Zxqvbnm,' : w.word))
    const aligned = await align({
      words: JSON.stringify(written),
      start: String(start),
      end: String(end),
    })
    expect(aligned.status).toBe(200)
    const body = alignmentSchema.parse(await aligned.json())
    expect(body.words.map((w) => w.word)).toEqual(written)
    const close = body.words.filter((w, i) => Math.abs(w.start - (span[i]?.start ?? 0)) <= 0.3)
    expect(close.length).toBeGreaterThanOrEqual(8)
    for (const w of body.words) {
      expect(w.start).toBeGreaterThanOrEqual(start)
      expect(w.end).toBeLessThanOrEqual(end + 0.011)
      expect(w.end).toBeGreaterThanOrEqual(w.start)
    }
  }, 60_000)

  it('answers 422 alignment_failed when the span cannot hold the words', async () => {
    const silence = floatToPcm16Wav(new Float32Array(16_000), 16_000)
    const res = await align({ words: JSON.stringify(['good', 'morning', 'everyone']) }, silence)
    expect(res.status).toBe(422)
    expect(await res.json()).toMatchObject({ error: { code: 'alignment_failed', param: 'words' } })
  }, 30_000)

  it.each([
    [{ words: 'good morning' }, 'words'],
    [{ words: '[]' }, 'words'],
    [{ words: JSON.stringify(Array(401).fill('a')) }, 'words'],
    [{ words: JSON.stringify([1, 2]) }, 'words'],
    [{ words: JSON.stringify(['x'.repeat(101)]) }, 'words'],
    [{ words: '["a"]', start: 'soon' }, 'start'],
    [{ words: '["a"]', start: '-1' }, 'start'],
    [{ words: '["a"]', start: '5', end: '5' }, 'end'],
    [{ words: '["a"]', start: '0', end: '121' }, 'end'],
    [{ words: '["a"]', start: '25' }, 'start'],
    [{ words: '["a"]', speaker: 'A' }, 'speaker'],
  ])('refuses %j in the detail shape, naming %s', async (fields, param) => {
    const res = await align(fields)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ param, detail: expect.any(String) })
  })

  it('refuses a form without a file, a file that is no audio, JSON, and a missing key', async () => {
    const noFile = await align({ words: '["a"]' }, null)
    expect([noFile.status, (await noFile.json()).param]).toEqual([400, 'file'])
    const noise = await align({ words: '["a"]' }, Buffer.from('not audio at all'))
    expect([noise.status, (await noise.json()).param]).toEqual([400, 'file'])
    const json = await fetch(`${svc.baseUrl}/v1/audio/alignments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ words: ['a'] }),
    })
    expect(json.status).toBe(415)
    expect((await align({ words: '["a"]' }, undefined, 'sk-wrong')).status).toBe(401)
  })
})
