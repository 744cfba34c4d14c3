import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeAudio } from '../../engine/codecs/decode.ts'
import { createEspeakSynthesizer, type Synthesizer } from '../../engine/index.ts'
import { keyFromCli } from '../../testing/keys-cli.ts'
import { meetingFile } from '../../testing/meetings.ts'
import { type RunningService, readSse, startSpeechService } from '../../testing/service.ts'
import { speechTestDatabase } from '../../testing/speech-database.ts'
import { type SpeechProcess, startSpeechProcess } from '../../testing/speech-process.ts'
import { spokenPcm, wavFile } from '../../testing/spoken-audio.ts'
import { floatToPcm16Wav } from '../../wav.ts'
import type { SpeechStorage } from '../database.ts'

/**
 * Transcription uploads as jobs on the queue every instance shares (shared-jobs.ts; docs/deploy.md, Transcription
 * jobs): `server/speech/main.ts` processes on one PostgreSQL schema and one Redis prefix, over HTTP only. Instance a
 * runs no workers (SPEECH_TRANSCRIPTION_WORKERS=0), so every upload it takes is worked elsewhere; its answers are
 * compared with those of a service running the work in its own process (no Redis). Workers are killed with SIGKILL
 * mid-job, and a client leaves mid-job; Redis and the database are then searched for anything left behind.
 */
const REDIS_URL = process.env.STUDIO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
/** The heartbeat TTL: how long a killed worker still counts as alive. */
const TTL_MS = 3000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Instance = SpeechProcess

const prefix = `test:speech-jobs:${randomUUID()}:`
const jobKeys = `${prefix}{jobs}:`
const dir = mkdtempSync(join(tmpdir(), 'speech-jobs-'))
const database = speechTestDatabase(dir, 'postgres')
const MEETING = readFileSync(meetingFile('trn00.wav'))
const instances: Instance[] = []
let apiKey = ''
let inspect: Redis
let storage: SpeechStorage
let synth: Synthesizer
let local: RunningService
let speech: Buffer
/** How long the meeting took to transcribe through the queue (the first test), for the leaving client's test. */
let meetingMs = Number.POSITIVE_INFINITY

async function startInstance(name: string, workers: number): Promise<Instance> {
  return startSpeechProcess(
    name,
    dir,
    {
      ...database.env,
      REDIS_URL,
      SPEECH_REDIS_PREFIX: prefix,
      SPEECH_LEASE_TTL_MS: String(TTL_MS),
      SPEECH_TRANSCRIPTION_WORKERS: String(workers),
    },
    { onSpawn: (instance) => instances.push(instance) },
  )
}

function upload(
  target: { url: string } | RunningService,
  file: Buffer,
  fields: Record<string, string>,
  key = apiKey,
  signal?: AbortSignal,
) {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(file)]), 'audio.wav')
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  const base = 'baseUrl' in target ? target.baseUrl : target.url
  return fetch(`${base}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
    ...(signal ? { signal } : {}),
  })
}

/** What an answer is, for comparing two: status, type and body (request ids differ and are left out). */
async function answer(res: Response) {
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() }
}

/**
 * The worker process running a job (its instance id holds its pid), once one has claimed it. Not known from the
 * response: an event stream's headers leave with its first event, and the meeting's two chunks are recognized side
 * by side, so its first text comes only near the end of the job.
 */
async function workerOf(): Promise<Instance | undefined> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(50)) {
    for (const key of await inspect.keys(`${jobKeys}job:*`)) {
      const pid = Number((await inspect.hget(key, 'worker'))?.split(':')[1])
      const found = instances.find((i) => i.child.pid === pid && alive(i))
      if (found) return found
    }
  }
  return undefined
}

const alive = (i: Instance) => i.child.exitCode === null && i.child.signalCode === null

async function killed(instance: Instance) {
  instance.child.kill('SIGKILL')
  await new Promise((resolve) => instance.child.once('exit', resolve))
}

/** What the queue holds beyond the registry of live instances: job records, streams, lines, processing lists. */
async function leftInRedis(): Promise<string[]> {
  const keys = await inspect.keys(`${jobKeys}*`)
  const left = keys.filter((k) => !k.endsWith('}:instances') && !k.endsWith('}:workers'))
  return left.sort()
}

async function chunksInDatabase(): Promise<number> {
  const row = await storage.db
    .selectFrom('transcription_upload_chunks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

async function asrLeases(): Promise<number> {
  let total = 0
  for (const key of await inspect.keys(`${prefix}asr:*:leases`)) total += await inspect.zcard(key)
  return total
}

async function nothingLeft() {
  await expect.poll(leftInRedis, { timeout: 10_000, interval: 100 }).toEqual([])
  await expect.poll(chunksInDatabase, { timeout: 10_000, interval: 100 }).toBe(0)
  await expect.poll(asrLeases, { timeout: 10_000, interval: 100 }).toBe(0)
}

beforeAll(async () => {
  inspect = new Redis(REDIS_URL)
  synth = await createEspeakSynthesizer({ workers: 1 })
  speech = wavFile(
    await spokenPcm(
      synth,
      'Good morning. The weather today is sunny and warm. We will meet at the station at seven.',
    ),
  )
  // The schema is made by the service's own CLI, with the key; every instance then finds both.
  apiKey = await keyFromCli('jobs', dir, { ...process.env, ...database.env })
  storage = await database.open()
  ;[local] = await Promise.all([
    // The same engines working in the test's own process: what a client got before the queue.
    startSpeechService({ synthesizer: synth }),
    startInstance('a', 0),
    startInstance('b', 2),
  ])
}, 120_000)

afterAll(async () => {
  for (const instance of instances) instance.child.kill('SIGKILL')
  await local?.close()
  await synth?.close()
  const keys = await inspect.keys(`${prefix}*`)
  if (keys.length) await inspect.del(...keys)
  await inspect.quit()
  await storage?.close()
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

describe('transcription uploads as shared jobs', () => {
  it('has an upload to an instance without workers transcribed by another, answered exactly as in process', async () => {
    const [a, b] = instances as [Instance, Instance]
    const workers = await inspect.zrange(`${jobKeys}workers`, '0', '-1')
    expect(workers.map((w) => Number(w.split(':')[1]))).toEqual([b.child.pid])
    for (const fields of [
      { response_format: 'json' },
      { response_format: 'verbose_json' },
      { response_format: 'srt' },
      { response_format: 'text' },
    ]) {
      const [queued, inProcess] = await Promise.all([
        upload(a, speech, fields).then(answer),
        upload(local, speech, fields, local.apiKey).then(answer),
      ])
      expect(queued.status, queued.body).toBe(200)
      expect(queued).toEqual(inProcess)
    }
    const started = performance.now()
    const [streamed, streamedInProcess] = await Promise.all([
      upload(a, MEETING, { stream: 'true', response_format: 'verbose_json' }),
      upload(local, MEETING, { stream: 'true', response_format: 'verbose_json' }, local.apiKey),
    ])
    expect(streamed.headers.get('content-type')).toBe(streamedInProcess.headers.get('content-type'))
    const [events, eventsInProcess] = await Promise.all([
      readSse(streamed).finally(() => {
        meetingMs = performance.now() - started
      }),
      readSse(streamedInProcess),
    ])
    expect(events.filter((e) => e.type === 'transcript.text.delta').length).toBeGreaterThan(1)
    expect(events).toEqual(eventsInProcess)
    // Errors answered before the response starts keep their HTTP status, whichever instance decoded the file.
    const [damaged, damagedInProcess] = await Promise.all([
      upload(a, speech.subarray(0, 60), { stream: 'true' }),
      upload(local, speech.subarray(0, 60), { stream: 'true' }, local.apiKey),
    ])
    expect(damaged.status).toBe(400)
    const body = (await damaged.json()) as Record<string, unknown>
    const bodyInProcess = (await damagedInProcess.json()) as Record<string, unknown>
    expect({ ...body, request_id: null }).toEqual({ ...bodyInProcess, request_id: null })
    await nothingLeft()
  }, 180_000)

  it('stops the job of a client that leaves mid-job and leaves nothing in Redis or PostgreSQL', async () => {
    const [a] = instances as [Instance]
    const controller = new AbortController()
    const pending = upload(a, MEETING, { stream: 'true' }, apiKey, controller.signal)
    pending.catch(() => {}) // cut below
    const worker = await workerOf()
    expect(worker?.name).toBe('b')
    controller.abort()
    const left = performance.now()
    // The worker stops its run: the queue's active list (BullMQ's) loses the job only when the run has ended, and
    // that comes well before the meeting could have been recognized (meetingMs, measured above).
    expect(await inspect.llen(`${prefix}queue{jobs}:transcription:active`)).toBe(1)
    await expect
      .poll(async () => inspect.llen(`${prefix}queue{jobs}:transcription:active`), {
        timeout: 10_000,
        interval: 50,
      })
      .toBe(0)
    expect(performance.now() - left).toBeLessThan(Math.min(5000, meetingMs))
    await nothingLeft()
    // And it is free for the next one.
    const next = await upload(a, speech, { response_format: 'text' })
    expect(next.status).toBe(200)
    await next.text()
  }, 120_000)

  it('retries the job of a worker killed mid-job on another, and the client still gets its whole transcript once', async () => {
    const [a] = instances as [Instance]
    await startInstance('c', 2)
    // Three meeting excerpts back to back: recognized a few chunks at a time, so text arrives while work remains.
    const parts = await Promise.all(
      ['trn00.wav', 'trn01.wav', 'trn02.wav'].map(async (name) => {
        const file = readFileSync(meetingFile(name))
        return (await decodeAudio(file, { targetRate: 16_000 })).samples
      }),
    )
    const long = floatToPcm16Wav(Float32Array.from(parts.flatMap((p) => [...p])), 16_000)
    const expected = await readSse(await upload(local, long, { stream: 'true' }, local.apiKey))
    expect(expected.filter((e) => e.type === 'transcript.text.delta').length).toBeGreaterThan(2)

    // The stream's headers leave with its first text.
    const res = await upload(a, long, { stream: 'true' })
    expect(res.status).toBe(200)
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    let text = new TextDecoder().decode((await reader.read()).value)
    expect(text).toContain('transcript.text.delta')
    expect(text).not.toContain('transcript.text.done')
    const victim = await workerOf()
    if (!victim) throw new Error('no worker holds the job')
    await killed(victim)
    // Taken over by the other worker once the dead one's heartbeat ran out.
    expect((await workerOf())?.name).not.toBe(victim.name)
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value)
    }
    const events = text
      .split('\n\n')
      .filter(Boolean)
      .map((frame) => JSON.parse(frame.slice(6)) as Record<string, unknown>)
    // The text sent before the worker died is not sent again: the deltas make up the transcript exactly once.
    expect(events).toEqual(expected)
    await nothingLeft()
  }, 300_000)

  it('fails cleanly within the heartbeat timeout when the only worker left is killed mid-job, and frees the slot', async () => {
    const [a] = instances as [Instance]
    const stream = upload(a, MEETING, { stream: 'true' })
    const whole = upload(a, MEETING, { response_format: 'json' })
    for (const res of [stream, whole]) res.catch(() => {}) // read below; a failure before must not go unhandled
    const victim = await workerOf()
    if (!victim) throw new Error('no worker holds the job')
    // Both jobs have started on the one worker left (2 at once; their audio decoded, so the stream's client gets its
    // error as an event) before it dies.
    await expect
      .poll(async () => (await inspect.keys(`${jobKeys}events:*`)).length, { timeout: 30_000, interval: 50 })
      .toBe(2)
    const holders = await Promise.all(
      (await inspect.keys(`${jobKeys}job:*`)).map((key) => inspect.hget(key, 'worker')),
    )
    expect(holders).toEqual([
      expect.stringContaining(`:${victim.child.pid}:`),
      expect.stringContaining(`:${victim.child.pid}:`),
    ])
    await killed(victim)
    const killedAt = performance.now()

    const streamed = await stream
    expect(streamed.status).toBe(200)
    const reader = (streamed.body as ReadableStream<Uint8Array>).getReader()
    const refused = await whole
    expect(refused.status).toBe(503)
    expect(await refused.json()).toMatchObject({
      error: { type: 'server_error', code: 'transcription_failed' },
      request_id: expect.stringMatching(/^req_/),
    })
    let rest = ''
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      rest += new TextDecoder().decode(value)
    }
    const last = JSON.parse(rest.trim().split('\n\n').at(-1)?.slice(6) ?? '{}') as Record<string, unknown>
    expect(last).toMatchObject({
      type: 'error',
      error: { type: 'server_error', code: 'transcription_failed' },
    })
    // Within the TTL, and a reaper's beat (a third of it), of the worker's last heartbeat.
    expect(performance.now() - killedAt).toBeLessThan(TTL_MS + TTL_MS / 3 + 1500)
    await nothingLeft()

    // No worker is left at all: a new upload is refused at once, nothing queued.
    const none = await upload(a, speech, {})
    expect(none.status).toBe(503)
    expect(none.headers.get('retry-after')).toBeTruthy()
    expect(await none.json()).toMatchObject({ error: { code: 'service_unavailable', type: 'server_error' } })
    await nothingLeft()
  }, 120_000)
})
