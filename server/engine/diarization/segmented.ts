/**
 * The diarizer on the segmentation model (docs/diarization.md): speech from Silero VAD and the model together;
 * 10 s windows a second apart, each decoded to local speakers and overlap; local speakers of overlapping windows
 * linked where their activity agrees (stitch.ts) and cut where their voice changes (chain-splits.ts); the chains
 * compared by the speaker verifier's embedding (reidentify.ts) and grouped (chain-clusters.ts), so a speaker who
 * comes back after a long gap is found again; each
 * frame then keeps as many speakers as the windows hear (reconstruct.ts). Spans of two speakers overlap where both talk.
 */
import { createPyannoteSegmenter } from '../segmentation/pyannote.ts'
import type { Segmenter } from '../segmentation/segmenter.ts'
import { createSpeakerEmbedder, DEFAULT_VERIFICATION_THRESHOLD } from '../speaker/index.ts'
import { type DetectOptions, detectSpeech } from '../vad/index.ts'
import { clusterChains, joinSmallChains } from './chain-clusters.ts'
import { type ChainSplitOptions, type GridRange, splitChains } from './chain-splits.ts'
import {
  checkSpeakerCount,
  type Diarizer,
  type SpeakerCount,
  type SpeakerSpan,
  speakerBounds,
} from './diarizer.ts'
import { type LocalSpeakers, localSpeakers, RATE, speakerCounts } from './local-speakers.ts'
import { activitySpans, reconstruct } from './reconstruct.ts'
import {
  chainTracks,
  type Excerpt,
  type ExcerptComparer,
  embeddingComparer,
  modelComparer,
  soloExcerpts,
} from './reidentify.ts'
import { chainsApart, stitch } from './stitch.ts'

export interface SegmentationDiarizerOptions {
  segmenter?: Segmenter & { load?: () => Promise<void> }
  /** Seconds between window starts. */
  stepSeconds?: number
  /** Intersection over union from which local speakers of overlapping windows are linked. */
  minAgreement?: number
  /**
   * How chains are compared: 'embedding' (default), the speaker verifier's GMM–UBM embedding of each chain's solo
   * speech, one speaker from its verification threshold; 'model', the segmentation model hearing two excerpts side
   * by side, from 0.5. Or any comparer.
   */
  compare?: 'embedding' | 'model' | ExcerptComparer
  /** Solo speech of a chain put before the model when comparing (seconds; at most half a window). */
  excerptSeconds?: number
  /** Shortest stretch of solo speech taken into an excerpt. */
  minRunSeconds?: number
  /** Chains with less solo speech than this are not compared with each other but joined to the closest speaker. */
  minChainSeconds?: number
  /**
   * Cutting chains where the voice changes (chain-splits.ts), with the speaker verifier's embedding; a cut needs the
   * two sides less alike (`cutBelow`) than the 0.13 from which chains are joined, as one person's two sittings can
   * score between the two. null: chains are kept whole.
   */
  split?: Partial<ChainSplitOptions> | null
  /** Speech detection beside the model's own; null: the model's alone. */
  vad?: DetectOptions | null
  /**
   * Two local speakers of one window are kept apart for good only when each is heard this long in it (seconds): a
   * voice at a window's edge, or the model's reaction to a change of room, is too little to forbid a link.
   */
  minApartSeconds?: number
  /** How long a chain must be heard (seconds of the recording) to be a speaker of its own. */
  minSpeakerSeconds?: number
  /** Gaps in one speaker's speech shorter than this are closed. */
  bridgeSeconds?: number
  /** Added to the mean number of local speakers the windows hear before it is rounded to a frame's count. */
  countOffset?: number
}

export const SEGMENTATION_DEFAULTS = {
  stepSeconds: 1,
  minAgreement: 0.3,
  compare: 'embedding' as 'embedding' | 'model' | ExcerptComparer,
  excerptSeconds: 5,
  minRunSeconds: 0.3,
  minChainSeconds: 1,
  split: { stretchSeconds: 5, minSeconds: 1, cutBelow: 0.05 } as Partial<ChainSplitOptions> | null,
  vad: { threshold: 0.2, minSilenceSeconds: 1, padSeconds: 0.1 } as DetectOptions | null,
  minApartSeconds: 1,
  minSpeakerSeconds: 2,
  bridgeSeconds: 0.5,
  countOffset: 0,
}

/** What the diarizer found before the speakers were chosen: for evaluation (oracle linking) and diagnosis. */
export interface LocalAnalysis {
  local: LocalSpeakers
  counts: Uint8Array
  /** Chain of each local speaker (−1: never active). */
  chains: Int32Array
  /** The part of the grid each piece of a cut chain owns (chain-splits.ts). */
  ranges: ReadonlyMap<number, GridRange>
}

export interface SegmentationDiarizer extends Diarizer {
  analyze(audio: Float32Array, signal?: AbortSignal): Promise<LocalAnalysis>
  /** Spans from a speaker label per local speaker (−1: none). */
  spansOf(analysis: LocalAnalysis, labels: Int32Array, duration: number, everyone?: boolean): SpeakerSpan[]
}

export function createSegmentationDiarizer(options: SegmentationDiarizerOptions = {}): SegmentationDiarizer {
  const config = { ...SEGMENTATION_DEFAULTS, ...options }
  const segmenter = options.segmenter ?? createPyannoteSegmenter()
  const embedder = createSpeakerEmbedder()
  const comparer: ExcerptComparer =
    config.compare === 'model'
      ? modelComparer(segmenter)
      : config.compare === 'embedding'
        ? embeddingComparer(embedder, DEFAULT_VERIFICATION_THRESHOLD)
        : config.compare
  const split = config.split && { ...(SEGMENTATION_DEFAULTS.split as ChainSplitOptions), ...config.split }

  async function analyze(audio: Float32Array, signal?: AbortSignal): Promise<LocalAnalysis> {
    const speech = config.vad ? await detectSpeech(audio, { ...config.vad, signal }) : []
    const local = await localSpeakers(audio, segmenter, speech, config, signal)
    const stitched = stitch(local, config.minAgreement)
    signal?.throwIfAborted()
    const { chains, ranges } = split
      ? splitChains(audio, local, stitched, embedder, split)
      : { chains: stitched, ranges: new Map<number, GridRange>() }
    return { local, counts: speakerCounts(local, config.countOffset), chains, ranges }
  }

  function spansOf(
    analysis: LocalAnalysis,
    labels: Int32Array,
    duration: number,
    everyone = false,
  ): SpeakerSpan[] {
    const speakers = Math.max(0, ...labels) + 1
    const activity = reconstruct(analysis.local, labels, speakers, analysis.counts, everyone)
    return activitySpans(analysis.local, activity, duration, config.bridgeSeconds)
  }

  return {
    analyze,
    spansOf,
    async available() {
      try {
        await segmenter.load?.()
        return true
      } catch {
        return false
      }
    },
    async diarize(audio, opts = {}) {
      checkSpeakerCount(opts)
      const analysis = await analyze(audio, opts.signal)
      const labels = await speakerLabels(audio, analysis, opts, opts.signal)
      // A count given names that many speakers: none of them may vanish in reconstruction.
      const counted = opts.numSpeakers !== undefined || opts.minSpeakers !== undefined
      return spansOf(analysis, labels, audio.length / RATE, counted)
    },
  }

  /** The recording's speaker of each local speaker. */
  async function speakerLabels(
    audio: Float32Array,
    analysis: LocalAnalysis,
    count: SpeakerCount,
    signal?: AbortSignal,
  ): Promise<Int32Array> {
    const { local, chains } = analysis
    const total = Math.max(-1, ...chains) + 1
    if (total === 0) return chains
    const tracks = chainTracks(local, chains, total, analysis.ranges)
    const excerpts = soloExcerpts(audio, local, tracks, config.excerptSeconds, config.minRunSeconds)
    const apart = chainsApart(
      local,
      chains,
      total,
      Math.round(config.minApartSeconds / local.segmenter.frameStep),
    )
    const large = excerpts.flatMap((e, c) => (e.seconds >= config.minChainSeconds ? [c] : []))
    const compared = large.length > 0 ? large : [longest(excerpts)]
    const pairs: [number, number][] = []
    for (let i = 0; i < compared.length; i++)
      for (let j = i + 1; j < compared.length; j++) {
        const [a, b] = [compared[i] as number, compared[j] as number]
        if (!(apart[a] as Uint8Array)[b]) pairs.push([a, b])
      }
    const scores = await comparer.compare(excerpts, pairs, signal)
    const index = new Map(compared.map((c, i) => [c, i]))
    const similarity = compared.map(() => new Float64Array(compared.length).fill(Number.NaN))
    pairs.forEach(([a, b], p) => {
      const [i, j] = [index.get(a) as number, index.get(b) as number]
      ;(similarity[i] as Float64Array)[j] = scores[p] as number
      ;(similarity[j] as Float64Array)[i] = scores[p] as number
    })
    const apartCompared = compared.map((a) =>
      Uint8Array.from(compared, (b) => (apart[a] as Uint8Array)[b] as number),
    )
    const activeSeconds = Float64Array.from(
      tracks,
      (t) => t.heard.reduce((n, x) => n + x, 0) * local.segmenter.frameStep,
    )
    const clusterOf = clusterChains(similarity, apartCompared, {
      ...count,
      threshold: comparer.threshold,
      seconds: compared.map((c) => activeSeconds[c] as number),
    })
    const speakerOfChain = new Int32Array(total).fill(-1)
    compared.forEach((c, i) => {
      speakerOfChain[c] = clusterOf[i] as number
    })
    const { least: wanted, most } = speakerBounds(count)
    joinSmallChains(tracks, compared, speakerOfChain, apart, activeSeconds, {
      wanted,
      most,
      minSpeakerSeconds: config.minSpeakerSeconds,
    })
    const labels = Int32Array.from(chains, (c) => (c < 0 ? -1 : (speakerOfChain[c] as number)))
    return splitToCount(local, labels, wanted, analysis.counts, config.minSpeakerSeconds)
  }
}

/**
 * A caller's count above the speakers heard: the speaker heard in most windows gives its local speakers of its last
 * windows to a new speaker, as few windows as make the new one heard for `minSeconds`, so a count the
 * audio does not bear costs as little of the real speakers' speech as it can; repeated until the count is reached or
 * nobody can be split.
 */
export function splitToCount(
  local: LocalSpeakers,
  labels: Int32Array,
  wanted: number,
  counts: Uint8Array,
  minSeconds: number,
): Int32Array {
  let out = labels.slice()
  const k = local.segmenter.speakers
  const minFrames = Math.max(1, Math.round(minSeconds / local.segmenter.frameStep))
  let speakers = Math.max(-1, ...out) + 1
  while (speakers > 0 && speakers < wanted) {
    const windowsOf = Array.from({ length: speakers }, () => [] as number[])
    for (let n = 0; n < out.length; n++) {
      const w = Math.floor(n / k)
      const of = windowsOf[out[n] as number]
      if (of && of.at(-1) !== w) of.push(w)
    }
    const widest = windowsOf.reduce((a, b, i) => (b.length > (windowsOf[a] as number[]).length ? i : a), 0)
    const windows = windowsOf[widest] as number[]
    if (windows.length < 2) break
    // The fewest of its last windows that make the new speaker heard long enough: doubling, then halving the step.
    const given = (taken: number) => {
      const from = windows[windows.length - taken] as number
      const split = out.map((label, n) => (label === widest && Math.floor(n / k) >= from ? speakers : label))
      const heard = reconstruct(local, split, speakers + 1, counts)
      let frames = 0
      for (let g = 0; g < heard.frames; g++) frames += heard.active[speakers * heard.frames + g] as number
      return { split, enough: frames >= minFrames }
    }
    const most = windows.length - 1
    let high = 1
    while (high < most && !given(high).enough) high = Math.min(most, high * 2)
    let low = Math.floor(high / 2)
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2)
      if (given(middle).enough) high = middle
      else low = middle
    }
    const { split } = given(high)
    out = Int32Array.from(split)
    speakers++
  }
  return out
}

function longest(excerpts: Excerpt[]): number {
  let best = 0
  excerpts.forEach((e, c) => {
    if (e.seconds > (excerpts[best] as Excerpt).seconds) best = c
  })
  return best
}
