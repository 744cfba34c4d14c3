/**
 * Decode worker threads. Decoding runs off the main thread for two reasons: it is CPU work of up to seconds per
 * upload, which would stall every stream the service is sending meanwhile; and the demuxers and decoders are handed
 * untrusted bytes, on which they can loop forever (mediabunny 1.61's WebM resync does, on junk it cannot resync past)
 * or abort. A worker that runs past its time or dies is terminated and replaced; the main thread only sees an error.
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import type { CoreDecodeOptions, DecodedAudio } from './decode-core.ts'
import { AudioDecodeError, type AudioDecodeErrorCode } from './decode-error.ts'

export interface DecodeRequest {
  bytes: Uint8Array
  options: CoreDecodeOptions
}

export type DecodeReply =
  | { type: 'ready' }
  | { type: 'done'; audio: DecodedAudio }
  | { type: 'failed'; code: AudioDecodeErrorCode; message: string }

const WORKER_URL = new URL('./decode-worker.ts', import.meta.url).href

/** Decoding is CPU-bound: more threads than cores would only slow each upload down. */
const MAX_THREADS = Math.min(2, availableParallelism())

/**
 * Node cannot start a worker from a .ts file by itself; the bootstrap registers tsx's loader first (as the eSpeak
 * pool does).
 */
function spawnWorker(): Worker {
  return new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL)}) })`,
    { eval: true, name: 'audio-decode' },
  )
}

/** One worker thread, running at most one decode. */
class DecodeThread {
  private readonly worker = spawnWorker()
  private started = false
  private stopped = false
  private failure: Error | null = null
  private listener: ((reply: DecodeReply | { type: 'exit' }) => void) | null = null

  constructor() {
    this.worker.on('message', (reply: DecodeReply) => {
      if (reply.type === 'ready') this.started = true
      else this.listener?.(reply)
    })
    this.worker.on('error', (error) => {
      this.failure = error
    })
    this.worker.on('exit', () => {
      this.stopped = true
      this.listener?.({ type: 'exit' })
    })
  }

  /** Whether it can take another job: not after a crash or a timeout. */
  get usable(): boolean {
    return !this.stopped
  }

  run(request: DecodeRequest, timeoutMs: number): Promise<DecodedAudio> {
    return new Promise((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timer)
        this.listener = null
        this.worker.unref() // an idle thread must not keep the process alive
        outcome()
      }
      const timer = setTimeout(() => {
        settle(() =>
          reject(
            new AudioDecodeError('corrupt_audio', `Decoding did not finish within ${timeoutMs / 1000} s`),
          ),
        )
        this.terminate()
      }, timeoutMs)
      this.listener = (reply) => {
        if (reply.type === 'done') settle(() => resolve(reply.audio))
        else if (reply.type === 'failed')
          settle(() => reject(new AudioDecodeError(reply.code, reply.message)))
        else settle(() => reject(this.crashError()))
      }
      this.worker.ref()
      // A copy of exactly these bytes, moved rather than cloned: the caller's view may sit on a larger buffer.
      const bytes = request.bytes.slice()
      this.worker.postMessage({ bytes, options: request.options } satisfies DecodeRequest, [bytes.buffer])
    })
  }

  terminate(): void {
    this.stopped = true
    void this.worker.terminate()
  }

  private crashError(): AudioDecodeError {
    const reason = this.failure?.message ?? 'it exited'
    return this.started
      ? new AudioDecodeError('corrupt_audio', `The decoder crashed on this file: ${reason}`)
      : new AudioDecodeError('decoder_unavailable', `The decode worker could not start: ${reason}`)
  }
}

const idle: DecodeThread[] = []
const waiting: Array<() => void> = []
let running = 0

/** Decodes in a worker thread, at most MAX_THREADS at a time; the others wait their turn. */
export async function decodeInWorker(
  bytes: Uint8Array,
  options: CoreDecodeOptions,
  timeoutMs: number,
): Promise<DecodedAudio> {
  await acquireSlot()
  const thread = idle.pop() ?? new DecodeThread()
  let reusable = false
  try {
    const audio = await thread.run({ bytes, options }, timeoutMs)
    reusable = true
    return audio
  } catch (error) {
    // A file the decoder refused leaves the thread fine; a timeout or a crash does not.
    reusable = error instanceof AudioDecodeError && thread.usable
    throw error
  } finally {
    if (reusable) idle.push(thread)
    else thread.terminate()
    releaseSlot()
  }
}

function acquireSlot(): Promise<void> {
  if (running < MAX_THREADS) {
    running++
    return Promise.resolve()
  }
  return new Promise((resolve) => waiting.push(resolve))
}

/** Hands the slot straight to the next waiter, so that a new caller cannot slip in between. */
function releaseSlot(): void {
  const next = waiting.shift()
  if (next) next()
  else running--
}
