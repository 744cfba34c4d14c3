/**
 * Worker thread of cluster-thread.ts: runs one GMM–HMM clustering and posts back the labels.
 */
import { parentPort } from 'node:worker_threads'
import type { ClusterJob } from './cluster-thread.ts'
import { hmmCluster } from './hmm-cluster.ts'

const port = parentPort
if (!port) throw new Error('cluster-worker.ts runs as a worker thread')
port.once('message', (job: ClusterJob) => {
  const labels = hmmCluster(
    { rows: job.rows, dimension: job.dimension, data: job.data },
    job.speakers,
    job.options,
  )
  port.postMessage(labels, [labels.buffer as ArrayBuffer])
})
