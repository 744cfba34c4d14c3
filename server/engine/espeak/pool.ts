import { Worker } from 'node:worker_threads'
import {
  OUTPUT_SAMPLE_RATE,
  type SynthesisJob,
  type Synthesizer,
  type SynthesizerStats,
} from '../synthesizer.ts'
import { ABORT, CREDIT_WINDOW, CREDITS, type JobMessage, type WorkerMessage } from './protocol.ts'

const WORKER_URL = new URL('./worker.ts', import.meta.url).href

/**
 * Node cannot start a worker from a .ts file by itself; the bootstrap registers tsx's loader first. Built bundles
 * would point at a .js worker instead and skip it.
 */
function spawnWorker(background: boolean): Worker {
  return new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL)}) })`,
    { eval: true, name: background ? 'espeak-background' : 'espeak', workerData: { background } },
  )
}

/** A worker's own messages, plus `crashed` when the thread itself died mid-job. */
type ThreadEvent = WorkerMessage | { type: 'crashed'; message: string }
type Listener = (event: ThreadEvent) => void

/** One worker thread and the job it is running, if any. */
class EspeakThread {
  readonly worker: Worker
  readonly ready: Promise<void>
  private listener: Listener | null = null
  private failure: Error | null = null

  constructor(
    /** Runs at a lower priority, for audio that follows what a listener has (SynthesisJob.background). */
    readonly background: boolean,
    private readonly onExit: (thread: EspeakThread) => void,
  ) {
    this.worker = spawnWorker(background)
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('error', reject)
      this.worker.once('message', (m: WorkerMessage) =>
        m.type === 'ready' ? resolve() : reject(new Error(m.type)),
      )
    })
    this.worker.on('message', (m: WorkerMessage) => this.listener?.(m))
    this.worker.on('error', (err) => {
      this.failure = err
    })
    this.worker.on('exit', () => {
      this.listener?.({ type: 'crashed', message: this.failure?.message ?? 'The eSpeak worker stopped.' })
      this.onExit(this)
    })
  }

  run(message: JobMessage, listener: Listener) {
    this.listener = listener
    this.worker.postMessage(message)
  }

  release() {
    this.listener = null
  }
}

export interface EspeakSynthesizerOptions {
  /**
   * Worker threads, each with its own eSpeak instance (default 4). A stream whose client stops reading holds its
   * worker once the credit window is full, so the pool is sized for concurrent streams, not for cores.
   */
  workers?: number
  /**
   * How many of them run at a lower priority (default half): a request's later segments go to them first, so on a
   * busy machine a request still waiting for its first audio gets the CPU before streams that are already playing.
   */
  backgroundWorkers?: number
}

/** A pool of long-lived eSpeak NG instances with a FIFO job queue. */
export async function createEspeakSynthesizer(opts: EspeakSynthesizerOptions = {}): Promise<Synthesizer> {
  const size = opts.workers ?? 4
  const backgroundSize = Math.min(size - 1, opts.backgroundWorkers ?? Math.floor(size / 2))
  const all = new Set<EspeakThread>()
  const idle: EspeakThread[] = []
  const waiting: Array<(thread: EspeakThread) => void> = []
  let closed = false

  const add = (background: boolean) => {
    const thread = new EspeakThread(background, (gone) => {
      all.delete(gone)
      const i = idle.indexOf(gone)
      if (i >= 0) idle.splice(i, 1)
      // A crashed worker is replaced by one of its kind, so the pool keeps its size and its mix.
      if (!closed) add(gone.background)
    })
    all.add(thread)
    thread.ready.then(
      () => giveBack(thread),
      () => undefined,
    )
    return thread.ready
  }

  const giveBack = (thread: EspeakThread) => {
    thread.release()
    const next = waiting.shift()
    if (next) next(thread)
    else idle.push(thread)
  }

  /** An idle worker of the job's kind if there is one, else any idle worker: a role is a preference, never a wait. */
  const take = (background: boolean): Promise<EspeakThread> => {
    let i = idle.findLastIndex((t) => t.background === background)
    if (i < 0) i = idle.length - 1
    const [thread] = i >= 0 ? idle.splice(i, 1) : []
    if (thread) return Promise.resolve(thread)
    return new Promise((resolve) => waiting.push(resolve))
  }

  await Promise.all(Array.from({ length: size }, (_, i) => add(i < backgroundSize)))

  async function* synthesize(job: SynthesisJob): AsyncGenerator<Int16Array> {
    if (closed) throw new Error('The synthesizer is closed.')
    job.signal?.throwIfAborted()
    const thread = await take(job.background ?? false)
    if (job.signal?.aborted) {
      giveBack(thread)
      return
    }
    const control = new Int32Array(new SharedArrayBuffer(8))
    control[CREDITS] = CREDIT_WINDOW
    const chunks: Int16Array[] = []
    let finished = false
    let failure: Error | null = null
    let wake: (() => void) | null = null
    const notify = () => {
      wake?.()
      wake = null
    }
    const abort = () => {
      Atomics.store(control, ABORT, 1)
      Atomics.notify(control, CREDITS)
      notify()
    }
    job.signal?.addEventListener('abort', abort)

    thread.run(
      {
        type: 'job',
        text: job.text,
        ssml: job.ssml ?? false,
        voice: job.voice,
        speed: job.speed,
        control: control.buffer as SharedArrayBuffer,
      },
      (m) => {
        if (m.type === 'chunk') chunks.push(m.pcm)
        else if (m.type !== 'ready') {
          if (m.type !== 'done') failure = new Error(m.message)
          finished = true
          if (m.type !== 'crashed') giveBack(thread)
        }
        notify()
      },
    )

    try {
      for (;;) {
        const chunk = chunks.shift()
        if (chunk) {
          Atomics.add(control, CREDITS, 1)
          Atomics.notify(control, CREDITS)
          yield chunk
          continue
        }
        if (failure) throw failure
        if (finished || Atomics.load(control, ABORT) === 1) return
        await new Promise<void>((resolve) => {
          wake = resolve
        })
      }
    } finally {
      // Ends synthesis when the consumer stops early; a worker that finished already ignores it.
      abort()
      job.signal?.removeEventListener('abort', abort)
    }
  }

  return {
    sampleRate: OUTPUT_SAMPLE_RATE,
    synthesize,
    get stats(): SynthesizerStats {
      const backgroundThreads = [...all].filter((t) => t.background)
      return {
        workers: all.size,
        busy: all.size - idle.length,
        queued: waiting.length,
        background: {
          workers: backgroundThreads.length,
          busy: backgroundThreads.filter((t) => !idle.includes(t)).length,
        },
      }
    },
    async close() {
      closed = true
      await Promise.all([...all].map((t) => t.worker.terminate()))
    },
  }
}
