/**
 * The online speaker tracker of a realtime session on the segmentation model (docs/diarization.md "Online tracker"):
 * the turn so far, in 10 s windows, tells who holds the floor frame by frame (a change of speaker ends the turn); a
 * finished turn's speakers are named by putting their own speech side by side with a few seconds kept of each
 * speaker named so far and asking the model whether one voice holds both (reidentify.ts sameSpeaker).
 */
import { createPyannoteSegmenter } from '../segmentation/pyannote.ts'
import type { Segmenter } from '../segmentation/segmenter.ts'
import { localSpeakers, RATE } from './local-speakers.ts'
import { type FloorRun, floorHolders, floorRuns, latestChange, runSegments } from './online-floor.ts'
import { chainTracks, type Excerpt, type ExcerptComparer, modelComparer, soloExcerpts } from './reidentify.ts'
import { chainsApart, stitch } from './stitch.ts'

/** The tracker's model cannot be had (missing or damaged file): the session's diarization is unavailable. */
export class SpeakerTrackerUnavailableError extends Error {
  override name = 'SpeakerTrackerUnavailableError'
}

/** Who spoke in one finished turn. */
export interface TurnSpeakers {
  /** The speaker of most of the turn, or null when it holds too little speech to tell. */
  speaker: number | null
  /** Seconds within the turn. */
  segments: { speaker: number; start: number; end: number }[]
}

export interface SegmentedSpeakerTracker {
  /** Attributes one finished turn and remembers it for the turns after it. */
  assign(audio: Float32Array): Promise<TurnSpeakers>
  /** Where, in seconds into `audio` (a turn still going on), another speaker took over; null if nobody did. */
  speakerChange(audio: Float32Array): Promise<number | null>
}

export interface SegmentedTrackerOptions {
  maxSpeakers: number
  segmenter?: Segmenter & { load?: () => Promise<void> }
  /** How a turn's voice is compared with a speaker's exemplar; default the model side by side, one voice from 0.5. */
  comparer?: ExcerptComparer
}

export const ONLINE_DEFAULTS = {
  /** Seconds between the starts of a long turn's windows: half a window, so neighbours share 5 s to be linked on. */
  stepSeconds: 5,
  /** Intersection over union from which local speakers of neighbouring windows are one (stitch.ts, the diarizer's). */
  minAgreement: 0.3,
  /** A chain needs this much speech of its own to be named; less is someone's noise or a word over another. */
  minSoloSeconds: 0.5,
  /** Runs of a holder shorter than this belong to the run before: the model flickers on a few frames. */
  minRunSeconds: 0.3,
  /** A change: the new holder has held the floor this long, and the earlier one this long before it. */
  minAfterSeconds: 1,
  minBeforeSeconds: 1,
  /** Seconds of a speaker's own voice kept to compare later turns with (half a window: one side of a comparison). */
  exemplarSeconds: 5,
  threshold: 0.5,
}

/** Creates a session's tracker once its model is loaded; rejects with SpeakerTrackerUnavailableError if it cannot be. */
export async function createSegmentedSpeakerTracker(
  opts: SegmentedTrackerOptions,
  config = ONLINE_DEFAULTS,
): Promise<SegmentedSpeakerTracker> {
  const maxSpeakers = Math.max(1, opts.maxSpeakers)
  const segmenter = opts.segmenter ?? createPyannoteSegmenter()
  try {
    await segmenter.load?.()
  } catch (err) {
    throw new SpeakerTrackerUnavailableError((err as Error).message)
  }
  const comparer = opts.comparer ?? modelComparer(segmenter, config.threshold)
  const frameSeconds = segmenter.frameStep
  const frames = (seconds: number) => Math.round(seconds / frameSeconds)
  /** The kept voice of each speaker named so far, by number. */
  const exemplars: Excerpt[] = []

  /** Who holds the floor in `audio`: its windows, chains of local speakers, and the floor's runs over them. */
  async function hear(audio: Float32Array) {
    const local = await localSpeakers(audio, segmenter, [], { stepSeconds: config.stepSeconds })
    const chains = stitch(local, config.minAgreement)
    const total = Math.max(-1, ...chains) + 1
    const tracks = chainTracks(local, chains, total)
    const eligible = tracks.map((t) => t.solo.reduce((n, v) => n + v, 0) >= frames(config.minSoloSeconds))
    const runs = floorRuns(floorHolders(tracks, local.frames, eligible), frames(config.minRunSeconds))
    return { local, chains, tracks, runs }
  }

  /** The speaker number of each chain holding the floor in the turn, new numbers for voices not heard before. */
  async function name(
    audio: Float32Array,
    heard: Awaited<ReturnType<typeof hear>>,
    runs: readonly FloorRun[],
  ): Promise<Map<number, number>> {
    const { local, chains, tracks } = heard
    const excerpts = soloExcerpts(audio, local, tracks, config.exemplarSeconds, config.minRunSeconds)
    const speech = new Map<number, number>()
    for (const r of runs) speech.set(r.holder, (speech.get(r.holder) ?? 0) + r.to - r.from)
    // Chains that shared a window are two people in the model's own judgement: never one speaker.
    const apart = chainsApart(local, chains, tracks.length, 0)
    const numberOf = new Map<number, number>()
    // The chain heard most is named first: it has the most voice to compare.
    for (const [chain] of [...speech].sort((a, b) => b[1] - a[1])) {
      const excerpt = excerpts[chain] as Excerpt
      const excluded = new Set(
        [...numberOf].filter(([other]) => (apart[chain] as Uint8Array)[other]).map(([, n]) => n),
      )
      const candidates = exemplars.map((_, n) => n).filter((n) => !excluded.has(n))
      const scores =
        excerpt.seconds > 0 && candidates.length > 0
          ? await comparer.compare(
              [excerpt, ...candidates.map((n) => exemplars[n] as Excerpt)],
              candidates.map((_, i) => [0, i + 1] as [number, number]),
            )
          : []
      let best = -1
      scores.forEach((score, i) => {
        if (best < 0 || score > (scores[best] as number)) best = i
      })
      const bestScore = best < 0 ? Number.NEGATIVE_INFINITY : (scores[best] as number)
      // Too little of its own voice to compare: it is the turn's main speaker rather than someone new.
      const tooLittle = excerpt.seconds < config.minRunSeconds && (numberOf.size > 0 || best >= 0)
      let speaker: number
      if (best >= 0 && bestScore >= comparer.threshold) speaker = candidates[best] as number
      else if (tooLittle) speaker = numberOf.values().next().value ?? (candidates[best] as number)
      else if (exemplars.length < maxSpeakers) speaker = exemplars.length
      else speaker = best >= 0 ? (candidates[best] as number) : 0
      numberOf.set(chain, speaker)
      if (excerpt.seconds > 0)
        exemplars[speaker] = keepLatest(exemplars[speaker], excerpt, config.exemplarSeconds)
    }
    return numberOf
  }

  return {
    async speakerChange(audio) {
      const { runs } = await hear(audio)
      const at = latestChange(runs, frames(config.minAfterSeconds), frames(config.minBeforeSeconds))
      return at === null ? null : at * frameSeconds
    },
    async assign(audio) {
      const heard = await hear(audio)
      const { runs } = heard
      if (runs.length === 0) return { speaker: null, segments: [] }
      const numberOf = await name(audio, heard, runs)
      const segments = runSegments(
        runs,
        (holder) => numberOf.get(holder) as number,
        frameSeconds,
        audio.length / RATE,
      )
      // Neighbouring runs of chains named as one speaker are one segment.
      const merged = segments.reduce<typeof segments>((out, s) => {
        const last = out.at(-1)
        if (last && last.speaker === s.speaker) last.end = s.end
        else out.push({ ...s })
        return out
      }, [])
      const talk = new Map<number, number>()
      for (const s of merged) talk.set(s.speaker, (talk.get(s.speaker) ?? 0) + s.end - s.start)
      const speaker = [...talk].reduce((a, b) => (b[1] > a[1] ? b : a))[0]
      return { speaker, segments: merged }
    },
  }
}

/** A speaker's exemplar after another turn of theirs: the latest `seconds` of their own voice (voices drift). */
export function keepLatest(old: Excerpt | undefined, heard: Excerpt, seconds: number): Excerpt {
  const max = Math.round(seconds * RATE)
  if (!old || heard.samples.length >= max) {
    const samples = heard.samples.slice(Math.max(0, heard.samples.length - max))
    return { samples, seconds: samples.length / RATE }
  }
  const keep = Math.min(old.samples.length, max - heard.samples.length)
  const samples = new Float32Array(keep + heard.samples.length)
  samples.set(old.samples.subarray(old.samples.length - keep))
  samples.set(heard.samples, keep)
  return { samples, seconds: samples.length / RATE }
}
