import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { FastifyBaseLogger } from 'fastify'
import { Redis } from 'ioredis'
import { BlobStore } from '../../storage/blobs.ts'
import type { SpeechStorage } from '../database.ts'
import { ApiError } from '../errors.ts'
import { DEFAULT_LEASE_TTL_MS, Script } from '../limits/redis-slots.ts'
import { limitsUnavailable } from '../limits/unavailable.ts'
import type { TranscriptionJob, TranscriptionJobs, TranscriptionUpload } from './jobs.ts'
import type { TranscriptionOptions } from './options.ts'
import type { TranscriptParts } from './transcript-formats.ts'
import { prepareUpload, type TranscriptionEngines, transcribeUpload } from './upload-work.ts'

/**
 * Transcription uploads as jobs any instance may run (`REDIS_URL` and `DATABASE_URL`; docs/deploy.md, Transcription
 * jobs). The instance that took the upload (the origin) keeps the file in PostgreSQL (`transcription_upload_chunks`,
 * server/storage/blobs.ts) and the job in Redis; a worker loop on every instance with workers moves it from the
 * `pending` list to its own `processing` list (BLMOVE: nothing is ever only in a worker's memory), runs it, and writes
 * its events — started, text deltas, the result or the error — to the job's Redis stream, which the origin reads and
 * relays to its client. Keys share the hash tag `{jobs}` so every script runs on one node.
 *
 * Liveness: every instance renews its score (expiry, in Redis's clock) in `instances`, and a worker also in `workers`,
 * every third of the heartbeat TTL. Every instance reaps: a worker whose score ran out has each job of its processing
 * list put back at the head of the line once (the attempt count on the job) — or, on the second loss or when no live
 * worker is left, failed with a `lost` event, which the origin answers as the contract's clean error. A worker drops a job
 * whose origin stopped renewing (its client is gone with it) or whose record was deleted (the client left), and
 * events of a run that was taken from it (it stalled past the TTL) are refused by the run token.
 */

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`
const LIVE = `redis.call('ZCOUNT', KEYS[LIVE_KEY], '(' .. now, '+inf')`

/**
 * KEYS: instances, workers, processing. ARGV: id, ttl, isWorker, keep. The registry and this worker's list expire
 * `keep` after the last beat of anyone: a deployment whose every instance died leaves nothing in Redis for good.
 */
const HEARTBEAT = `${NOW}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
if ARGV[3] == '1' then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[4]) end
end
return 1
`

/** KEYS: instances, workers. ARGV: id. A stopping instance: gone from both, so its jobs are reaped at once. */
const LEAVE = `
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then redis.call('ZADD', KEYS[2], 0, ARGV[1]) end
return 1
`

/** KEYS: instances, workers, pending. ARGV: key base, attempts allowed. Returns how many dead workers were reaped. */
const REAP = `${NOW}
local live = ${LIVE.replace('LIVE_KEY', '2')}
local dead = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, w in ipairs(dead) do
  local list = ARGV[1] .. 'processing:' .. w
  for _, id in ipairs(redis.call('LRANGE', list, 0, -1)) do
    local job = ARGV[1] .. 'job:' .. id
    if redis.call('EXISTS', job) == 1 then
      local attempts = redis.call('HINCRBY', job, 'attempts', 1)
      local events = ARGV[1] .. 'events:' .. id
      if attempts < tonumber(ARGV[2]) and live > 0 then
        redis.call('HDEL', job, 'worker', 'run')
        redis.call('RPUSH', KEYS[3], id)
        redis.call('XADD', events, '*', 'e', '{"type":"retry"}')
      else
        -- The dead worker stays named, so the origin's watch does not take the job for one never taken.
        redis.call('HDEL', job, 'run')
        redis.call('XADD', events, '*', 'e', '{"type":"lost"}')
      end
      redis.call('PEXPIRE', events, math.max(1000, redis.call('PTTL', job)))
    end
  end
  redis.call('DEL', list)
  redis.call('ZREM', KEYS[2], w)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return #dead
`

/** KEYS: workers, job, pending. ARGV: id, owner, origin, options, ttl. 0 when no worker is alive to take it. */
const ENQUEUE = `${NOW}
if ${LIVE.replace('LIVE_KEY', '1')} == 0 then return 0 end
redis.call('HSET', KEYS[2], 'owner', ARGV[2], 'origin', ARGV[3], 'options', ARGV[4], 'attempts', 0)
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('LPUSH', KEYS[3], ARGV[1])
return 1
`

/**
 * KEYS: job, events, processing, instances. ARGV: id, worker, run. {1, options} when this run is the job's now;
 * {0} when the job is gone (the client left), {-1} when its origin is gone (the job is dropped).
 */
const CLAIM = `${NOW}
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('LREM', KEYS[3], 0, ARGV[1])
  return {0}
end
local origin = redis.call('HGET', KEYS[1], 'origin')
if tonumber(redis.call('ZSCORE', KEYS[4], origin) or '0') <= now then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('LREM', KEYS[3], 0, ARGV[1])
  return {-1}
end
redis.call('HSET', KEYS[1], 'worker', ARGV[2], 'run', ARGV[3])
return {1, redis.call('HGET', KEYS[1], 'options')}
`

/** KEYS: job, events, processing. ARGV: id, run, event, final, ttl. 0 when the run is no longer the job's: stop. */
const EMIT = `
local mine = redis.call('HGET', KEYS[1], 'run') == ARGV[2]
if mine then
  redis.call('XADD', KEYS[2], '*', 'e', ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[5])
end
if ARGV[4] == '1' or not mine then redis.call('LREM', KEYS[3], 0, ARGV[1]) end
return mine and 1 or 0
`

/** KEYS: job, instances. ARGV: run. 1 go on; 0 the job was cancelled or taken over; -1 its origin is gone. */
const ALIVE = `${NOW}
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then return 0 end
if tonumber(redis.call('ZSCORE', KEYS[2], redis.call('HGET', KEYS[1], 'origin')) or '0') <= now then return -1 end
return 1
`

/**
 * KEYS: job, events, workers. ARGV: ttl. The origin's look at its waiting job (and the renewal of its keys): -1 gone,
 * 0 waiting with no live worker to take it, 1 fine.
 */
const WATCH = `${NOW}
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
if redis.call('HEXISTS', KEYS[1], 'worker') == 1 then return 1 end
if ${LIVE.replace('LIVE_KEY', '3')} > 0 then return 1 end
return 0
`

/** KEYS: job, events, pending. ARGV: id. The job is over (answered, or its client left): nothing of it stays. */
const DROP = `
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('LREM', KEYS[3], 0, ARGV[1])
return 1
`

const scripts = {
  heartbeat: new Script(HEARTBEAT),
  leave: new Script(LEAVE),
  reap: new Script(REAP),
  enqueue: new Script(ENQUEUE),
  claim: new Script(CLAIM),
  emit: new Script(EMIT),
  alive: new Script(ALIVE),
  watch: new Script(WATCH),
  drop: new Script(DROP),
}

/** One run of a job and one loss of its worker; the second loss is the client's error (put back once). */
const ATTEMPTS = 2
/** Chunks written by an origin that died before its job was queued are swept after this long. */
const ORPHAN_AGE_MS = 10 * 60_000

/** An error carried from the worker to the origin: an ApiError keeps its status and shape, anything else is a 500. */
interface WireError {
  message: string
  api?: {
    status: number
    shape: 'envelope' | 'detail'
    code: string | null
    param: string | null
    type: string
    headers: Record<string, string>
  }
}

type JobEvent =
  | { type: 'started' }
  | { type: 'delta'; delta: string }
  | { type: 'done'; parts: TranscriptParts }
  | { type: 'rejected' | 'failed'; error: WireError }
  /** Written by a reaper: the worker was lost and the job is back in line (`retry`) or given up (`lost`). */
  | { type: 'retry' | 'lost' }
  /** The origin's own watch: the job's record expired, or no worker is alive to take it. */
  | { type: 'vanished' | 'unattended' }

const toWire = (err: unknown): WireError =>
  err instanceof ApiError
    ? {
        message: err.message,
        api: {
          status: err.status,
          shape: err.shape,
          code: err.code,
          param: err.param,
          type: err.type,
          headers: err.headers,
        },
      }
    : { message: (err as Error).message ?? String(err) }

const fromWire = (w: WireError): Error =>
  w.api
    ? new ApiError(w.api.status, w.api.shape, w.message, w.api.code, w.api.param, w.api.type, w.api.headers)
    : new Error(w.message)

/** The worker of an upload stopped twice, or no other could take it over (docs/deploy.md, Transcription jobs). */
export const transcriptionLost = () =>
  new ApiError(
    503,
    'envelope',
    'The instance transcribing this upload stopped and no other could take the work over. Upload the file again.',
    'transcription_failed',
    null,
    'server_error',
    { 'retry-after': '1' },
  )

/** Every instance of the deployment runs with SPEECH_TRANSCRIPTION_WORKERS=0, or all workers have stopped. */
export const noTranscriptionWorker = () =>
  new ApiError(
    503,
    'envelope',
    'No instance of the service is running transcription work right now. Retry after the Retry-After delay.',
    'service_unavailable',
    null,
    'server_error',
    { 'retry-after': '5' },
  )

export interface SharedJobsOptions {
  url: string
  /** The deployment's key prefix (`SPEECH_REDIS_PREFIX`), shared with the limits. */
  prefix?: string | undefined
  /** How long an instance counts as alive after its last heartbeat (`SPEECH_LEASE_TTL_MS`, as the limits' leases). */
  heartbeatTtlMs?: number | undefined
  /** Jobs this instance runs at once; 0 makes it an origin only. */
  workers: number
  storage: SpeechStorage
  engines: TranscriptionEngines
  log: FastifyBaseLogger
}

/** Events of one job in arrival order, for the one request waiting on them. */
class Inbox {
  private readonly items: JobEvent[] = []
  private wake: (() => void) | undefined

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => this.wake?.(), { once: true })
  }

  push(event: JobEvent) {
    this.items.push(event)
    this.wake?.()
  }

  async next(): Promise<JobEvent> {
    for (;;) {
      this.signal.throwIfAborted()
      const event = this.items.shift()
      if (event) return event
      await new Promise<void>((resolve) => {
        this.wake = resolve
      })
      this.wake = undefined
    }
  }
}

/**
 * The origin's one reader of job streams: a single blocking XREAD over the streams of every job this instance waits
 * on, so an instance needs one connection however many uploads it holds. A job added while the read blocks unblocks
 * it (CLIENT UNBLOCK) so its stream is read from the start at once; events stay in the stream until the job is
 * dropped, so a reconnect loses none.
 */
class StreamReader {
  private readonly followed = new Map<string, { last: string; deliver: (event: JobEvent) => void }>()
  private clientId: number | undefined
  private blocked = false
  private idle: (() => void) | undefined
  private closed = false
  private loop: Promise<void> = Promise.resolve()

  constructor(
    private readonly reader: Redis,
    private readonly commands: Redis,
  ) {}

  async start() {
    this.clientId = Number(await this.reader.client('ID'))
    this.loop = this.run()
  }

  follow(stream: string, deliver: (event: JobEvent) => void): () => void {
    this.followed.set(stream, { last: '0', deliver })
    if (this.idle) this.idle()
    else if (this.blocked) void this.commands.client('UNBLOCK', this.clientId ?? 0).catch(() => {})
    return () => void this.followed.delete(stream)
  }

  async close() {
    this.closed = true
    this.idle?.()
    this.reader.disconnect()
    await this.loop
  }

  private async run() {
    while (!this.closed) {
      if (this.followed.size === 0) {
        await new Promise<void>((resolve) => {
          this.idle = resolve
        })
        this.idle = undefined
        continue
      }
      const streams = [...this.followed]
      let reply: unknown
      this.blocked = true
      try {
        reply = await this.reader.xread(
          'BLOCK',
          1000,
          'STREAMS',
          ...streams.map(([key]) => key),
          ...streams.map(([, s]) => s.last),
        )
      } catch {
        if (this.closed) return
        await new Promise((resolve) => setTimeout(resolve, 200))
        continue
      } finally {
        this.blocked = false
      }
      for (const [key, entries] of (reply ?? []) as Array<[string, Array<[string, string[]]>]>) {
        const followed = this.followed.get(key)
        if (!followed) continue
        for (const [id, fields] of entries) {
          followed.last = id
          followed.deliver(JSON.parse(fields[1] as string) as JobEvent)
        }
      }
    }
  }
}

export class SharedTranscriptionJobs implements TranscriptionJobs {
  /** This process among the instances; its pid is in it so that logs (and tests) can tell which process ran a job. */
  readonly instanceId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  private readonly base: string
  private readonly ttlMs: number
  /** How long the records of a job outlive the origin's last renewal. */
  private readonly jobTtlMs: number
  private readonly blobs: BlobStore
  private readonly reader: StreamReader
  /** Jobs this instance took an upload for: id → where its watch's findings go, and its clean-up. */
  private readonly waiting = new Map<
    string,
    { deliver: (event: JobEvent) => void; end: () => Promise<void> }
  >()
  /** The runs of this instance's workers, awaited on close. */
  private readonly works = new Set<Promise<void>>()
  /** Jobs this instance's workers run: id → run token and abort. */
  private readonly running = new Map<string, { run: string; abort: AbortController }>()
  /** Jobs taken from the line but not yet claimed or finished: what counts against `workers`. */
  private busy = 0
  private freed: (() => void) | undefined
  /** Final events a worker could not write (Redis away): written again at each tick. */
  private readonly unwritten = new Map<string, { run: string; event: JobEvent }>()
  private readonly tick: NodeJS.Timeout
  private taking: Promise<void> = Promise.resolve()
  private closed = false
  private down = false
  private lastSweep = 0

  private constructor(
    private readonly redis: Redis,
    private readonly taker: Redis,
    streams: Redis,
    private readonly opts: SharedJobsOptions,
  ) {
    this.base = `${opts.prefix ?? 'speech:'}{jobs}:`
    this.ttlMs = opts.heartbeatTtlMs ?? DEFAULT_LEASE_TTL_MS
    this.jobTtlMs = Math.max(60_000, 10 * this.ttlMs)
    this.blobs = new BlobStore(opts.storage.db, 'transcription_upload_chunks')
    this.reader = new StreamReader(streams, redis)
    this.tick = setInterval(() => void this.beat(), Math.max(100, Math.floor(this.ttlMs / 3)))
    this.tick.unref()
  }

  /** Connects, says this instance is alive (before it takes or queues anything) and starts its worker loop. */
  static async open(opts: SharedJobsOptions): Promise<SharedTranscriptionJobs> {
    const redis = new Redis(opts.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      commandTimeout: 2000,
      enableOfflineQueue: false,
    })
    // Blocking reads (BLMOVE, XREAD) wait longer than any command timeout: connections of their own, without one.
    const taker = new Redis(opts.url, { lazyConnect: true, maxRetriesPerRequest: 1 })
    const streams = new Redis(opts.url, { lazyConnect: true, maxRetriesPerRequest: 1 })
    for (const connection of [redis, taker, streams]) connection.on('error', () => {})
    try {
      await Promise.all([redis.connect(), taker.connect(), streams.connect()])
    } catch (err) {
      for (const connection of [redis, taker, streams]) connection.disconnect()
      throw new Error(`REDIS_URL is set but Redis did not answer: ${(err as Error).message}`)
    }
    const jobs = new SharedTranscriptionJobs(redis, taker, streams, opts)
    await jobs.reader.start()
    await jobs.beat()
    if (opts.workers > 0) jobs.taking = jobs.take()
    return jobs
  }

  private key = {
    pending: () => `${this.base}pending`,
    instances: () => `${this.base}instances`,
    workers: () => `${this.base}workers`,
    processing: (instance: string) => `${this.base}processing:${instance}`,
    job: (id: string) => `${this.base}job:${id}`,
    events: (id: string) => `${this.base}events:${id}`,
  }

  private async run(script: keyof typeof scripts, keys: string[], args: Array<string | number>) {
    try {
      const result = await scripts[script].run(this.redis, keys, args)
      if (this.down) this.opts.log.warn('transcription jobs: Redis is back')
      this.down = false
      return result
    } catch (err) {
      // Said once, not at every beat while Redis is away.
      if (!this.down)
        this.opts.log.warn({ err }, 'transcription jobs: Redis unavailable, new uploads answer 503')
      this.down = true
      throw limitsUnavailable()
    }
  }

  // The origin: store, queue, relay.

  async start(upload: TranscriptionUpload, signal: AbortSignal): Promise<TranscriptionJob> {
    const id = randomBytes(12).toString('hex')
    const inbox = new Inbox(signal)
    const file = upload.file
    const stored = this.blobs.put(
      id,
      (async function* () {
        yield file
      })(),
    )
    const unfollow = this.reader.follow(this.key.events(id), (event) => inbox.push(event))
    let ended: Promise<void> | undefined
    // However the job ends — answered, failed, or the client gone — its record, stream and file go at once.
    const end = () => {
      ended ??= (async () => {
        unfollow()
        await this.run('drop', [this.key.job(id), this.key.events(id), this.key.pending()], [id]).catch(
          () => {},
        )
        // After the file is written (a client that left mid-write): deleted before, its later chunks would stay.
        await stored.catch(() => {})
        await this.blobs.delete(id).catch(() => {})
        this.waiting.delete(id)
      })()
      return ended
    }
    signal.addEventListener('abort', () => void end(), { once: true })
    try {
      await stored
      signal.throwIfAborted()
      const queued = await this.run(
        'enqueue',
        [this.key.workers(), this.key.job(id), this.key.pending()],
        [id, upload.ownerId, this.instanceId, JSON.stringify(upload.options), this.jobTtlMs],
      )
      if (Number(queued) !== 1) throw noTranscriptionWorker()
      // Watched from now on (the beat looks for its record, which exists only once it is queued).
      if (!ended) this.waiting.set(id, { deliver: (event) => inbox.push(event), end })
      for (;;) {
        const event = await inbox.next()
        if (event.type === 'started') break
        if (event.type !== 'retry') throw failure(event)
      }
    } catch (err) {
      await end()
      throw err
    }
    return {
      result: async (onText) => {
        // A retried job recognizes the same audio again (recognition is deterministic, docs/recognition.md): text the
        // client already has is not sent twice.
        let relayed = 0
        let recognized = 0
        try {
          for (;;) {
            const event = await inbox.next()
            if (event.type === 'started') continue
            if (event.type === 'retry') recognized = 0
            else if (event.type === 'delta') {
              recognized += event.delta.length
              if (recognized > relayed) {
                onText?.(event.delta.slice(event.delta.length - (recognized - relayed)))
                relayed = recognized
              }
            } else if (event.type === 'done') return event.parts
            else throw failure(event)
          }
        } finally {
          await end()
        }
      },
    }
  }

  // The worker: take, claim, run, report.

  private async take() {
    while (!this.closed) {
      if (this.busy >= this.opts.workers) {
        await new Promise<void>((resolve) => {
          this.freed = resolve
        })
        this.freed = undefined
        continue
      }
      let id: string | null
      try {
        id = await this.taker.blmove(
          this.key.pending(),
          this.key.processing(this.instanceId),
          'RIGHT',
          'LEFT',
          1,
        )
      } catch {
        if (this.closed) return
        await new Promise((resolve) => setTimeout(resolve, 500))
        continue
      }
      if (id) {
        this.busy++
        const work = this.work(id).finally(() => {
          this.busy--
          this.works.delete(work)
          this.freed?.()
        })
        this.works.add(work)
      }
    }
  }

  private async work(id: string) {
    const runToken = randomBytes(9).toString('base64url')
    let claim: [number, string?] = [0]
    // The job is in this instance's processing list already: a claim lost to a Redis hiccup is tried again (for
    // about ten seconds), or the origin would wait on a job nobody runs.
    for (let tries = 0; ; tries++) {
      try {
        claim = (await this.run(
          'claim',
          [this.key.job(id), this.key.events(id), this.key.processing(this.instanceId), this.key.instances()],
          [id, this.instanceId, runToken],
        )) as [number, string?]
        break
      } catch {
        if (this.closed || tries >= 20) return
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
    }
    if (claim[0] === -1) await this.blobs.delete(id).catch(() => {})
    if (claim[0] !== 1) return
    const options = JSON.parse(claim[1] as string) as TranscriptionOptions
    const abort = new AbortController()
    this.running.set(id, { run: runToken, abort })
    const emit = async (event: JobEvent, final = false) => {
      const mine = await this.run(
        'emit',
        [this.key.job(id), this.key.events(id), this.key.processing(this.instanceId)],
        [id, runToken, JSON.stringify(event), final ? '1' : '0', this.jobTtlMs],
      )
      if (Number(mine) !== 1) abort.abort()
    }
    const finish = (event: JobEvent) =>
      emit(event, true).catch(() => {
        this.unwritten.set(id, { run: runToken, event })
      })
    try {
      const file = await this.blobs.read(id)
      if (!file) throw new Error('The upload was not found in the database.')
      let audio: Float32Array
      try {
        audio = await prepareUpload(this.opts.engines, file)
      } catch (err) {
        await finish({ type: 'rejected', error: toWire(err) })
        return
      }
      await emit({ type: 'started' })
      abort.signal.throwIfAborted()
      const parts = await transcribeUpload(this.opts.engines, audio, options, {
        signal: abort.signal,
        log: this.opts.log,
        // Written in order on one connection; a refusal (the job was cancelled) aborts the run.
        onText: (delta) => void emit({ type: 'delta', delta }).catch(() => {}),
      })
      await finish({ type: 'done', parts })
    } catch (err) {
      if (abort.signal.aborted) {
        await this.redis.lrem(this.key.processing(this.instanceId), 0, id).catch(() => {})
      } else {
        this.opts.log.error({ err, job: id }, 'transcription job failed')
        await finish({ type: 'failed', error: toWire(err) })
      }
    } finally {
      this.running.delete(id)
    }
  }

  // Every third of the TTL: alive, reap the dead, watch what this instance waits on and runs.

  private async beat() {
    const log = this.opts.log
    try {
      await this.run(
        'heartbeat',
        [this.key.instances(), this.key.workers(), this.key.processing(this.instanceId)],
        [this.instanceId, this.ttlMs, this.opts.workers > 0 ? '1' : '0', this.jobTtlMs],
      )
      const reaped = Number(
        await this.run(
          'reap',
          [this.key.instances(), this.key.workers(), this.key.pending()],
          [this.base, ATTEMPTS],
        ),
      )
      if (reaped > 0)
        log.warn({ workers: reaped }, 'transcription workers stopped; their jobs were put back or failed')
      for (const [id, { deliver }] of this.waiting) {
        const state = Number(
          await this.run(
            'watch',
            [this.key.job(id), this.key.events(id), this.key.workers()],
            [this.jobTtlMs],
          ),
        )
        if (state === -1) deliver({ type: 'vanished' })
        else if (state === 0) deliver({ type: 'unattended' })
      }
      for (const [id, { run, abort }] of this.running) {
        const state = Number(await this.run('alive', [this.key.job(id), this.key.instances()], [run]))
        if (state === 1) continue
        abort.abort()
        if (state === -1) {
          await this.run('drop', [this.key.job(id), this.key.events(id), this.key.pending()], [id])
          await this.blobs.delete(id)
        }
      }
      for (const [id, { run, event }] of this.unwritten) {
        await this.run(
          'emit',
          [this.key.job(id), this.key.events(id), this.key.processing(this.instanceId)],
          [id, run, JSON.stringify(event), '1', this.jobTtlMs],
        )
        this.unwritten.delete(id)
      }
      if (Date.now() - this.lastSweep > ORPHAN_AGE_MS) {
        this.lastSweep = Date.now()
        await this.blobs.sweep(async (keys) => {
          const exists = await Promise.all(keys.map((k) => this.redis.exists(this.key.job(k))))
          return new Set(keys.filter((_, i) => exists[i] === 1))
        }, ORPHAN_AGE_MS)
      }
    } catch (err) {
      // Redis or the database away: said by the command that failed; the next beat tries again.
      if (!(err instanceof ApiError)) log.warn({ err }, 'transcription jobs: heartbeat failed')
    }
  }

  /**
   * A stopping instance takes no more jobs, leaves the registry so that the jobs it runs go back to the line at once
   * (or fail cleanly when no worker is left), and ends the jobs it took uploads for (their clients are gone).
   */
  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.tick)
    this.freed?.()
    this.taker.disconnect()
    await this.taking
    await this.run('leave', [this.key.instances(), this.key.workers()], [this.instanceId]).catch(() => {})
    await this.run(
      'reap',
      [this.key.instances(), this.key.workers(), this.key.pending()],
      [this.base, ATTEMPTS],
    ).catch(() => {})
    for (const { abort } of this.running.values()) abort.abort()
    await Promise.allSettled([...this.works, ...[...this.waiting.values()].map(({ end }) => end())])
    await this.reader.close()
    await this.redis.quit().catch(() => this.redis.disconnect())
  }
}

/** The client's error for an event that ends a job without a transcript. */
function failure(event: JobEvent): Error {
  switch (event.type) {
    case 'rejected':
    case 'failed':
      return fromWire(event.error)
    case 'unattended':
      return noTranscriptionWorker()
    default:
      return transcriptionLost()
  }
}
