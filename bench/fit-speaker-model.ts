/**
 * Fits the speaker verifier's models on fold 0 of the real speech (bench/real-speech.ts: three FSDD speakers and
 * the AMI meetings trn00–03, trn06/09), never on the held-out fold the benchmark reports:
 * - `npx tsx bench/fit-speaker-model.ts` writes the background model (server/engine/speaker/speaker-model.ts,
 *   shared with the consent screen) and the v2 nuisance projection fitted against it (speaker-nap.ts);
 * - `--nap` refits only the projection, against the shipped background model;
 * - `--try` measures the candidate recipes of issue 19 (cohort score normalisation, feature warping, nuisance
 *   projection, relevance factor) with every score held out, and writes nothing
 *   (docs/voices-and-consents.md, "Candidates tried").
 */
import { writeFileSync } from 'node:fs'
import { concat } from '../core/concat.ts'
import { cosineSimilarity } from '../server/engine/speaker/embedder.ts'
import {
  GMM_FEATURES,
  normalizeColumns,
  supervector,
  trainUbm,
  type Ubm,
  voicedCepstra,
} from '../server/engine/speaker/gmm.ts'
import {
  MIN_EMBEDDING_FRAMES,
  V2_NAP_DIRECTIONS,
  V2_RELEVANCE,
} from '../server/engine/speaker/gmm-embedder.ts'
import { encodeDirections, fitNap, projectOut } from '../server/engine/speaker/nap.ts'
import { SPEAKER_MODEL } from '../server/engine/speaker/speaker-model.ts'
import { analyzeSpeech } from '../server/engine/speaker/statistics.ts'
import { loadMeetings } from './eval-diarization.ts'
import {
  amiAudioOfFold,
  amiClips,
  type Clip,
  fitNapOnFold,
  fsddClips,
  loadTakes,
  napClips,
  trainingFrames,
  verificationTrials,
} from './real-speech.ts'
import { eer, type Scored, thresholdFor } from './voices-real.ts'

export const UBM_COMPONENTS = Number(process.env.UBM_COMPONENTS ?? 64)

const meetings = await loadMeetings()
const takes = await loadTakes()

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

function writeNap(ubm: Ubm) {
  const { scales, data } = encodeDirections(fitNapOnFold(ubm, meetings, takes, 0))
  writeFileSync(
    new URL('../server/engine/speaker/speaker-nap.ts', import.meta.url),
    `/**
 * The gmm-ubm-v2 verifier's nuisance projection (nap.ts): the ${scales.length} leading directions of within-speaker
 * variation of supervectors (relevance ${V2_RELEVANCE}) of fold 0's one-person clips (bench/real-speech.ts \`napClips\`:
 * FSDD george, lucas, theo; AMI trn00–03, trn06, trn09) under SPEAKER_MODEL. Derived parameters only, no audio:
 * 8-bit entries per direction against its largest magnitude, base64. Written by
 * \`npx tsx bench/fit-speaker-model.ts\` (\`--nap\` for this file alone); refit whenever speaker-model.ts changes.
 */
import { decodeDirections } from './nap.ts'

export const SPEAKER_NAP: Float32Array[] = decodeDirections({
  scales: [${scales.join(', ')}],
  data: '${data}',
})
`,
  )
  console.log(`wrote speaker-nap.ts (${scales.length} directions)`)
}

/**
 * Feature warping (Pelecanos & Sridharan 2001): each feature mapped, by its rank within a 3 s window of voiced
 * frames (the whole clip when shorter), to the standard normal quantile. A candidate only; the verifier uses CMVN.
 */
function warpColumns(values: Float64Array): Float64Array {
  const count = values.length / GMM_FEATURES
  const window = 300
  const out = new Float64Array(values.length)
  for (let d = 0; d < GMM_FEATURES; d++)
    for (let i = 0; i < count; i++) {
      const from = count <= window ? 0 : Math.min(Math.max(0, i - window / 2), count - window)
      const to = count <= window ? count : from + window
      const x = values[i * GMM_FEATURES + d] as number
      let rank = 0
      for (let j = from; j < to; j++) {
        const y = values[j * GMM_FEATURES + d] as number
        rank += y < x ? 1 : y === x ? 0.5 : 0
      }
      out[i * GMM_FEATURES + d] = normalQuantile(rank / (to - from))
    }
  return out
}

/** The standard normal quantile of p in (0, 1) (Acklam's rational approximation, relative error < 1.2e-9). */
function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155211841]
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ]
  const e = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const poly = (k: number[], x: number) => k.reduce((sum, coefficient) => sum * x + coefficient, 0)
  if (p > 0.5) return -normalQuantile(1 - p)
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p))
    return poly(c, q) / (poly(e, q) * q + 1)
  }
  const q = p - 0.5
  return (q * poly(a, q * q)) / (poly(b, q * q) * q * q + 1)
}

interface Candidate {
  name: string
  warp?: boolean
  relevance: number
  /** Within-speaker nuisance directions removed (nap.ts), fitted on the fitting fold's napClips. */
  nap?: number
  /** Cohort score normalisation against the fitting fold's clips: all of them (S-norm) or the closest 20. */
  cohort?: 'snorm' | 'asnorm'
}

const CANDIDATES: Candidate[] = [
  { name: 'v1: relevance 16, cosine', relevance: 16 },
  { name: 'S-norm', relevance: 16, cohort: 'snorm' },
  { name: 'AS-norm, top 20', relevance: 16, cohort: 'asnorm' },
  { name: 'feature warping', relevance: 16, warp: true },
  { name: 'feature warping + S-norm', relevance: 16, warp: true, cohort: 'snorm' },
  { name: 'NAP 8, relevance 16', relevance: 16, nap: 8 },
  { name: 'relevance 8', relevance: 8 },
  { name: 'v2: relevance 8 + NAP 8', relevance: V2_RELEVANCE, nap: V2_NAP_DIRECTIONS },
  { name: 'v2 + S-norm', relevance: V2_RELEVANCE, nap: V2_NAP_DIRECTIONS, cohort: 'snorm' },
  { name: 'relevance 8 + NAP 16', relevance: 8, nap: 16 },
]

/**
 * Every candidate scored with every score held out, as the benchmark scores the shipped verifier: fold 1's trials
 * by models (background model, projection, cohort) fitted on fold 0, fold 0's by the same fitted on fold 1.
 */
async function tryCandidates() {
  const clips = [...fsddClips(takes, 4, 3), ...amiClips(meetings, 1.5, 4)]
  const raw = (audio: Float32Array) =>
    voicedCepstra(analyzeSpeech(audio), MIN_EMBEDDING_FRAMES)?.values ?? null
  const clipRaw = clips.map((c) => raw(c.audio))
  const napRaw = [0, 1].map((fold) =>
    napClips(meetings, takes, fold).map((c) => ({ clip: c, values: raw(c.audio) })),
  )
  const normalise = (values: Float64Array, warp: boolean) => {
    if (warp) return warpColumns(values)
    const out = Float64Array.from(values)
    normalizeColumns(out, out.length / GMM_FEATURES)
    return out
  }
  // Background models per fold and front end: fold 0 with CMVN is the shipped one.
  const ubms = new Map<string, Ubm>()
  const ubmOf = (fold: number, warp: boolean): Ubm => {
    const key = `${fold}${warp}`
    let ubm = ubms.get(key)
    if (!ubm) {
      ubm =
        fold === 0 && !warp
          ? SPEAKER_MODEL
          : trainUbm(warp ? warpedTrainingFrames(fold) : trainingFrames(meetings, takes, fold), 64)
      ubms.set(key, ubm)
    }
    return ubm
  }
  const warpedTrainingFrames = (fold: number) => {
    const audio = [
      ...fsddClips(takes, 10, 5)
        .filter((c) => c.fold === fold)
        .map((c) => c.audio),
      ...amiAudioOfFold(meetings, fold),
    ]
    const parts = audio.flatMap((a) => {
      const values = voicedCepstra(analyzeSpeech(a), 10)?.values
      return values ? [warpColumns(values)] : []
    })
    return concat(parts, Float64Array)
  }
  const vector = (values: Float64Array | null, ubm: Ubm, candidate: Candidate, nap: Float32Array[]) => {
    if (!values) return null
    const features = normalise(values, candidate.warp ?? false)
    const sv = supervector(
      ubm,
      { values: features, count: features.length / GMM_FEATURES },
      candidate.relevance,
    )
    return projectOut(sv, nap)
  }
  const trials = verificationTrials(clips)
  console.log(`${clips.length} clips, ${trials.length} trials; both folds, every score held out`)
  console.log('candidate                          EER same-room  EER diff-room  owners at 5% same-room FA')
  for (const candidate of CANDIDATES) {
    const scored: Scored[] = []
    for (const fold of [0, 1]) {
      const fit = 1 - fold
      const ubm = ubmOf(fit, candidate.warp ?? false)
      const napUsed = napRaw[fit] as { clip: Clip; values: Float64Array | null }[]
      const napVectors = napUsed.flatMap((n) => {
        const v = vector(n.values, ubm, candidate, [])
        return v ? [{ v, speaker: n.clip.speaker }] : []
      })
      const nap = candidate.nap
        ? fitNap(
            napVectors.map((n) => n.v),
            napVectors.map((n) => n.speaker),
            candidate.nap,
          )
        : []
      const embeddings = clipRaw.map((values, i) =>
        (clips[i] as Clip).fold === fold ? vector(values, ubm, candidate, nap) : null,
      )
      const cohort = clipRaw.flatMap((values, i) => {
        const v = (clips[i] as Clip).fold === fit ? vector(values, ubm, candidate, nap) : null
        return v ? [v] : []
      })
      const cohortStats = embeddings.map((e) => {
        if (!e || !candidate.cohort) return { mean: 0, sd: 1 }
        const scores = cohort.map((c) => cosineSimilarity(e, c)).sort((x, y) => y - x)
        const used = candidate.cohort === 'asnorm' ? scores.slice(0, 20) : scores
        const mean = used.reduce((t, x) => t + x, 0) / used.length
        return { mean, sd: Math.sqrt(used.reduce((t, x) => t + (x - mean) ** 2, 0) / used.length) || 1 }
      })
      for (const t of trials) {
        if (t.fold !== fold) continue
        const [a, b] = [embeddings[t.enrol], embeddings[t.test]]
        let score = Number.NEGATIVE_INFINITY
        if (a && b) {
          const raw = cosineSimilarity(a, b)
          const [sa, sb] = [cohortStats[t.enrol], cohortStats[t.test]] as { mean: number; sd: number }[]
          score = candidate.cohort
            ? 0.5 * ((raw - (sa?.mean ?? 0)) / (sa?.sd ?? 1) + (raw - (sb?.mean ?? 0)) / (sb?.sd ?? 1))
            : raw
        }
        scored.push({ score, same: t.same, sameRoom: t.sameRoom, fold })
      }
    }
    const owners = scored.filter((t) => t.same)
    const sameRoom = scored.filter((t) => !t.same && t.sameRoom)
    const otherRoom = scored.filter((t) => !t.same && !t.sameRoom)
    const threshold = thresholdFor(sameRoom, 0.05)
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(13)
    console.log(
      `${candidate.name.padEnd(32)} ${pct(eer(owners, sameRoom).eer)}  ${pct(eer(owners, otherRoom).eer)}  ${pct(owners.filter((t) => t.score >= threshold).length / owners.length)}`,
    )
  }
}

if (process.argv.includes('--try')) {
  await tryCandidates()
} else if (process.argv.includes('--nap')) {
  writeNap(SPEAKER_MODEL)
} else {
  const frames = trainingFrames(meetings, takes, 0)
  console.log(`UBM training: ${frames.length / GMM_FEATURES} frames of fold 0`)
  const ubm = trainUbm(frames, UBM_COMPONENTS)
  writeModel(ubm)
  console.log(`wrote speaker-model.ts (${UBM_COMPONENTS} components)`)
  writeNap(ubm)
}
