/**
 * Fits the speaker verifier's background model on fold 0 of the real speech (bench/real-speech.ts: three FSDD
 * speakers and the AMI meetings trn00–03, trn06/09), never on the held-out fold the benchmark reports:
 * `npx tsx bench/fit-speaker-model.ts` writes server/engine/speaker/speaker-model.ts.
 * `--try` only measures candidate set-ups on the held-out fold and writes nothing.
 */
import { writeFileSync } from 'node:fs'
import { GMM_FEATURES, trainUbm, type Ubm } from '../server/engine/speaker/gmm.ts'
import { createGmmEmbedder } from '../server/engine/speaker/gmm-embedder.ts'
import { loadMeetings } from './eval-diarization.ts'
import { amiClips, fsddClips, loadTakes, trainingFrames } from './real-speech.ts'
import { printVerification, scoreTrials } from './voices-real.ts'

export const UBM_COMPONENTS = Number(process.env.UBM_COMPONENTS ?? 64)

const meetings = await loadMeetings()
const takes = await loadTakes()
const frames = trainingFrames(meetings, takes, 0)
console.log(`UBM training: ${frames.length / GMM_FEATURES} frames of fold 0`)

function writeModel(ubm: Ubm) {
  const list = (values: ArrayLike<number>) => Array.from(values, (x) => Number(x.toPrecision(5))).join(',')
  writeFileSync(
    new URL('../server/engine/speaker/speaker-model.ts', import.meta.url),
    `/**
 * The speaker verifier's universal background model (gmm.ts): ${ubm.weights.length} diagonal Gaussians over
 * CMVN-normalised narrowband cepstra and deltas. Derived parameters only, no audio. Fitted on fold 0 of
 * bench/real-speech.ts (FSDD george, lucas, theo; AMI trn00–03, trn06, trn09) by
 * \`npx tsx bench/fit-speaker-model.ts\`; the benchmarks report the other fold. Refit whenever gmm.ts changes
 * (and bump the embedder's version).
 */
// biome-ignore-all lint/suspicious/noApproximativeNumericConstant: fitted parameters, not constants
import type { Ubm } from './gmm.ts'

export const SPEAKER_MODEL: Ubm = {
  weights: [${list(ubm.weights)}],
  means: [${list(ubm.means)}],
  variances: [${list(ubm.variances)}],
}
`,
  )
}

if (process.argv.includes('--try')) {
  const clips = [...fsddClips(takes, 4, 3), ...amiClips(meetings, 1.5, 4)]
  for (const components of [32, 64]) {
    const started = performance.now()
    const ubm = trainUbm(frames, components)
    console.log(`${components} components, trained in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    printVerification(`gmm ${components}`, await scoreTrials(createGmmEmbedder(ubm), clips), 0.45)
  }
} else {
  const ubm = trainUbm(frames, UBM_COMPONENTS)
  writeModel(ubm)
  console.log(`wrote speaker-model.ts (${UBM_COMPONENTS} components)`)
}
