/**
 * Speaker verification on the AMI excerpts: `npx tsx bench/speaker-eer.ts` prints the equal error rate of the
 * speaker embedder, and the cosine threshold where it falls, over every pair of segments cut from single-speaker
 * stretches of the reference (a pair is "same" when the corpus ids match, across files too). Two figures:
 * with the shipped population normalization (fitted on these very files, so optimistic), and leave-files-out, where
 * the normalization of each pair is fitted without both of its files, as for a voice the service never heard.
 *
 * `--fit` refits the population normalization on all ten files and writes server/engine/speaker/population.ts.
 */
import { writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { cosineSimilarity } from '../server/engine/speaker/embedder.ts'
import { FRAMES_PER_SECOND } from '../server/engine/speaker/features.ts'
import { MIN_VOICED_FRAMES, standardize } from '../server/engine/speaker/mfcc-embedder.ts'
import { POPULATION } from '../server/engine/speaker/population.ts'
import type { Population } from '../server/engine/speaker/statistics.ts'
import {
  analyzeSpeech,
  STATISTICS_DIMENSION,
  speakerStatistics,
} from '../server/engine/speaker/statistics.ts'
import { loadMeetings, type Meeting } from './eval-diarization.ts'

const SAMPLE_RATE = 16_000
/** Population windows: long enough for stable statistics, overlapping so that 30 s give a dozen. */
const POPULATION_WINDOW_SECONDS = 4
const POPULATION_HOP_SECONDS = 2

export interface Segment {
  file: string
  speaker: string
  start: number
  end: number
}

export interface ErrorRate {
  /** Equal error rate, 0…1: where false acceptances and false rejections are equally frequent. */
  eer: number
  /** Cosine similarity at that point. */
  threshold: number
}

export interface EerReport {
  segments: Segment[]
  speakers: number
  samePairs: number
  differentPairs: number
  shipped: ErrorRate
  leaveFilesOut: ErrorRate
}

/** Stretches where exactly one reference speaker talks, cut into pieces of `minSeconds` to `maxSeconds`. */
export function singleSpeakerSegments(meeting: Meeting, minSeconds: number, maxSeconds: number): Segment[] {
  const edges = [...new Set(meeting.turns.flatMap((t) => [t.start, t.end]))].sort((a, b) => a - b)
  const stretches: Segment[] = []
  for (let i = 0; i + 1 < edges.length; i++) {
    const start = edges[i] as number
    const end = edges[i + 1] as number
    const middle = (start + end) / 2
    const active = meeting.turns.filter((t) => t.start <= middle && t.end > middle)
    if (active.length !== 1) continue
    const speaker = (active[0] as { speaker: string }).speaker
    const last = stretches.at(-1)
    if (last && last.speaker === speaker && last.end === start) last.end = end
    else stretches.push({ file: meeting.id, speaker, start, end })
  }
  return stretches.flatMap((stretch) => {
    const length = stretch.end - stretch.start
    if (length < minSeconds) return []
    let pieces = Math.ceil(length / maxSeconds)
    let pieceLength = length / pieces
    if (pieceLength < minSeconds) {
      pieces -= 1
      pieceLength = maxSeconds
    }
    return Array.from({ length: pieces }, (_, i) => ({
      ...stretch,
      start: stretch.start + i * pieceLength,
      end: stretch.start + (i + 1) * pieceLength,
    }))
  })
}

/** The threshold where the false-acceptance and false-rejection rates cross, over scored pairs. */
export function equalErrorRate(trials: { score: number; same: boolean }[]): ErrorRate {
  const sorted = [...trials].sort((a, b) => b.score - a.score)
  const positives = trials.filter((t) => t.same).length
  const negatives = trials.length - positives
  if (positives === 0 || negatives === 0) throw new RangeError('need both same and different pairs')
  let accepted = 0
  let falseAccepted = 0
  let best = { gap: Number.POSITIVE_INFINITY, eer: 1, threshold: 0 }
  for (let i = 0; i < sorted.length; i++) {
    const trial = sorted[i] as { score: number; same: boolean }
    if (trial.same) accepted++
    else falseAccepted++
    const next = sorted[i + 1]
    if (next && next.score === trial.score) continue
    const falseRejection = 1 - accepted / positives
    const falseAcceptance = falseAccepted / negatives
    const gap = Math.abs(falseRejection - falseAcceptance)
    if (gap < best.gap) {
      const threshold = next ? (trial.score + next.score) / 2 : trial.score
      best = { gap, eer: (falseRejection + falseAcceptance) / 2, threshold }
    }
  }
  return { eer: best.eer, threshold: best.threshold }
}

/** Mean and spread of the statistics of 4 s windows of each file, kept per file so that files can be left out. */
function populationWindows(meetings: Meeting[]): Map<string, Float64Array[]> {
  const byFile = new Map<string, Float64Array[]>()
  const window = POPULATION_WINDOW_SECONDS * FRAMES_PER_SECOND
  const hop = POPULATION_HOP_SECONDS * FRAMES_PER_SECOND
  for (const meeting of meetings) {
    const track = analyzeSpeech(meeting.audio)
    const windows: Float64Array[] = []
    for (let from = 0; from + window <= track.features.count; from += hop) {
      const statistics = speakerStatistics(track, from, from + window, MIN_VOICED_FRAMES)
      if (statistics) windows.push(statistics)
    }
    byFile.set(meeting.id, windows)
  }
  return byFile
}

export function fitPopulation(windows: Float64Array[]): Population {
  const mean = new Array<number>(STATISTICS_DIMENSION).fill(0)
  const scale = new Array<number>(STATISTICS_DIMENSION).fill(0)
  for (const w of windows)
    w.forEach((x, d) => {
      mean[d] = (mean[d] as number) + x / windows.length
    })
  for (const w of windows)
    w.forEach((x, d) => {
      scale[d] = (scale[d] as number) + (x - (mean[d] as number)) ** 2
    })
  return { mean, scale: scale.map((s) => Math.sqrt(s / windows.length)) }
}

export async function measureEer(
  opts: { minSeconds?: number; maxSeconds?: number; meetings?: Meeting[] } = {},
): Promise<EerReport> {
  const { minSeconds = 3, maxSeconds = 5 } = opts
  const meetings = opts.meetings ?? (await loadMeetings())
  const audioOf = new Map(meetings.map((m) => [m.id, m.audio]))
  const segments = meetings.flatMap((m) => singleSpeakerSegments(m, minSeconds, maxSeconds))
  const statistics = segments.map((s) => {
    const audio = (audioOf.get(s.file) as Float32Array).subarray(
      Math.round(s.start * SAMPLE_RATE),
      Math.round(s.end * SAMPLE_RATE),
    )
    const track = analyzeSpeech(audio)
    return speakerStatistics(track, 0, track.features.count, 1)
  })
  const windows = populationWindows(meetings)
  const shippedTrials: { score: number; same: boolean }[] = []
  const heldOutTrials: { score: number; same: boolean }[] = []
  for (let i = 0; i < segments.length; i++) {
    for (let j = i + 1; j < segments.length; j++) {
      const a = statistics[i]
      const b = statistics[j]
      if (!a || !b) continue
      const sa = segments[i] as Segment
      const sb = segments[j] as Segment
      const same = sa.speaker === sb.speaker
      shippedTrials.push({
        same,
        score: cosineSimilarity(standardize(a, POPULATION), standardize(b, POPULATION)),
      })
      const others = fitPopulation(
        [...windows].flatMap(([file, w]) => (file === sa.file || file === sb.file ? [] : w)),
      )
      heldOutTrials.push({ same, score: cosineSimilarity(standardize(a, others), standardize(b, others)) })
    }
  }
  return {
    segments,
    speakers: new Set(segments.map((s) => s.speaker)).size,
    samePairs: shippedTrials.filter((t) => t.same).length,
    differentPairs: shippedTrials.filter((t) => !t.same).length,
    shipped: equalErrorRate(shippedTrials),
    leaveFilesOut: equalErrorRate(heldOutTrials),
  }
}

function writePopulation(population: Population) {
  const list = (values: ArrayLike<number>) => Array.from(values, (x) => Number(x.toPrecision(6))).join(', ')
  const source = `/**
 * Mean and standard deviation of each speaker statistic (statistics.ts) over 4 s windows of the ten AMI meeting
 * excerpts in shared/data/diarization: a fixed standardisation, not a trained model. Written by
 * \`npx tsx bench/speaker-eer.ts --fit\`; refit whenever the statistics change (and bump the embedder's version).
 */
import type { Population } from './statistics.ts'

export const POPULATION: Population = {
  mean: [${list(population.mean)}],
  scale: [${list(population.scale)}],
}
`
  writeFileSync(new URL('../server/engine/speaker/population.ts', import.meta.url), source)
}

async function main() {
  if (process.argv.includes('--fit')) {
    const windows = [...populationWindows(await loadMeetings()).values()].flat()
    writePopulation(fitPopulation(windows))
    console.log(`population refitted on ${windows.length} windows`)
    return
  }
  const meetings = await loadMeetings()
  for (const [minSeconds, maxSeconds] of [
    [3, 5],
    [2, 4],
  ] as const) {
    const report = await measureEer({ minSeconds, maxSeconds, meetings })
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`
    console.log(
      `${minSeconds}–${maxSeconds} s segments: ${report.segments.length} from ${report.speakers} speakers, ` +
        `${report.samePairs} same / ${report.differentPairs} different pairs`,
    )
    console.log(
      `  shipped normalization:   EER ${pct(report.shipped.eer)} at cosine ${report.shipped.threshold.toFixed(3)}`,
    )
    console.log(
      `  leave-files-out:         EER ${pct(report.leaveFilesOut.eer)} at cosine ${report.leaveFilesOut.threshold.toFixed(3)}`,
    )
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
