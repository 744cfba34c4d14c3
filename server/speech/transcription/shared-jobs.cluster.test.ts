import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeAudio } from '../../engine/codecs/decode.ts'
import { keyFromCli } from '../../testing/keys-cli.ts'
import { meetingFile } from '../../testing/meetings.ts'
import { speechTestDatabase } from '../../testing/speech-database.ts'
import { type SpeechProcess, startSpeechProcess } from '../../testing/speech-process.ts'
import { floatToPcm16Wav } from '../../wav.ts'
import type { SpeechStorage } from '../database.ts'

/**
 * The BullMQ side of the shared transcription queue (shared-jobs.ts; docs/deploy.md, Transcription jobs), beside
 * transcription-jobs.cluster.test.ts, which proves what clients get: `server/speech/main.ts` processes on one
 * PostgreSQL schema and one Redis prefix — `a` with no workers, `b` and `c` with one each. A client leaving mid-job
 * ends the worker's BullMQ job (its active list empties as soon as the run has returned), nothing of a job stays in
 * BullMQ's keys and the queue-wide ones expire; an instance stopped with SIGTERM mid-job puts its job back in line at
 * once, sooner than its lock could lapse, and the other worker answers the client as if nothing happened; a job whose
 * worker is killed twice is failed by BullMQ's stalled limit, and its client gets the clean error while workers remain.
 */
const REDIS_URL = process.env.STUDIO_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'
/** Long, so that a job taken over sooner than the lock could lapse (about half of it) was put back by its worker. */
const TTL_MS = 8000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const prefix = `test:speech-queue:${randomUUID()}:`
const jobKeys = `${prefix}{jobs}:`
const queueKeys = `${prefix}queue{jobs}:transcription:`
/** BullMQ's queue-wide keys: the only ones that may stay between jobs, each with an expiry. */
const QUEUE_WIDE = new Set(['meta', 'id', 'events', 'stalled-check', 'stalled', 'marker'])
const dir = mkdtempSync(join(tmpdir(), 'speech-queue-'))
const database = speechTestDatabase(dir, 'postgres')
const MEETING = readFileSync(meetingFile('trn00.wav'))
const instances: SpeechProcess[] = []
let apiKey = ''
let inspect: Redis
let storage: SpeechStorage

async function startInstance(name: string, workers: number): Promise<SpeechProcess> {
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

function upload(file: Buffer, fields: Record<string, string>, signal?: AbortSignal) {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(file)]), 'audio.wav')
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  return fetch(`${instances[0]?.url}/v1/audio/transcriptions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
    ...(signal ? { signal } : {}),
  })
}

/** The pid of the instance whose run holds the (one) job, once its audio is decoded and text may follow. */
async function runningOn(): Promise<number | undefined> {
  for (const key of await inspect.keys(`${jobKeys}job:*`)) {
    const id = key.slice(`${jobKeys}job:`.length)
    if (!(await inspect.exists(`${jobKeys}events:${id}`))) continue
    const pid = Number((await inspect.hget(key, 'worker'))?.split(':')[1])
    if (pid) return pid
  }
  return undefined
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(25)) {
    const found = await probe()
    if (found !== undefined) return found
  }
  throw new Error('timed out')
}

/** BullMQ's keys beyond the queue-wide ones: job hashes, locks, lines. */
async function jobsInQueue(): Promise<string[]> {
  const keys = await inspect.keys(`${queueKeys}*`)
  const left: string[] = []
  for (const key of keys) {
    const suffix = key.slice(queueKeys.length)
    if (!QUEUE_WIDE.has(suffix)) left.push(suffix)
    // The stalled check's candidates of the last check: a set of ids that were active then, emptied by the next one.
    else if (suffix === 'stalled' && (await inspect.scard(key)) > 0) left.push('stalled (not empty)')
  }
  return left.sort()
}

async function nothingLeft() {
  await expect.poll(jobsInQueue, { timeout: 10_000, interval: 100 }).toEqual([])
  const ours = (await inspect.keys(`${jobKeys}*`)).filter(
    (k) => !k.endsWith('}:instances') && !k.endsWith('}:workers'),
  )
  expect(ours).toEqual([])
  const row = await storage.db
    .selectFrom('transcription_upload_chunks')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  expect(Number(row.n)).toBe(0)
  // Every key that stays expires: a deployment whose every instance died leaves nothing for good.
  for (const key of [...(await inspect.keys(`${jobKeys}*`)), ...(await inspect.keys(`${queueKeys}*`))]) {
    const ttl = await inspect.pttl(key)
    expect(ttl, key).toBeGreaterThan(0)
    expect(ttl, key).toBeLessThanOrEqual(10 * TTL_MS)
  }
}

beforeAll(async () => {
  inspect = new Redis(REDIS_URL)
  apiKey = await keyFromCli('queue', dir, { ...process.env, ...database.env })
  storage = await database.open()
  await Promise.all([startInstance('a', 0), startInstance('b', 1), startInstance('c', 1)])
}, 120_000)

afterAll(async () => {
  for (const instance of instances) instance.child.kill('SIGKILL')
  const keys = await inspect.keys(`${prefix}*`)
  if (keys.length) await inspect.del(...keys)
  await inspect.quit()
  await storage?.close()
  await database.drop()
  rmSync(dir, { recursive: true, force: true })
})

describe('the shared transcription queue on BullMQ', () => {
  let reference = ''

  it("ends a leaving client's BullMQ job as soon as its run stops, and keeps nothing of it", async () => {
    // The meeting once through, whole: the answer the stopped instance's client must get below.
    const whole = await upload(MEETING, { response_format: 'json' })
    expect(whole.status).toBe(200)
    reference = await whole.text()
    await nothingLeft()

    const controller = new AbortController()
    upload(MEETING, { stream: 'true' }, controller.signal).catch(() => {})
    await until(runningOn)
    expect(await inspect.llen(`${queueKeys}active`)).toBe(1)
    controller.abort()
    const left = performance.now()
    // BullMQ's active list loses the job only once the processor returned: the run stopped.
    await until(async () => ((await inspect.llen(`${queueKeys}active`)) === 0 ? true : undefined), 10_000)
    expect(performance.now() - left).toBeLessThan(5000)
    await nothingLeft()
  }, 180_000)

  it('puts the job of an instance stopped mid-job back in line at once, and the other worker answers it', async () => {
    const pending = upload(MEETING, { response_format: 'json' })
    pending.catch(() => {}) // awaited below
    const pid = await until(runningOn)
    const stopping = instances.find((i) => i.child.pid === pid)
    if (!stopping) throw new Error('no instance holds the job')
    stopping.child.kill('SIGTERM')
    const stoppedAt = performance.now()
    const other = await until(async () => {
      const now = await runningOn()
      return now && now !== pid ? now : undefined
    })
    // Sooner than the stopped worker's lock could have lapsed (half the TTL at the least) and been found stalled.
    expect(performance.now() - stoppedAt).toBeLessThan(TTL_MS / 2)
    expect(instances.find((i) => i.child.pid === other)?.name).not.toBe(stopping.name)
    const res = await pending
    expect(res.status).toBe(200)
    expect(await res.text()).toBe(reference)
    await nothingLeft()
  }, 180_000)

  it("fails a job lost twice (BullMQ's stalled limit) cleanly while workers remain, and keeps nothing of it", async () => {
    await Promise.all([startInstance('d', 1), startInstance('e', 1)])
    // Three meeting excerpts back to back: still running after a loss and a retry.
    const parts = await Promise.all(
      ['trn00.wav', 'trn01.wav', 'trn02.wav'].map(async (name) => {
        const file = readFileSync(meetingFile(name))
        return (await decodeAudio(file, { targetRate: 16_000 })).samples
      }),
    )
    const long = floatToPcm16Wav(Float32Array.from(parts.flatMap((p) => [...p])), 16_000)
    const pending = upload(long, { response_format: 'json' })
    pending.catch(() => {}) // awaited below
    const lost: number[] = []
    for (let loss = 0; loss < 2; loss++) {
      const pid = await until(async () => {
        const now = await runningOn()
        return now && !lost.includes(now) ? now : undefined
      }, 120_000)
      const victim = instances.find((i) => i.child.pid === pid)
      if (!victim) throw new Error('no instance holds the job')
      victim.child.kill('SIGKILL')
      await new Promise((resolve) => victim.child.once('exit', resolve))
      lost.push(pid)
    }
    const res = await pending
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ error: { type: 'server_error', code: 'transcription_failed' } })
    // A worker was alive all along: the job was failed by the stalled limit, not for want of a worker.
    const workers = instances.filter(
      (i) => i.name !== 'a' && i.child.exitCode === null && i.child.signalCode === null,
    )
    expect(workers.length).toBeGreaterThan(0)
    await nothingLeft()
  }, 300_000)
})
