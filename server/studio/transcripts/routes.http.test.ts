import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { meetingFile } from '../../testing/meetings.ts'
import { type RunningService, readSse, startSpeechService } from '../../testing/service.ts'
import { type BrowserHeaders, type RunningStudio, startStudio } from '../../testing/studio.ts'
import { connectWs, type WsTestClient } from '../../testing/ws-client.ts'
import { liveSettings } from '../live/transcription.ts'
import { parseRange } from './routes.ts'

/**
 * The studio's transcripts against the real local speech service (PocketSphinx and the diarizer): upload through the
 * backend with the service's stream passed through, the saved transcript with its audio, label edits apart from the
 * result, and the live socket with the backend minting the ephemeral secret.
 */

const recording = readFileSync(meetingFile('trn08.wav'))
/** Speech from its first second on, for the live session. */
const talkative = readFileSync(meetingFile('trn05.wav'))

let svc: RunningService
let studio: RunningStudio
let reviewer: BrowserHeaders
let designer: BrowserHeaders

beforeAll(async () => {
  svc = await startSpeechService()
  studio = await startStudio(svc)
  reviewer = await studio.signInAs('reviewer')
  designer = await studio.signInAs('designer')
})
afterAll(async () => {
  await studio?.close()
  await svc?.close()
})

function upload(
  headers: Record<string, string>,
  fields: Record<string, string> = {},
  file: Uint8Array = recording,
) {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.set(k, v)
  form.set('file', new Blob([file as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'meeting trn08.wav')
  return fetch(`${studio.base}/api/transcripts`, { method: 'POST', headers, body: form })
}

const api = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  fetch(`${studio.base}/api${path}`, { ...init, headers: { ...reviewer, ...init.headers } })

describe('upload through the backend', () => {
  let id: string

  it('streams the service answer through and saves the transcript when it is done', async () => {
    const res = await upload({ ...reviewer }, { diarization: 'true', max_speakers: '4' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    id = res.headers.get('x-transcript-id') ?? ''
    expect(id).toMatch(/^tr_/)
    const events = await readSse(res)
    expect(events.some((e) => e.type === 'transcript.text.delta')).toBe(true)
    const done = events.at(-1) as Record<string, unknown> & {
      diarization: { status: string; speakers: string[] }
    }
    expect(done.type).toBe('transcript.text.done')
    expect(done.diarization.status).toBe('completed')

    const list = (await (await api('/transcripts')).json()) as { data: Array<Record<string, unknown>> }
    expect(list.data[0]).toMatchObject({
      id,
      name: 'meeting trn08.wav',
      source: 'upload',
      created_by: 'reviewer-user',
      audio_type: 'audio/wav',
      audio_bytes: recording.length,
      diarization_status: 'completed',
      edited: false,
    })
    const saved = (await (await api(`/transcripts/${id}`)).json()) as Record<string, unknown>
    const { type: _type, ...result } = done
    expect(saved.result).toEqual(result)
    expect(saved).toMatchObject({
      labels: { revision: 0, edits: { names: {}, merges: {}, turns: {} } },
      peaks: null,
    })
  }, 120_000) // recognition and diarization of a real meeting: CPU-bound, and run on both backends at once

  it('serves the audio whole and by byte range', async () => {
    const whole = await api(`/transcripts/${id}/audio`)
    expect(whole.headers.get('accept-ranges')).toBe('bytes')
    expect(Buffer.from(await whole.arrayBuffer()).equals(recording)).toBe(true)
    const part = await api(`/transcripts/${id}/audio`, { headers: { range: 'bytes=100-199' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${recording.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(recording.subarray(100, 200))).toBe(true)
    expect(
      (await api(`/transcripts/${id}/audio`, { headers: { range: `bytes=${recording.length}-` } })).status,
    ).toBe(416)
  })

  it('saves label edits apart from the result, refusing a stale revision', async () => {
    const edits = { names: { speaker_0: 'Interviewer' }, merges: {}, turns: { '0': 'speaker_1' } }
    const put = (body: unknown) =>
      api(`/transcripts/${id}/labels`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const before = (await (await api(`/transcripts/${id}`)).json()) as { result: unknown }
    const first = await put({ edits, revision: 0 })
    expect(first.status).toBe(200)
    expect(await first.json()).toMatchObject({ edits, revision: 1, updated_by: 'reviewer-user' })
    const stale = await put({ edits: { ...edits, names: {} }, revision: 0 })
    expect(stale.status).toBe(409)
    expect(await stale.json()).toMatchObject({ labels: { revision: 1, edits } })
    expect((await put({ edits: { names: { speaker_0: '' } }, revision: 1 })).status).toBe(400)
    const after = (await (await api(`/transcripts/${id}`)).json()) as {
      result: unknown
      labels: unknown
      edited?: boolean
    }
    expect(after.result).toEqual(before.result)
    expect(after.labels).toMatchObject({ edits, revision: 1 })
  })

  it('keeps text corrections beside the label edits, on the same revisions, the result unchanged', async () => {
    const put = (body: unknown) =>
      api(`/transcripts/${id}/labels`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const current = (await (await api(`/transcripts/${id}`)).json()) as {
      result: unknown
      labels: { edits: Record<string, unknown>; revision: number }
    }
    const edits = { ...current.labels.edits, texts: { '0': 'the reviewer’s own words' } }
    const saved = await put({ edits, revision: current.labels.revision })
    expect(saved.status).toBe(200)
    const revision = current.labels.revision + 1
    expect(await saved.json()).toMatchObject({ edits, revision })
    // A second reviewer still on the earlier revision gets the saved corrections back, and changes nothing.
    const stale = await put({
      edits: { ...edits, texts: { '0': 'theirs' } },
      revision: current.labels.revision,
    })
    expect(stale.status).toBe(409)
    expect(await stale.json()).toMatchObject({
      error: { code: 'conflict' },
      labels: { revision, edits: { texts: { '0': 'the reviewer’s own words' } } },
    })
    expect((await put({ edits: { ...edits, texts: { first: 'x' } }, revision })).status).toBe(400)
    expect((await put({ edits: { ...edits, texts: { '0': 'x'.repeat(10_001) } }, revision })).status).toBe(
      400,
    )
    const after = (await (await api(`/transcripts/${id}`)).json()) as typeof current & { edited: boolean }
    expect(after.result).toEqual(current.result)
    expect(after.labels).toMatchObject({ edits, revision })
    const listed = (await (await api('/transcripts')).json()) as {
      data: Array<{ id: string; edited: boolean }>
    }
    expect(listed.data.find((t) => t.id === id)?.edited).toBe(true)
  })

  it("aligns a reviewer's words over the saved recording through the service, and passes its refusals", async () => {
    const saved = (await (await api(`/transcripts/${id}`)).json()) as {
      result: { words: Array<{ word: string; start: number; end: number }> }
    }
    const span = saved.result.words.slice(3, 11)
    const start = Math.max(0, (span[0]?.start ?? 0) - 0.2)
    const end = (span.at(-1)?.end ?? 0) + 0.2
    const post = (body: unknown, transcript = id) =>
      api(`/transcripts/${transcript}/alignments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const res = await post({ start, end, words: span.map((w) => w.word) })
    expect(res.status).toBe(200)
    const body = (await res.json()) as { words: Array<{ word: string; start: number }> }
    const close = body.words.filter((w, i) => Math.abs(w.start - (span[i]?.start ?? 0)) <= 0.3)
    expect(close.length).toBeGreaterThanOrEqual(6)

    const tooShort = await post({ start: 0, end: 0.2, words: span.map((w) => w.word) })
    expect(tooShort.status).toBe(422)
    expect(await tooShort.json()).toMatchObject({ error: { code: 'alignment_failed' } })
    expect((await post({ start: 0, end: 1, words: [] })).status).toBe(400)
    expect((await post({ start: '0', end: 1, words: ['a'] })).status).toBe(400)
    expect((await post({ start: 0, end: 1, words: ['a'] }, 'tr_nothing')).status).toBe(404)
  }, 60_000)

  it('keeps peaks the browser measured', async () => {
    const peaks = { data: [0, 0.5, 1], duration: 30 }
    const put = await api(`/transcripts/${id}/peaks`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(peaks),
    })
    expect(put.status).toBe(204)
    expect(((await (await api(`/transcripts/${id}`)).json()) as { peaks: unknown }).peaks).toEqual(peaks)
  })

  it('passes the service refusals through and keeps nothing', async () => {
    const before = ((await (await api('/transcripts')).json()) as { data: unknown[] }).data.length
    const res = await upload({ ...reviewer }, { num_speakers: '2' })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_diarization_options' } })
    const junk = await upload({ ...reviewer }, {}, new TextEncoder().encode('not audio at all'))
    expect(junk.status).toBe(400)
    expect(((await (await api('/transcripts')).json()) as { data: unknown[] }).data.length).toBe(before)
  })

  it('is for reviewers (and admins) only, and state changes need the CSRF token', async () => {
    expect((await fetch(`${studio.base}/api/transcripts`, { headers: { ...designer } })).status).toBe(403)
    expect((await fetch(`${studio.base}/api/transcripts`)).status).toBe(401)
    expect((await upload({ cookie: reviewer.cookie })).status).toBe(403)
    expect(
      (await api(`/transcripts/${id}`, { method: 'DELETE', headers: { 'x-csrf-token': 'forged' } })).status,
    ).toBe(403)
  })

  it('deletes a transcript with its audio', async () => {
    expect((await api(`/transcripts/${id}`, { method: 'DELETE' })).status).toBe(204)
    expect((await api(`/transcripts/${id}`)).status).toBe(404)
    expect((await api(`/transcripts/${id}/audio`)).status).toBe(404)
  })
})

describe('live transcription through the backend', () => {
  it('never lets a browser mint a client secret itself', async () => {
    const res = await api('/v1/realtime/client_secrets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    expect(res.status).toBe(404)
  })

  it('refuses the socket to roles without transcription', async () => {
    const ws = (await connectWs(`${studio.base.replace('http', 'ws')}/api/v1/realtime`, null, {
      cookie: designer.cookie,
    })) as { status: number }
    expect(ws.status).toBe(403)
  })

  it('opens the session with the diarization settings minted into the secret, and transcribes', async () => {
    const ws = (await connectWs(
      `${studio.base.replace('http', 'ws')}/api/v1/realtime?diarization=true&max_speakers=3`,
      null,
      { cookie: reviewer.cookie },
    )) as WsTestClient
    expect(ws.socket).toBeDefined()
    const updated = await ws.next((m) => m.type === 'session.updated')
    expect((updated.session as { diarization: unknown }).diarization).toMatchObject({
      enabled: true,
      max_speakers: 3,
      status: 'active',
    })
    // 24 kHz PCM16 of the recording (16 kHz float, naively repeated 3:2 — enough to hear speech).
    const data = talkative.subarray(talkative.indexOf('data') + 8)
    const aligned = new Uint8Array(data.length)
    aligned.set(data)
    const floats = new Float32Array(aligned.buffer, 0, Math.floor(data.length / 4))
    const seconds = 12
    const pcm = new Int16Array(seconds * 24_000)
    for (let i = 0; i < pcm.length; i++) pcm[i] = Math.round((floats[Math.floor((i * 2) / 3)] ?? 0) * 32767)
    for (let at = 0; at < pcm.length; at += 2400) {
      ws.sendJson({
        type: 'input_audio_buffer.append',
        audio: Buffer.from(pcm.buffer, at * 2, 4800).toString('base64'),
      })
    }
    ws.sendJson({ type: 'input_audio_buffer.append', audio: Buffer.alloc(24_000 * 2).toString('base64') })
    const completed = await ws.next(
      (m) => m.type === 'conversation.item.input_audio_transcription.completed',
      60_000,
    )
    expect(typeof completed.transcript).toBe('string')
    const speakers = await ws.next(
      (m) => m.type === 'conversation.item.input_audio_transcription.speakers',
      30_000,
    )
    expect(speakers.item_id).toBe(completed.item_id)
    ws.socket.close(1000)
    await ws.closed

    // The backend kept the session: its audio as 24 kHz WAV, its turns with their speakers.
    let live: Record<string, unknown> | undefined
    for (let i = 0; i < 50 && !live; i++) {
      const list = (await (await api('/transcripts')).json()) as { data: Array<Record<string, unknown>> }
      live = list.data.find((t) => t.source === 'live')
      if (!live) await new Promise((r) => setTimeout(r, 100))
    }
    expect(live).toMatchObject({ source: 'live', created_by: 'reviewer-user', audio_type: 'audio/wav' })
    const saved = (await (await api(`/transcripts/${live?.id}`)).json()) as {
      result: { text: string; diarization: { turns: Array<{ speaker: string | null }> } }
    }
    expect(saved.result.text).toContain(String(completed.transcript).trim())
    expect(saved.result.diarization.turns[0]?.speaker).toBe(speakers.speaker)
    const wav = Buffer.from(await (await api(`/transcripts/${live?.id}/audio`)).arrayBuffer())
    expect(wav.readUInt32LE(24)).toBe(24_000)
  }, 120_000)
})

describe('helpers', () => {
  it.each([
    [undefined, 100, null],
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=50-500', 100, { start: 50, end: 99 }],
    ['bytes=100-', 100, 'invalid'],
    ['bytes=5-2', 100, 'invalid'],
    ['bytes=0-1,5-6', 100, null],
    ['bytes=0-4,5-9', 100, { start: 0, end: 9 }],
    ['bytes=-0', 100, 'invalid'],
    ['items=0-9', 100, null],
    ['bytes=0-', 0, null],
  ])('parseRange(%s, %s)', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected)
  })

  it.each([
    ['/api/v1/realtime', { diarization: { enabled: false } }],
    ['/api/v1/realtime?diarization=true', { diarization: { enabled: true } }],
    ['/api/v1/realtime?diarization=true&max_speakers=4', { diarization: { enabled: true, max_speakers: 4 } }],
    [
      '/api/v1/realtime?diarization=true&max_speakers=99',
      { diarization: { enabled: true, max_speakers: 20 } },
    ],
    ['/api/v1/realtime?diarization=true&max_speakers=0', { diarization: { enabled: true, max_speakers: 1 } }],
    ['/api/v1/realtime?diarization=true&max_speakers=x', { diarization: { enabled: true } }],
  ])('liveSettings(%s)', (url, settings) => {
    expect(liveSettings(url)).toEqual(settings)
  })
})
