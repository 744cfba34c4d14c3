/**
 * The GMM–HMM clustering off the main thread: it is CPU work of one to two seconds per minute of speech (three runs
 * of EM and Viterbi), which would stall every stream the service is sending meanwhile. Each call gets its own worker
 * thread (about 0.1 s to start), ended when the labels are back or the signal aborts.
 */
import { Worker } from 'node:worker_threads'
import type { FrameMatrix } from './gmm.ts'
import { type HmmClusterOptions, hmmClusterLadder } from './hmm-cluster.ts'

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

/**
 * hmmClusterLadder on a worker thread (the partitions into 1…maxSpeakers speakers); rejects with the signal's reason
 * when it aborts.
 */
export function hmmClusterOffThread(
  frames: FrameMatrix,
  maxSpeakers: number,
  options: HmmClusterOptions,
  signal?: AbortSignal,
): Promise<Int32Array[]> {
  signal?.throwIfAborted()
  if (frames.rows < INLINE_ROWS || maxSpeakers <= 1)
    return Promise.resolve(hmmClusterLadder(frames, maxSpeakers, options))
  return new Promise((resolve, reject) => {
    const worker = spawnWorker()
    const finish = (outcome: () => void) => {
      signal?.removeEventListener('abort', abort)
      worker.removeAllListeners()
      void worker.terminate()
      outcome()
    }
    const abort = () => finish(() => reject(signal?.reason))
    signal?.addEventListener('abort', abort, { once: true })
    worker.once('message', (ladder: Int32Array[]) => finish(() => resolve(ladder)))
    worker.once('error', (error) => finish(() => reject(error)))
    worker.once('exit', (code) =>
      finish(() => reject(new Error(`diarization worker exited (code ${code}) before answering`))),
    )
    const job: ClusterJob = { ...frames, maxSpeakers, options }
    worker.postMessage(job, [frames.data.buffer as ArrayBuffer])
  })
}
