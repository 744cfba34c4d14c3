/**
 * Worker thread of cluster-thread.ts: keeps the frames of its first message, then for each list of runs it is sent
 * runs them (hmmClusterRuns) and posts back their partitions.
 */
import { parentPort } from 'node:worker_threads'
import type { ClusterJob } from './cluster-thread.ts'
import { hmmClusterRuns } from './hmm-cluster.ts'

const port = parentPort
if (!port) throw new Error('cluster-worker.ts runs as a worker thread')
// One listener for the whole life of the thread: with none attached for a moment, the port would let the thread end.
let job: ClusterJob | null = null
port.on('message', (message: ClusterJob | number[]) => {
  if (!Array.isArray(message)) {
    job = message
    return
  }
  if (!job) throw new Error('runs asked for before the frames')
  const ladders = hmmClusterRuns(job, job.maxSpeakers, job.options, message)
  // Partitions may be shared between counts (a run that skipped one): transfer each buffer once.
  const buffers = [...new Set(ladders.flat().map((labels) => labels.buffer as ArrayBuffer))]
  port.postMessage(ladders, buffers)
})
