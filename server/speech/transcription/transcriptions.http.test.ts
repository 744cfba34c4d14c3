import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  MAX_TRANSCRIPTION_FILE_BYTES,
  transcriptionJsonSchema,
  transcriptionVerboseJsonSchema,
} from '../../../schema/index.ts'
import { createSegmentationDiarizer } from '../../engine/diarization/segmented.ts'
import { createPyannoteSegmenter, PYANNOTE_MODEL_PATH } from '../../engine/segmentation/pyannote.ts'
import { meetingFile } from '../../testing/meetings.ts'
import { type RunningService, readSse, startSpeechService } from '../../testing/service.ts'
import { spokenPcm, wavFile } from '../../testing/spoken-audio.ts'
import { connectWs, type WsTestClient } from '../../testing/ws-client.ts'

/** Upload transcription over real HTTP with the real engines (contract 4.11, 4.12, 7, 8; docs/transcription.md). */
let svc: RunningService
let failing: RunningService
let switchedOff: RunningService
let speech: Buffer
const MEETING = readFileSync(meetingFile('trn00.wav'))

/** A deployment whose segmentation model is damaged (one byte changed): the `failed` status of contract 3. */
const damaged = mkdtempSync(join(tmpdir(), 'damaged-model-'))

beforeAll(async () => {
  const model = readFileSync(PYANNOTE_MODEL_PATH)
  model[model.length >> 1] = (model[model.length >> 1] as number) ^ 0xff
  writeFileSync(join(damaged, 'model.onnx'), model)
  const modelPath = join(damaged, 'model.onnx')
  const brokenDiarizer = createSegmentationDiarizer({ segmenter: createPyannoteSegmenter({ modelPath }) })
  ;[svc, failing, switchedOff] = await Promise.all([
    startSpeechService(),
    startSpeechService({ diarizer: brokenDiarizer }),
    startSpeechService({ diarizationEnabled: false }),
  ])
  speech = wavFile(
    await spokenPcm(
      svc.service.synthesizer,
      'Good morning. The weather today is sunny and warm. We will meet at the station at seven.',
    ),
  )
}, 60_000)
afterAll(async () => {
  await Promise.all([svc.close(), failing.close(), switchedOff.close()])
  rmSync(damaged, { recursive: true, force: true })
})

function upload(
  fields: Record<string, string>,
  file: Buffer | null = speech,
  key: string | null = svc.apiKey,
  service = svc,
  init: RequestInit = {},
) {
  const form = new FormData()
  if (file) form.append('file', new Blob([new Uint8Array(file)]), 'audio.wav')
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  return fetch(`${service.baseUrl}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: key ? { authorization: `Bearer ${key}` } : {},
    body: form,
    ...init,
  })
}

describe('authentication and request shape', () => {
  it('answers a missing key with 401 and a key without audio:transcribe with 403', async () => {
    expect((await upload({}, speech, null)).status).toBe(401)
    const { key } = await svc.service.keys.create({
      kind: 'organization',
      org: 'test-org',
      permissions: ['tts:generate'],
    })
    const res = await upload({}, speech, key)
    expect(res.status).toBe(403)
    expect(await res.json()).toMatchObject({ error: { code: 'insufficient_permissions' } })
  })

  it('answers a JSON body with 415 and a form without file with 400 naming file', async () => {
    const res = await fetch(`${svc.baseUrl}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${svc.apiKey}`, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(res.status).toBe(415)
    const missing = await upload({ response_format: 'json' }, null)
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({ param: 'file', request_id: expect.stringMatching(/^req_/) })
  })

  it('accepts a file of exactly 25 MiB past the size check and refuses one byte more with 413', async () => {
    // Not audio, so the accepted one fails at decoding (400), quickly; the size check is what is under test.
    const exact = Buffer.alloc(MAX_TRANSCRIPTION_FILE_BYTES, 1)
    const ok = await upload({}, exact)
    expect(ok.status).toBe(400)
    expect(await ok.json()).toMatchObject({ param: 'file', detail: expect.stringMatching(/not audio/) })
    const over = await upload({}, Buffer.alloc(MAX_TRANSCRIPTION_FILE_BYTES + 1, 1))
    expect(over.status).toBe(413)
    expect(await over.json()).toMatchObject({ param: 'file', detail: expect.stringMatching(/25 MiB/) })
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(0)
  }, 60_000)

  it('answers damaged audio with a 400 detail on file', async () => {
    const broken = Buffer.from(speech.subarray(0, 60))
    const res = await upload({}, broken)
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ param: 'file' })
  })

  it('reports the diarization options errors in the envelope with their codes', async () => {
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ num_speakers: '2' }, 400, 'invalid_diarization_options'],
      [{ diarization: 'true', num_speakers: '21' }, 400, 'invalid_diarization_options'],
      [{ diarization: 'true', num_speakers: '0' }, 400, 'invalid_diarization_options'],
      [{ diarization: 'true', num_speakers: '2', max_speakers: '3' }, 400, 'invalid_diarization_options'],
      [{ diarization: 'true', min_speakers: '3', max_speakers: '2' }, 400, 'invalid_diarization_options'],
      [{ diarization: 'true', response_format: 'srt' }, 400, 'invalid_response_format'],
      [{ diarization: 'true', response_format: 'text' }, 400, 'invalid_response_format'],
      [{ diarization: 'true', response_format: 'vtt' }, 400, 'invalid_response_format'],
    ]
    for (const [fields, status, code] of cases) {
      const res = await upload(fields)
      expect(res.status, JSON.stringify(fields)).toBe(status)
      expect(await res.json()).toMatchObject({ error: { code }, request_id: expect.stringMatching(/^req_/) })
    }
  })

  it('answers 501 diarization_not_enabled when the deployment switched diarization off', async () => {
    const res = await upload({ diarization: 'true' }, speech, switchedOff.apiKey, switchedOff)
    expect(res.status).toBe(501)
    expect(await res.json()).toMatchObject({ error: { code: 'diarization_not_enabled' } })
    const health = (await (await fetch(`${switchedOff.baseUrl}/health`)).json()) as { engines: object }
    expect(health.engines).toMatchObject({ recognition: true, diarization: false })
  })
})

describe('recognition', () => {
  it('returns json with the text and an empty warnings list, without a diarization block', async () => {
    const res = await upload({})
    expect(res.status).toBe(200)
    const body = transcriptionJsonSchema.parse(await res.json())
    expect(body.text.length).toBeGreaterThan(10)
    expect(body.warnings).toEqual([])
    expect('diarization' in body).toBe(false)
    expect(svc.service.asrSlots.held()).toBe(0)
  }, 120_000)

  it('returns verbose_json with language, duration, timed segments and words', async () => {
    const res = await upload({ response_format: 'verbose_json', model: 'svc-stt-latest' })
    expect(res.status).toBe(200)
    const body = transcriptionVerboseJsonSchema.parse(await res.json())
    expect(body.language).toBe('en')
    expect(body.duration).toBeGreaterThan(3)
    expect(body.segments.length).toBeGreaterThan(0)
    expect(body.segments.map((s) => s.id)).toEqual(body.segments.map((_, i) => i))
    for (const s of body.segments) {
      expect(s.end).toBeGreaterThanOrEqual(s.start)
      expect(s.end).toBeLessThanOrEqual(body.duration + 0.01)
    }
    expect(body.words.length).toBeGreaterThan(3)
    expect(body.segments.map((s) => s.text).join(' ')).toBe(body.text)
  }, 120_000)

  it('returns text, srt and vtt', async () => {
    const text = await upload({ response_format: 'text' })
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/)
    expect((await text.text()).endsWith('\n')).toBe(true)
    const srt = await (await upload({ response_format: 'srt' })).text()
    expect(srt).toMatch(/^1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n/)
    const vtt = await upload({ response_format: 'vtt' })
    expect(vtt.headers.get('content-type')).toMatch(/^text\/vtt/)
    expect(await vtt.text()).toMatch(/^WEBVTT\n\n\d\d:\d\d:\d\d\.\d{3} --> /)
  }, 180_000)

  it('streams text deltas as they are recognized, then transcript.text.done with the full result', async () => {
    const res = await upload({ stream: 'true', response_format: 'verbose_json' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const events = await readSse(res)
    const done = events.at(-1) as Record<string, unknown>
    expect(done.type).toBe('transcript.text.done')
    const deltas = events.slice(0, -1)
    expect(deltas.length).toBeGreaterThan(0)
    for (const d of deltas) expect(d.type).toBe('transcript.text.delta')
    expect(deltas.map((d) => d.delta).join('')).toBe(done.text)
    const { type: _, ...result } = done
    transcriptionVerboseJsonSchema.parse(result)
  }, 120_000)
})

describe('diarization (4.12) on a real meeting recording', () => {
  it('returns the completed block with speakers, spans and turns beside the transcript', async () => {
    const res = await upload({ diarization: 'true', response_format: 'verbose_json' }, MEETING)
    expect(res.status).toBe(200)
    const body = transcriptionVerboseJsonSchema.parse(await res.json())
    const d = body.diarization
    expect(d?.status).toBe('completed')
    expect(d?.speakers.length).toBeGreaterThan(0)
    expect(d?.speakers).toEqual(d?.speakers.map((_, i) => `speaker_${i}`))
    expect(d?.segments.length).toBeGreaterThan(0)
    for (const s of d?.segments ?? []) {
      expect(d?.speakers).toContain(s.speaker)
      expect(s.end).toBeGreaterThan(s.start)
      expect(s.end).toBeLessThanOrEqual(30.01)
    }
    if (d?.turns) {
      // Every transcript segment's text is in exactly one turn: the words of the turns are the transcript's.
      expect(
        d.turns
          .map((t) => t.text)
          .join(' ')
          .split(/\s+/)
          .sort(),
      ).toEqual(body.text.split(/\s+/).sort())
      expect(body.warnings).toEqual([])
    } else {
      expect(body.warnings.map((w) => w.code)).toEqual(['diarization_text_unavailable'])
    }
  }, 180_000)

  it('carries the block on the final transcript.text.done event when streaming, with json', async () => {
    const res = await upload({ diarization: 'true', num_speakers: '2', stream: 'true' }, MEETING)
    const events = await readSse(res)
    const done = events.at(-1) as Record<string, unknown>
    expect(done.type).toBe('transcript.text.done')
    expect(done).toMatchObject({ diarization: { status: 'completed' }, warnings: expect.any(Array) })
    expect((done.diarization as { speakers: string[] }).speakers).toHaveLength(2)
    for (const e of events.slice(0, -1)) expect('diarization' in e).toBe(false)
  }, 180_000)

  it('reports failed, empty speakers and segments, no turns and the diarization_failed warning when the model is damaged', async () => {
    const health = await (await fetch(`${failing.baseUrl}/health`)).json()
    expect(health.engines).toMatchObject({ recognition: true, diarization: false })
    expect((await (await fetch(`${svc.baseUrl}/health`)).json()).engines.diarization).toBe(true)
    const res = await upload({ diarization: 'true' }, speech, failing.apiKey, failing)
    expect(res.status).toBe(200)
    const body = transcriptionJsonSchema.parse(await res.json())
    expect(body.text.length).toBeGreaterThan(10)
    expect(body.diarization).toEqual({ status: 'failed', speakers: [], segments: [] })
    expect(body.warnings.map((w) => w.code)).toEqual(['diarization_failed'])
  }, 120_000)
})

describe('capacity: 5 uploads and realtime sessions per organization (contract 7, 8)', () => {
  async function openSocket(key = svc.apiKey): Promise<WsTestClient> {
    const client = await connectWs(`${svc.baseUrl.replace('http', 'ws')}/v1/realtime`, key)
    if (!('socket' in client)) throw new Error(`refused: ${JSON.stringify(client)}`)
    await client.next((m) => m.type === 'session.created' || m.type === 'error')
    return client
  }

  it('rejects an upload at capacity with 429 and the session headers, and serves it once a slot frees', async () => {
    const sockets = []
    for (let i = 0; i < 5; i++) sockets.push(await openSocket())
    expect(svc.service.asrSlots.held()).toBe(5)
    const res = await upload({})
    expect(res.status).toBe(429)
    expect(res.headers.get('x-ratelimit-limit-concurrent-sessions')).toBe('5')
    expect(res.headers.get('x-ratelimit-remaining-concurrent-sessions')).toBe('0')
    expect(res.headers.get('retry-after')).toBe('1')
    expect(await res.json()).toMatchObject({
      error: { code: 'rate_limit_exceeded', type: 'rate_limit_error' },
    })
    // Another organization is not affected.
    const other = (await svc.service.keys.create({ kind: 'organization', org: 'other-org' })).key
    expect((await upload({ response_format: 'text' }, speech, other)).status).toBe(200)

    sockets[0]?.socket.close()
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(4)
    expect((await upload({ response_format: 'text' })).status).toBe(200)
    for (const s of sockets) s.socket.close()
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 10_000 }).toBe(0)
  }, 180_000)

  it('gives the slot back when the client goes away during recognition', async () => {
    const controller = new AbortController()
    const pending = upload({ diarization: 'true' }, MEETING, svc.apiKey, svc, { signal: controller.signal })
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 30_000 }).toBe(1)
    controller.abort()
    await expect(pending).rejects.toThrow()
    await expect.poll(() => svc.service.asrSlots.held(), { timeout: 30_000 }).toBe(0)
  }, 60_000)
})
