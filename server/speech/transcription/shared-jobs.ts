import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import { type Job, Queue, WaitingError, Worker } from 'bullmq'
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
 * jobs). The queue is BullMQ's: a BullMQ Worker on every instance with workers takes jobs, holds a lock on each while
 * it runs, and BullMQ's stalled check puts the job of a worker whose lock lapsed back in line once
 * (`maxStalledCount: 1`), failing it on the second loss.
 *
 * What BullMQ does not provide stays here, small: the file in PostgreSQL (server/storage/blobs.ts); a registry of live
 * instances and workers (expiries in Redis's clock, renewed every third of the heartbeat TTL) so that a worker drops
 * the job of an origin that died, and an origin fails its job when its worker died with no other left to take it;
 * a job record (`job:<id>`: origin, worker, run token) whose deletion cancels the job wherever it runs and whose run
 * token refuses the events of a run that lost its job; and the job's event stream (`events:<id>`) that the origin
 * relays to its client.
 */

const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`

/**
 * KEYS: instances, workers, then BullMQ's queue-wide keys. ARGV: id, ttl, isWorker, keep. Every key of the queue
 * expires `keep` after the last beat of anyone: a deployment whose every instance died leaves nothing in Redis for good.
 */
const HEARTBEAT = `${NOW}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if ARGV[3] == '1' then redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1]) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[4]) end
end
return 1
`

/** KEYS: instances, workers. ARGV: id. A stopping instance. */
const LEAVE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`

/** KEYS: workers, job. ARGV: owner, origin, ttl. 0 when no worker is alive to take it. */
const RECORD = `${NOW}
if redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf') == 0 then return 0 end
redis.call('HSET', KEYS[2], 'owner', ARGV[1], 'origin', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
`

/**
 * KEYS: job, events, instances. ARGV: worker, run, ttl. 1 when this run is the job's now (a run after a lost one says
 * `retry` first); 0 when the job is gone (the client left); -1 when its origin is gone (the job is dropped).
 */
const CLAIM = `${NOW}
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local origin = redis.call('HGET', KEYS[1], 'origin')
if tonumber(redis.call('ZSCORE', KEYS[3], origin) or '0') <= now then
  redis.call('DEL', KEYS[1], KEYS[2])
  return -1
end
if redis.call('HEXISTS', KEYS[1], 'worker') == 1 then
  redis.call('XADD', KEYS[2], '*', 'e', '{"type":"retry"}')
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
redis.call('HSET', KEYS[1], 'worker', ARGV[1], 'run', ARGV[2])
return 1
`

/** KEYS: job, events. ARGV: run, event, ttl. 0 when the run is no longer the job's: stop. */
const EMIT = `
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then return 0 end
redis.call('XADD', KEYS[2], '*', 'e', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
`

/** KEYS: job, events. ARGV: ttl. BullMQ failed the job (lost twice): its origin answers the clean error. */
const LOST = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HDEL', KEYS[1], 'run')
redis.call('XADD', KEYS[2], '*', 'e', '{"type":"lost"}')
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
`

/** KEYS: job, instances. ARGV: run. 1 go on; 0 the job was cancelled or taken over; -1 its origin is gone. */
const ALIVE = `${NOW}
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then return 0 end
if tonumber(redis.call('ZSCORE', KEYS[2], redis.call('HGET', KEYS[1], 'origin')) or '0') <= now then return -1 end
return 1
`

/**
 * KEYS: job, events, workers, BullMQ's job. ARGV: ttl. The origin's look at its job (and the renewal of its keys):
 * -1 gone; -2 its worker died and no worker is left to take it over; 0 never taken and no worker alive; 1 fine.
 */
const WATCH = `${NOW}
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
if redis.call('EXISTS', KEYS[4]) == 1 then redis.call('PEXPIRE', KEYS[4], ARGV[1]) end
local worker = redis.call('HGET', KEYS[1], 'worker')
if worker and tonumber(redis.call('ZSCORE', KEYS[3], worker) or '0') > now then return 1 end
if redis.call('ZCOUNT', KEYS[3], '(' .. now, '+inf') > 0 then return 1 end
if worker then return -2 end
return 0
`

const scripts = {
  heartbeat: new Script(HEARTBEAT),
  leave: new Script(LEAVE),
  record: new Script(RECORD),
  claim: new Script(CLAIM),
  emit: new Script(EMIT),
  lost: new Script(LOST),
  alive: new Script(ALIVE),
  watch: new Script(WATCH),
}

/** BullMQ's queue. Its keys share the hash tag `{jobs}` with the records and streams, so scripts span both. */
const QUEUE = 'transcription'
/** BullMQ's queue-wide keys that the heartbeat keeps expiring (not `stalled-check`, whose own expiry paces checks). */
const QUEUE_KEYS = [
  'wait',
  'active',
  'paused',
  'id',
  'delayed',
  'prioritized',
  'completed',
  'failed',
  'stalled',
  'meta',
  'events',
  'pc',
  'marker',
  'waiting-children',
]
/** Chunks written by an origin that died before its job was queued are swept after this long. */
const ORPHAN_AGE_MS = 10 * 60_000

interface JobData {
  owner: string
  options: TranscriptionOptions
}

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
  /** `retry`: a new run of a job whose worker was lost (BullMQ put it back); `lost`: BullMQ gave the job up. */
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
  private readonly queue: Queue<JobData>
  private worker: Worker<JobData> | undefined
  /** Jobs this instance took an upload for: id → where its watch's findings go, and its clean-up. */
  private readonly waiting = new Map<
    string,
    { deliver: (event: JobEvent) => void; end: () => Promise<void> }
  >()
  /** Jobs this instance's workers run: id → run token and abort. */
  private readonly running = new Map<string, { run: string; abort: AbortController }>()
  /** Final events a worker could not write (Redis away): written again at each tick. */
  private readonly unwritten = new Map<string, { run: string; event: JobEvent }>()
  /** Ended jobs BullMQ still held locked when their origin let them go: removed at a later tick. */
  private readonly unremoved = new Set<string>()
  private readonly tick: NodeJS.Timeout
  private closed = false
  private down = false
  private lastSweep = 0

  private constructor(
    private readonly redis: Redis,
    private readonly blocking: Redis,
    streams: Redis,
    private readonly opts: SharedJobsOptions,
  ) {
    const prefix = opts.prefix ?? 'speech:'
    this.base = `${prefix}{jobs}:`
    this.ttlMs = opts.heartbeatTtlMs ?? DEFAULT_LEASE_TTL_MS
    this.jobTtlMs = Math.max(60_000, 10 * this.ttlMs)
    this.blobs = new BlobStore(opts.storage.db, 'transcription_upload_chunks')
    this.reader = new StreamReader(streams, redis)
    // Finished jobs are deleted at once; nobody reads BullMQ's own event stream, so it is kept short.
    this.queue = new Queue<JobData>(QUEUE, {
      connection: redis,
      prefix: `${prefix}queue{jobs}`,
      streams: { events: { maxLen: 100 } },
      defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: true },
    })
    this.queue.on('error', (err) => this.opts.log.warn({ err }, 'transcription queue error'))
    this.tick = setInterval(() => void this.beat(), this.beatMs)
    this.tick.unref()
  }

  private get beatMs() {
    return Math.max(100, Math.floor(this.ttlMs / 3))
  }

  /** Connects, says this instance is alive (before it takes or queues anything) and starts its workers. */
  static async open(opts: SharedJobsOptions): Promise<SharedTranscriptionJobs> {
    const redis = new Redis(opts.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      commandTimeout: 2000,
      enableOfflineQueue: false,
    })
    // Blocking reads (BullMQ's worker, XREAD) wait longer than any command timeout: connections of their own.
    const blocking = new Redis(opts.url, { lazyConnect: true, maxRetriesPerRequest: null })
    const streams = new Redis(opts.url, { lazyConnect: true, maxRetriesPerRequest: 1 })
    for (const connection of [redis, blocking, streams]) connection.on('error', () => {})
    try {
      await Promise.all([redis.connect(), blocking.connect(), streams.connect()])
    } catch (err) {
      for (const connection of [redis, blocking, streams]) connection.disconnect()
      throw new Error(`REDIS_URL is set but Redis did not answer: ${(err as Error).message}`)
    }
    const jobs = new SharedTranscriptionJobs(redis, blocking, streams, opts)
    await jobs.queue.waitUntilReady()
    await jobs.reader.start()
    await jobs.beat()
    if (opts.workers > 0) jobs.startWorker()
    return jobs
  }

  private key = {
    instances: () => `${this.base}instances`,
    workers: () => `${this.base}workers`,
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
    // However the job ends — answered, failed, or the client gone — its record, stream, BullMQ job and file go at once.
    const end = () => {
      ended ??= (async () => {
        unfollow()
        await this.redis.del(this.key.job(id), this.key.events(id)).catch(() => {})
        await this.remove(id)
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
      const recorded = await this.run(
        'record',
        [this.key.workers(), this.key.job(id)],
        [upload.ownerId, this.instanceId, this.jobTtlMs],
      )
      if (Number(recorded) !== 1) throw noTranscriptionWorker()
      await this.queue
        .add('upload', { owner: upload.ownerId, options: upload.options }, { jobId: id })
        .catch(() => {
          throw limitsUnavailable()
        })
      // Watched from now on: its worker's liveness, and its keys' expiry renewed.
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

  /** Removes a job from BullMQ; one still locked by its worker (which will see it cancelled) is tried again later. */
  private async remove(id: string) {
    const removed = await this.queue.remove(id).catch(() => 0)
    if (removed === 1) this.unremoved.delete(id)
    else this.unremoved.add(id)
  }

  // The worker: BullMQ hands it a job; it claims, runs and reports.

  private startWorker() {
    // Events travel by the job's own Redis stream, not QueueEvents or job progress: BullMQ's event stream is one
    // capped log that every origin would read in full, while a job's stream is read by its origin alone, in order,
    // and deleted with the job, so a cancelled job leaves nothing and no delta is dropped or delivered twice.
    const worker = new Worker<JobData>(QUEUE, (job, token) => this.process(job, token), {
      connection: this.blocking,
      prefix: `${this.opts.prefix ?? 'speech:'}queue{jobs}`,
      name: this.instanceId,
      concurrency: this.opts.workers,
      // The heartbeat TTL is also the lock's: a killed worker's job is back in line within about 4/3 of it.
      lockDuration: this.ttlMs,
      stalledInterval: this.beatMs,
      maxStalledCount: 1,
    })
    worker.on('error', (err) => {
      if (!this.down) this.opts.log.warn({ err }, 'transcription worker error')
    })
    // `process` reports its own failures and never throws: a failed job is BullMQ's verdict, lost twice.
    worker.on('failed', (job) => {
      if (!job?.id) return
      this.opts.log.warn({ job: job.id }, 'transcription job lost twice; failed')
      void this.run('lost', [this.key.job(job.id), this.key.events(job.id)], [this.jobTtlMs]).catch(() => {})
    })
    this.worker = worker
  }

  private async process(job: Job<JobData>, token: string | undefined) {
    const id = job.id as string
    const run = randomBytes(9).toString('base64url')
    let claim = 0
    // A claim lost to a Redis hiccup is tried again (for about ten seconds), or the origin would wait on a job
    // BullMQ believes taken.
    for (let tries = 0; ; tries++) {
      try {
        claim = Number(
          await this.run(
            'claim',
            [this.key.job(id), this.key.events(id), this.key.instances()],
            [this.instanceId, run, this.jobTtlMs],
          ),
        )
        break
      } catch {
        if (this.closed || tries >= 20) return
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
    }
    if (claim === -1) await this.blobs.delete(id).catch(() => {})
    if (claim !== 1) return
    const abort = new AbortController()
    this.running.set(id, { run, abort })
    const emit = async (event: JobEvent) => {
      const mine = await this.run(
        'emit',
        [this.key.job(id), this.key.events(id)],
        [run, JSON.stringify(event), this.jobTtlMs],
      )
      if (Number(mine) !== 1) abort.abort()
    }
    const finish = (event: JobEvent) =>
      emit(event).catch(() => {
        this.unwritten.set(id, { run, event })
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
      const parts = await transcribeUpload(this.opts.engines, audio, job.data.options, {
        signal: abort.signal,
        log: this.opts.log,
        // Written in order on one connection; a refusal (the job was cancelled) aborts the run.
        onText: (delta) => void emit({ type: 'delta', delta }).catch(() => {}),
      })
      await finish({ type: 'done', parts })
    } catch (err) {
      if (!abort.signal.aborted) {
        this.opts.log.error({ err, job: id }, 'transcription job failed')
        await finish({ type: 'failed', error: toWire(err) })
      } else if (this.closed && token) {
        // This instance is stopping: the job goes back to the line at once, for another worker to run again.
        await job.moveToWait(token)
        throw new WaitingError()
      }
    } finally {
      this.running.delete(id)
    }
  }

  // Every third of the TTL: alive, watch what this instance waits on and runs.

  private async beat() {
    const log = this.opts.log
    try {
      await this.run(
        'heartbeat',
        [this.key.instances(), this.key.workers(), ...QUEUE_KEYS.map((k) => this.queue.toKey(k))],
        [this.instanceId, this.ttlMs, this.opts.workers > 0 ? '1' : '0', this.jobTtlMs],
      )
      for (const [id, { deliver }] of this.waiting) {
        const state = Number(
          await this.run(
            'watch',
            [this.key.job(id), this.key.events(id), this.key.workers(), this.queue.toKey(id)],
            [this.jobTtlMs],
          ),
        )
        if (state === -1 || state === -2) deliver({ type: state === -1 ? 'vanished' : 'lost' })
        else if (state === 0) deliver({ type: 'unattended' })
      }
      for (const [id, { run, abort }] of this.running) {
        const state = Number(await this.run('alive', [this.key.job(id), this.key.instances()], [run]))
        if (state === 1) continue
        abort.abort()
        if (state === -1) {
          await this.redis.del(this.key.job(id), this.key.events(id))
          await this.blobs.delete(id)
        }
      }
      for (const [id, { run, event }] of this.unwritten) {
        await this.run(
          'emit',
          [this.key.job(id), this.key.events(id)],
          [run, JSON.stringify(event), this.jobTtlMs],
        )
        this.unwritten.delete(id)
      }
      for (const id of this.unremoved) await this.remove(id)
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
   * A stopping instance takes no more jobs, puts the jobs it runs back in line at once (their origins fail them
   * cleanly when no worker is left), leaves the registry, and ends the jobs it took uploads for (their clients are gone).
   */
  async close(): Promise<void> {
    this.closed = true
    clearInterval(this.tick)
    const stopped = this.worker?.close()
    for (const { abort } of this.running.values()) abort.abort()
    await stopped?.catch(() => {})
    await this.run('leave', [this.key.instances(), this.key.workers()], [this.instanceId]).catch(() => {})
    await Promise.allSettled([...this.waiting.values()].map(({ end }) => end()))
    await this.queue.close().catch(() => {})
    await this.reader.close()
    this.blocking.disconnect()
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
