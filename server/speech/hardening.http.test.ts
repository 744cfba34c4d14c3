import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONSENT_PHRASE } from '../../schema/index.ts'
import { createEspeakSynthesizer } from '../engine/index.ts'
import { parseRawResponse, rawRequest, rawSocket, specErrorProblem } from '../testing/raw-http.ts'
import { type RunningService, startSpeechService } from '../testing/service.ts'
import { speechTestDatabase } from '../testing/speech-database.ts'
import { spokenPcm, wavFile } from '../testing/spoken-audio.ts'

/**
 * Findings of an outside probe, each through the real service over HTTP: refused uploads that stalled keep-alive
 * connections, malformed multipart answered 500, router errors outside the contract's shapes, aborted clients logged as
 * errors, and data files readable by other users.
 */

/** Every log line of the service, parsed; the logger writes to this stream as it would to a file. */
const logLines: Array<Record<string, unknown>> = []
let svc: RunningService

beforeAll(async () => {
  svc = await startSpeechService({
    logger: {
      level: 'debug',
      stream: { write: (line: string) => logLines.push(JSON.parse(line) as Record<string, unknown>) },
    },
  })
})
afterAll(() => svc?.close())

const auth = () => ({ authorization: `Bearer ${svc.apiKey}` })
const json = (buf: Buffer): unknown => JSON.parse(buf.toString('utf8'))

/** A multipart body written by hand, so tests can break it. */
function multipart(
  parts: Array<{ name: string; value: string | Buffer; filename?: string }>,
  boundary = 'XyZ',
) {
  const chunks: Buffer[] = []
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`
    chunks.push(Buffer.from(`--${boundary}\r\ncontent-disposition: ${disposition}\r\n\r\n`))
    chunks.push(Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value))
    chunks.push(Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

const MULTIPART_ROUTES = [
  '/v1/audio/speech',
  '/v1/audio/voices',
  '/v1/audio/voice_consents',
  '/v1/audio/transcriptions',
  '/v1/realtime/calls',
]

describe('a refused transcription upload leaves its keep-alive connection usable', () => {
  const cases = {
    'a 70 KB prompt': multipart([
      { name: 'model', value: 'whisper-1' },
      { name: 'prompt', value: 'p'.repeat(70_000) },
      { name: 'file', value: Buffer.alloc(200_000, 1), filename: 'a.wav' },
    ]),
    'a file in a field other than file': multipart([
      { name: 'audio', value: Buffer.alloc(200_000, 1), filename: 'a.wav' },
    ]),
  }
  for (const [name, form] of Object.entries(cases)) {
    it(`answers the next request on the same socket after refusing ${name}`, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
      try {
        const refused = await rawRequest(svc.baseUrl, {
          method: 'POST',
          path: '/v1/audio/transcriptions',
          headers: { ...auth(), 'content-type': form.contentType },
          body: form.body,
          agent,
          timeoutMs: 5000,
        })
        expect(refused.status).toBe(400)
        expect(specErrorProblem(json(refused.body))).toBeNull()
        const next = await rawRequest(svc.baseUrl, {
          path: '/v1/voices',
          headers: auth(),
          agent,
          timeoutMs: 5000,
        })
        expect(next.reusedSocket).toBe(true)
        expect(next.status).toBe(200)
      } finally {
        agent.destroy()
      }
    })
  }
})

describe('malformed and truncated multipart bodies are the client’s 400, never a 500', () => {
  for (const path of MULTIPART_ROUTES) {
    it(`${path}: a JSON body under a multipart content type`, async () => {
      const res = await rawRequest(svc.baseUrl, {
        method: 'POST',
        path,
        headers: { ...auth(), 'content-type': 'multipart/form-data; boundary=zzz' },
        body: JSON.stringify({ model: 'svc-tts-2-latest', input: 'Hello.' }),
      })
      expect(res.status).toBe(400)
      expect(specErrorProblem(json(res.body))).toBeNull()
    })

    it(`${path}: a form cut off in a part's headers, in a file, before its closing boundary`, async () => {
      const { body, contentType } = multipart([
        { name: 'name', value: 'Ada' },
        { name: 'file', value: Buffer.alloc(4000, 7), filename: 'a.wav' },
      ])
      for (const end of [12, 60, body.length - 2000, body.length - 8]) {
        const res = await rawRequest(svc.baseUrl, {
          method: 'POST',
          path,
          headers: { ...auth(), 'content-type': contentType },
          body: body.subarray(0, end),
        })
        expect([end, res.status]).toEqual([end, 400])
        expect(specErrorProblem(json(res.body))).toBeNull()
      }
    })
  }
})

describe('the router’s own 4xx answers come in the contract’s error shapes', () => {
  it('a path with a bad % escape', async () => {
    const res = await rawRequest(svc.baseUrl, { path: '/v1/voices%', headers: auth() })
    expect(res.status).toBe(400)
    expect(res.headers['x-request-id']).toMatch(/^req_/)
    expect(specErrorProblem(json(res.body))).toBeNull()
  })

  it('a 300-character voice id', async () => {
    const res = await rawRequest(svc.baseUrl, {
      method: 'DELETE',
      path: `/v1/audio/voices/voice_${'a'.repeat(300)}`,
      headers: auth(),
    })
    expect(res.status).toBe(414)
    expect(specErrorProblem(json(res.body))).toBeNull()
  })

  it('a request that is not valid HTTP', async () => {
    const { response } = await rawSocket(svc.baseUrl, 'GET /v1/voices HTTP/1.1\r\nbad header line\r\n\r\n')
    const { status, body } = parseRawResponse(response)
    expect(status).toBe(400)
    expect(specErrorProblem(body)).toBeNull()
  })
})

describe('clients that go away are not logged as errors', () => {
  const LONG = 'A long sentence keeps the generation busy for a while. '.repeat(30)
  const speechRequest = (body: object, contentLength?: number) => {
    const text = JSON.stringify(body)
    return (
      `POST /v1/audio/speech HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${svc.apiKey}\r\n` +
      `content-type: application/json\r\ncontent-length: ${contentLength ?? Buffer.byteLength(text)}\r\n\r\n${text}`
    )
  }

  it('logs an aborted stream, synthesis, upload or body at info at most once each, and nothing at warn or above', async () => {
    const before = logLines.length
    const cut = (bytes: string, ms: number) => rawSocket(svc.baseUrl, bytes, { destroyAfterMs: ms })
    // A stream cut after its first bytes, a whole-file synthesis cut before its answer, an SSE stream.
    await cut(speechRequest({ input: LONG, response_format: 'pcm' }), 400)
    await cut(
      speechRequest({ model: 'svc-tts-2-latest', input: LONG, stream: false, response_format: 'mp3' }),
      400,
    )
    await cut(speechRequest({ input: LONG, stream_format: 'sse', response_format: 'pcm' }), 400)
    // Bodies cut short: JSON, a consent recording, a transcription upload.
    await cut(speechRequest({ input: 'Hi.' }, 1000).slice(0, -4), 200)
    for (const path of ['/v1/audio/voice_consents', '/v1/audio/transcriptions']) {
      const head =
        `POST ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${svc.apiKey}\r\n` +
        'content-type: multipart/form-data; boundary=XyZ\r\ncontent-length: 100000\r\n\r\n' +
        '--XyZ\r\ncontent-disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF'
      await cut(head, 200)
    }
    await expect.poll(() => svc.service.ttsSlots.held(), { timeout: 10_000 }).toBe(0)
    await new Promise((resolve) => setTimeout(resolve, 500))

    const lines = logLines.slice(before)
    expect(lines.filter((l) => Number(l.level) >= 40)).toEqual([])
    const gone = lines.filter((l) => l.msg === 'client went away' || l.msg === 'stream closed prematurely')
    expect(gone.length).toBeGreaterThanOrEqual(3)
    expect(new Set(gone.map((l) => l.reqId)).size).toBe(gone.length)
    for (const l of gone) expect(l.level).toBeLessThanOrEqual(30)
  }, 30_000)
})

describe('data files are for the service’s user only', () => {
  it('creates the database and its WAL files 0600 in a 0700 folder, and no audio file, whatever the umask', async () => {
    const synth = await createEspeakSynthesizer({ workers: 1 })
    const pad = new Int16Array(12_000)
    const recording = wavFile(
      Int16Array.from([...pad, ...(await spokenPcm(synth, CONSENT_PHRASE, 'english_40')), ...pad]),
    )
    const dir = mkdtempSync(join(tmpdir(), 'speech-modes-'))
    const dataDir = join(dir, 'data')
    const database = speechTestDatabase(dataDir)
    // A umask that would leave everything world-readable and -writable.
    const umask = process.umask(0)
    let local: RunningService | undefined
    try {
      local = await startSpeechService({ dataDir, synthesizer: synth })
      const form = new FormData()
      form.append('name', 'Ada')
      form.append('language', 'en-US')
      form.append('consent_transcript', CONSENT_PHRASE)
      form.append('recording', new Blob([new Uint8Array(recording)]), 'consent.wav')
      const res = await fetch(`${local.baseUrl}/v1/audio/voice_consents`, {
        method: 'POST',
        headers: { authorization: `Bearer ${local.apiKey}` },
        body: form,
      })
      expect(res.status).toBe(200)
      const { id } = (await res.json()) as { id: string }

      const mode = (path: string) => (statSync(path).mode & 0o777).toString(8)
      expect(await local.service.voices.store.artifactIds('consents')).toEqual([id])
      expect([dataDir, mode(dataDir)]).toEqual([dataDir, '700'])
      // The recording is a row of the database (database.ts), never a file of its own.
      expect(existsSync(join(dataDir, 'voice-store'))).toBe(false)
      // The master key file too (SQLite, no SPEECH_MASTER_KEY): 0600 like the data it opens.
      const files =
        database.backend === 'sqlite'
          ? ['speech-master.key', 'speech.db', 'speech.db-shm', 'speech.db-wal']
          : []
      expect(readdirSync(dataDir).sort()).toEqual(files)
      for (const file of files.map((f) => join(dataDir, f))) expect([file, mode(file)]).toEqual([file, '600'])
    } finally {
      process.umask(umask)
      await local?.close()
      await database.drop()
      await synth.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
