/**
 * Worker thread of cluster-thread.ts: runs one GMM–HMM clustering and posts back its partitions.
 */
import { parentPort } from 'node:worker_threads'
import type { ClusterJob } from './cluster-thread.ts'
import { hmmClusterLadder } from './hmm-cluster.ts'

const port = parentPort
if (!port) throw new Error('cluster-worker.ts runs as a worker thread')
port.once('message', (job: ClusterJob) => {
  const ladder = hmmClusterLadder(
    { rows: job.rows, dimension: job.dimension, data: job.data },
    job.maxSpeakers,
    job.options,
  )
  // Partitions may be shared between counts (a run that skipped one): transfer each buffer once.
  const buffers = [...new Set(ladder.map((labels) => labels.buffer as ArrayBuffer))]
  port.postMessage(ladder, buffers)
})
