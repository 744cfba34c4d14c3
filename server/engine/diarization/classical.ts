/**
 * The classical diarizer: Silero VAD finds speech; the speech frames above the recording's loudness gate (MFCCs and
 * loudness) are split into 1, 2, … speakers by the agglomerative GMM–HMM clustering of hmm-cluster.ts, off the main
 * thread; the number of speakers is the caller's, or the largest count at which every speaker holds more than a sliver
 * of the speech and no two of them sound alike as whole voices (count.ts). Quiet frames (pauses, breath) follow the
 * speaker around them. Turns too short to be real are absorbed by their neighbours. `partition: 'windows'` is the
 * earlier diarizer: the count from clustering 1.5 s windows, frames labelled by the vote of the window clusters.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { CEPSTRA, FRAMES_PER_SECOND } from '../speaker/features.ts'
import { analyzeSpeechInSteps, type SpeechTrack } from '../speaker/statistics.ts'
import { type DetectOptions, detectSpeech } from '../vad/index.ts'
import { hmmClusterOffThread } from './cluster-thread.ts'
import { COUNT_DEFAULTS, type CountRule, chooseCount } from './count.ts'
import { checkSpeakerCount, type Diarizer, type SpeakerCount, type SpeakerSpan } from './diarizer.ts'
import type { FrameMatrix } from './gmm.ts'
import { HMM_CLUSTER_DEFAULTS, type HmmClusterOptions } from './hmm-cluster.ts'
import { clusterWindows, type SpeechRegion, slideWindows, type Window } from './windows.ts'

export interface DiarizerOptions {
  /**
   * How speakers are found: 'hmm' (default) by the GMM–HMM clustering of hmm-cluster.ts with the count chosen by
   * count.ts; 'windows' by clustering 1.5 s windows (count by `threshold`) and labelling frames by their vote.
   */
  partition?: 'hmm' | 'windows'
  /** Settings of the GMM–HMM clustering. */
  hmm?: Partial<HmmClusterOptions>
  /** Settings of the count estimate (when the count is not given). */
  count?: Partial<CountRule>
  /**
   * Only frames above the recording's loudness gate (its noise floor + 6 dB, within 45 dB of its loud frames) train
   * and label the speaker models; the pauses the VAD bridges would otherwise be modelled as a "speaker" of their own.
   */
  gate?: boolean
  /**
   * Frame loudness among the GMM–HMM features. Within one recording it tells apart people sitting at different
   * distances from the microphone.
   */
  loudness?: boolean
  /**
   * 'windows' partition: average cosine similarity (between centred windows) from which two groups of windows are
   * one speaker. Centred windows of one voice still differ by what is said: −0.2 to −0.3 between sentences of one
   * eSpeak voice, about −0.45 between two clearly different voices.
   */
  threshold?: number
  /** Window length and hop in seconds. */
  windowSeconds?: number
  hopSeconds?: number
  /** Voice activity detection settings for meetings: quiet, distant talkers and pauses inside a turn. */
  vad?: DetectOptions
  /** Turns shorter than this are given to the speaker around them. */
  minTurnSeconds?: number
}

/** See DiarizerOptions.threshold; the recording screen and the online tracker count voices with it too. */
export const DEFAULT_CLUSTER_THRESHOLD = -0.27

const DEFAULTS = {
  partition: 'hmm' as 'hmm' | 'windows',
  hmm: {} as Partial<HmmClusterOptions>,
  count: {} as Partial<CountRule>,
  gate: true,
  loudness: true,
  threshold: DEFAULT_CLUSTER_THRESHOLD,
  windowSeconds: 1.5,
  hopSeconds: 0.75,
  // Pauses under 1 s stay inside speech: AMI reference turns run through them.
  vad: { threshold: 0.2, minSilenceSeconds: 1, padSeconds: 0.2 },
  minTurnSeconds: 0.5,
} satisfies Required<DiarizerOptions>

/** Below this many gated frames (a second) the gate is not used: too little to model. */
const MIN_GATED_FRAMES = 100

export interface ClassicalDiarizer extends Diarizer {
  /**
   * The same on speech regions given by the caller instead of the VAD's (the evaluation runs it on the reference's
   * speech to score the speaker part alone).
   */
  diarizeRegions(
    audio: Float32Array,
    regions: SpeechRegion[],
    opts?: SpeakerCount & { signal?: AbortSignal },
  ): Promise<SpeakerSpan[]>
  /**
   * The 'hmm' diarizer's candidates before the count is chosen: frame labels (−1 outside speech) for 1…top speakers
   * (index k − 1) and the windows the count rule compares voices by. For evaluating count rules leave-one-out.
   */
  candidates(
    audio: Float32Array,
    regions: SpeechRegion[],
    top: number,
    opts?: { signal?: AbortSignal },
  ): Promise<Candidates | null>
  /** Spans of one candidate partition, as `diarize` finishes them. */
  spans(frameLabels: Int32Array): SpeakerSpan[]
}

export interface Candidates {
  partitions: Int32Array[]
  windows: Window[]
  /** Speakers found by clustering the centred windows (at most the top count): the least count estimated. */
  windowCount: number
}

export function createClassicalDiarizer(options: DiarizerOptions = {}): ClassicalDiarizer {
  const config = { ...DEFAULTS, ...options, vad: { ...DEFAULTS.vad, ...options.vad } }
  const hmm = { ...HMM_CLUSTER_DEFAULTS, ...config.hmm }
  const rule = { ...COUNT_DEFAULTS, ...config.count }

  async function candidates(
    audio: Float32Array,
    regions: SpeechRegion[],
    top: number,
    { signal }: { signal?: AbortSignal } = {},
  ): Promise<Candidates | null> {
    if (regions.length === 0) return null
    const track = await analyzeSpeechInSteps(audio, signal)
    const windows = slideWindows(track, regions, config)
    await yieldToEventLoop()
    signal?.throwIfAborted()
    // The clustering of centred windows (which a shift of the whole recording, such as its channel, does not move)
    // is a second estimate of the count: either may find a second voice.
    const windowCount =
      windows.length > 0
        ? new Set(clusterWindows(windows, { maxSpeakers: top, threshold: config.threshold })).size
        : 1
    const speech = speechFrames(track.features.count, regions)
    const gated = speech.filter((f) => (track.features.energyDb[f] as number) >= track.gateDb)
    const modelled = config.gate && gated.length >= MIN_GATED_FRAMES ? gated : speech
    const frames = speakerFrames(track, modelled, config.loudness)
    const ladder = await hmmClusterOffThread(frames, top, hmm, signal)
    const partitions = ladder.map((labels) => fillLabels(track.features.count, speech, modelled, labels))
    return { partitions, windows, windowCount }
  }

  function spans(frameLabels: Int32Array): SpeakerSpan[] {
    const labels = frameLabels.slice()
    absorbShortTurns(labels, Math.round(config.minTurnSeconds * FRAMES_PER_SECOND))
    return toSpans(labels)
  }

  async function diarizeRegions(
    audio: Float32Array,
    regions: SpeechRegion[],
    opts: SpeakerCount & { signal?: AbortSignal } = {},
  ): Promise<SpeakerSpan[]> {
    const { signal } = opts
    const count = checkSpeakerCount(opts)
    if (regions.length === 0) return []
    if (config.partition === 'windows') {
      const track = await analyzeSpeechInSteps(audio, signal)
      const windows = slideWindows(track, regions, config)
      if (windows.length === 0) return regions.map((r) => ({ ...r, speaker: 0 }))
      await yieldToEventLoop()
      signal?.throwIfAborted()
      const labels = clusterWindows(windows, { ...count, threshold: config.threshold })
      return spans(labelFrames(track.features.count, regions, windows, labels))
    }
    const top = count.numSpeakers ?? Math.max(count.minSpeakers ?? 1, count.maxSpeakers ?? rule.maxSpeakers)
    const found = await candidates(audio, regions, top, { signal })
    if (!found) return []
    const chosen =
      count.numSpeakers ??
      chooseCount(found.partitions, found.windows, {
        ...rule,
        minSpeakers: Math.max(count.minSpeakers ?? 1, found.windowCount),
        maxSpeakers: top,
      })
    return spans(found.partitions[chosen - 1] as Int32Array)
  }

  return {
    async diarize(audio, opts = {}) {
      checkSpeakerCount(opts)
      const regions = await detectSpeech(audio, { ...config.vad, signal: opts.signal })
      return diarizeRegions(audio, regions, opts)
    },
    diarizeRegions,
    candidates: (audio, regions, top, opts) => candidates(audio, regions, top, opts),
    spans,
  }
}

/** The frames inside the regions, in order. */
function speechFrames(count: number, regions: SpeechRegion[]): number[] {
  const frames: number[] = []
  let next = 0
  for (const region of regions) {
    const first = Math.max(next, Math.round(region.start * FRAMES_PER_SECOND))
    const last = Math.min(count, Math.round(region.end * FRAMES_PER_SECOND))
    for (let f = first; f < last; f++) frames.push(f)
    next = Math.max(next, last)
  }
  return frames
}

/**
 * A label per frame of the recording (−1 outside speech): each speech frame takes the label of the nearest modelled
 * frame (both in time order).
 */
function fillLabels(count: number, speech: number[], modelled: number[], labels: Int32Array): Int32Array {
  const frameLabels = new Int32Array(count).fill(-1)
  let j = 0
  for (const f of speech) {
    while (
      j + 1 < modelled.length &&
      Math.abs((modelled[j + 1] as number) - f) <= Math.abs((modelled[j] as number) - f)
    )
      j++
    frameLabels[f] = modelled.length > 0 ? (labels[j] as number) : 0
  }
  return frameLabels
}

/**
 * The frames' MFCCs c1–c19 (and loudness in dB) normalised to zero mean and unit variance over these frames: the
 * recording's channel is common to all its speakers.
 */
export function speakerFrames(track: SpeechTrack, frames: number[], loudness: boolean): FrameMatrix {
  const dimension = CEPSTRA + (loudness ? 1 : 0)
  const data = new Float64Array(frames.length * dimension)
  frames.forEach((f, i) => {
    for (let c = 0; c < CEPSTRA; c++) data[i * dimension + c] = track.features.mfcc[f * CEPSTRA + c] as number
    if (loudness) data[i * dimension + CEPSTRA] = track.features.energyDb[f] as number
  })
  for (let j = 0; j < dimension; j++) {
    let sum = 0
    let square = 0
    for (let i = 0; i < frames.length; i++) {
      const x = data[i * dimension + j] as number
      sum += x
      square += x * x
    }
    const mean = sum / Math.max(1, frames.length)
    const deviation = Math.sqrt(Math.max(1e-12, square / Math.max(1, frames.length) - mean * mean))
    for (let i = 0; i < frames.length; i++)
      data[i * dimension + j] = ((data[i * dimension + j] as number) - mean) / deviation
  }
  return { rows: frames.length, dimension, data }
}

/** Each speech frame votes among the windows covering it (or takes the nearest one), weighted by voiced frames. */
function labelFrames(
  count: number,
  regions: SpeechRegion[],
  windows: Window[],
  labels: number[],
): Int32Array {
  const frameLabels = new Int32Array(count).fill(-1)
  const votes = new Float64Array(Math.max(...labels) + 1)
  // Windows come in time order, their starts and ends both ascending.
  let firstOpen = 0
  for (const region of regions) {
    const first = Math.round(region.start * FRAMES_PER_SECOND)
    const last = Math.min(count, Math.round(region.end * FRAMES_PER_SECOND))
    for (let f = first; f < last; f++) {
      while (firstOpen + 1 < windows.length && (windows[firstOpen] as Window).to <= f) firstOpen++
      votes.fill(0)
      for (let i = firstOpen; i < windows.length && (windows[i] as Window).from <= f; i++) {
        const w = windows[i] as Window
        const label = labels[i] as number
        if (f < w.to) votes[label] = (votes[label] as number) + w.voicedFrames
      }
      let best = 0
      for (let s = 1; s < votes.length; s++) if ((votes[s] as number) > (votes[best] as number)) best = s
      frameLabels[f] = votes[best] ? best : (labels[nearestWindow(windows, firstOpen, f)] as number)
    }
  }
  return frameLabels
}

/** The window whose centre is closest to `frame`, searching around `around`. */
function nearestWindow(windows: Window[], around: number, frame: number): number {
  const distance = (i: number) =>
    Math.abs(((windows[i] as Window).from + (windows[i] as Window).to) / 2 - frame)
  let best = around
  for (const i of [around - 1, around + 1])
    if (i >= 0 && i < windows.length && distance(i) < distance(best)) best = i
  return best
}

/**
 * Turns (one speaker's speech, pauses included) with less than `minFrames` of speech go to the speaker of the longer
 * neighbouring turn, shortest first, until every turn is long enough or stands alone.
 */
export function absorbShortTurns(frameLabels: Int32Array, minFrames: number): void {
  const turns = speakerTurns(frameLabels)
  for (;;) {
    let shortest = -1
    for (let i = 0; i < turns.length; i++) {
      const turn = turns[i] as Turn
      if (turn.speech >= minFrames || turns.length === 1) continue
      if (shortest < 0 || turn.speech < (turns[shortest] as Turn).speech) shortest = i
    }
    if (shortest < 0) return
    const turn = turns[shortest] as Turn
    const neighbours = [turns[shortest - 1], turns[shortest + 1]].filter((t): t is Turn => t !== undefined)
    const longer = neighbours.reduce((a, b) => (b.speech > a.speech ? b : a))
    for (let f = turn.start; f < turn.end; f++)
      if ((frameLabels[f] as number) >= 0) frameLabels[f] = longer.speaker
    turn.speaker = longer.speaker
    // Neighbours of one speaker are now one turn.
    for (let i = Math.max(0, shortest - 1); i < Math.min(turns.length - 1, shortest + 1); ) {
      const a = turns[i] as Turn
      const b = turns[i + 1] as Turn
      if (a.speaker !== b.speaker) {
        i++
        continue
      }
      turns.splice(i, 2, { start: a.start, end: b.end, speaker: a.speaker, speech: a.speech + b.speech })
      shortest--
    }
  }
}

interface Turn {
  /** Frame range, pauses inside included. */
  start: number
  end: number
  speaker: number
  /** Speech frames in it. */
  speech: number
}

function speakerTurns(frameLabels: Int32Array): Turn[] {
  const turns: Turn[] = []
  for (let f = 0; f < frameLabels.length; f++) {
    const speaker = frameLabels[f] as number
    if (speaker < 0) continue
    const last = turns.at(-1)
    if (last && last.speaker === speaker) {
      last.end = f + 1
      last.speech++
    } else turns.push({ start: f, end: f + 1, speaker, speech: 1 })
  }
  return turns
}

/** Maximal runs of consecutive speech frames with one label. */
function speakerRuns(frameLabels: Int32Array): { start: number; end: number; speaker: number }[] {
  const runs: { start: number; end: number; speaker: number }[] = []
  for (let f = 0; f < frameLabels.length; f++) {
    const speaker = frameLabels[f] as number
    if (speaker < 0) continue
    const last = runs.at(-1)
    if (last && last.speaker === speaker && last.end === f) last.end = f + 1
    else runs.push({ start: f, end: f + 1, speaker })
  }
  return runs
}

/** Spans in seconds, speakers renumbered by first appearance. */
export function toSpans(frameLabels: Int32Array): SpeakerSpan[] {
  const numbering = new Map<number, number>()
  return speakerRuns(frameLabels).map((run) => {
    if (!numbering.has(run.speaker)) numbering.set(run.speaker, numbering.size)
    return {
      start: run.start / FRAMES_PER_SECOND,
      end: run.end / FRAMES_PER_SECOND,
      speaker: numbering.get(run.speaker) as number,
    }
  })
}
