/**
 * The GMM–HMM clustering off the main thread: it is CPU work of one to two seconds per minute of speech (three runs
 * of EM and Viterbi), which would stall every stream the service is sending meanwhile. Each clustering gets its own
 * worker thread (about 0.1 s to start), which keeps the frames so that runs can be asked for in steps, and is ended
 * when the caller closes it or the signal aborts. (The diarizer asks for all runs at once since its count admits
 * small speakers: a first run alone no longer tells when the others can be skipped, docs/diarization.md.)
 */
import { Worker } from 'node:worker_threads'
import type { FrameMatrix } from './gmm.ts'
import { consensusLadder, type HmmClusterOptions, hmmClusterRuns } from './hmm-cluster.ts'

/** The first message to the worker: the frames and settings; each message after it is a list of runs. */
export interface ClusterJob extends FrameMatrix {
  maxSpeakers: number
  options: HmmClusterOptions
}

const WORKER_URL = new URL('./cluster-worker.ts', import.meta.url).href
/** Below this many frames (3 s of speech) the work is too small for a thread of its own. */
const INLINE_ROWS = 300

/**
 * Node cannot start a worker from a .ts file by itself; the bootstrap registers tsx's loader first (as the eSpeak
 * and decode pools do).
 */
function spawnWorker(): Worker {
  return new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(WORKER_URL)}) })`,
    { eval: true, name: 'diarization-cluster' },
  )
}

export interface ClusterSession {
  /** The ladders of these runs (hmmClusterRuns); one request at a time. */
  runs(indices: number[]): Promise<Int32Array[][]>
  /** Ends the worker (idempotent). */
  close(): void
}

/**
 * A clustering of `frames` on a worker thread (in place when the work is small). `frames.data` is handed to the
 * worker (its buffer is detached). A request rejects with the signal's reason when it aborts, which also ends the
 * worker; the caller closes the session when done.
 */
export function openClusterSession(
  frames: FrameMatrix,
  maxSpeakers: number,
  options: HmmClusterOptions,
  signal?: AbortSignal,
): ClusterSession {
  signal?.throwIfAborted()
  if (frames.rows < INLINE_ROWS || maxSpeakers <= 1)
    return {
      runs: async (indices) => {
        signal?.throwIfAborted()
        return hmmClusterRuns(frames, maxSpeakers, options, indices)
      },
      close() {},
    }
  const worker = spawnWorker()
  let closed = false
  // The thread can end (or fail) between requests too: a request made after that rejects at once.
  let ended: Error | null = null
  worker.once('exit', (code) => {
    ended ??= new Error(`diarization worker exited (code ${code}) before answering`)
  })
  worker.once('error', (error) => {
    ended ??= error
  })
  const close = () => {
    if (closed) return
    closed = true
    signal?.removeEventListener('abort', close)
    void worker.terminate()
  }
  signal?.addEventListener('abort', close, { once: true })
  const job: ClusterJob = { ...frames, maxSpeakers, options }
  worker.postMessage(job, [frames.data.buffer as ArrayBuffer])
  return {
    runs: (indices) =>
      new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason)
        if (closed) return reject(new Error('the clustering session is closed'))
        if (ended) return reject(ended)
        const onMessage = (ladders: Int32Array[][]) => settle(() => resolve(ladders))
        const onError = (error: Error) => settle(() => reject(error))
        const onExit = (code: number) =>
          settle(() => reject(new Error(`diarization worker exited (code ${code}) before answering`)))
        const abort = () => settle(() => reject(signal?.reason))
        const settle = (outcome: () => void) => {
          signal?.removeEventListener('abort', abort)
          worker.off('message', onMessage).off('error', onError).off('exit', onExit)
          outcome()
        }
        signal?.addEventListener('abort', abort, { once: true })
        worker.once('message', onMessage).once('error', onError).once('exit', onExit)
        worker.postMessage(indices)
      }),
    close,
  }
}

/**
 * hmmClusterLadder on a worker thread (the partitions into 1…maxSpeakers speakers); rejects with the signal's reason
 * when it aborts. `frames.data` is handed to the worker (its buffer is detached).
 */
export async function hmmClusterOffThread(
  frames: FrameMatrix,
  maxSpeakers: number,
  options: HmmClusterOptions,
  signal?: AbortSignal,
): Promise<Int32Array[]> {
  const rows = frames.rows
  const session = openClusterSession(frames, maxSpeakers, options, signal)
  try {
    const all = Array.from({ length: Math.max(1, options.runs) }, (_, r) => r)
    return consensusLadder(rows, maxSpeakers, await session.runs(all))
  } finally {
    session.close()
  }
}
