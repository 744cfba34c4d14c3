/**
 * Screening of a consent recording before it is accepted: how much speech it holds, whether it holds enough of it,
 * clearly enough, to judge, how many people seem to speak in it, and whether music plays. The service refuses a clip
 * with music, with too little or too noisy speech, or with more than one speaker. It runs synchronously (a consent
 * clip lasts seconds).
 *
 * Speakers are found in two steps. The diarizer's window clustering (1.5 s windows of MFCC statistics) proposes a
 * partition; it splits readily, and on real recordings it also splits one person whose words or loudness change.
 * Each proposed pair of voices is then compared as a whole with the speaker verifier's model (gmm.ts): each side's
 * voiced frames give a MAP-adapted GMM-UBM mean supervector (Reynolds, Quatieri & Dunn 2000; Campbell, Sturim &
 * Reynolds 2006) after per-clip cepstral mean and variance normalisation, and two sides count as two people only
 * when their supervectors point apart, weighed against how alike each side is to itself (SAME_VOICE_SCORE), or when
 * their median pitches lie half an octave apart (DIFFERENT_PITCH_SEMITONES).
 *
 * The clustering needs a second of speech per voice in whole windows, so it proposes no second voice for many
 * short clips of two people. A change-point check covers them: the clip's voiced frames are split at every point
 * that leaves a second of voice on each side, and where the two sides' supervectors are least alike, that
 * similarity, weighed against how alike each side is to itself, says whether the voice changed (CHANGED_VOICE_SCORE).
 * Weights and thresholds are chosen on held-out real speakers (bench/voices-real.ts; docs/voices-and-consents.md).
 */
import { cosineSimilarity } from './embedder.ts'
import { FRAMES_PER_SECOND } from './features.ts'
import {
  clipFeatures,
  GMM_FEATURES,
  supervectorWithHalves,
  type Ubm,
  type VoiceChange,
  voiceChange,
} from './gmm.ts'
import { V2_RELEVANCE } from './gmm-embedder.ts'
import { SPEAKER_MODEL } from './speaker-model.ts'
import { analyzeSpeech, type SpeechTrack } from './statistics.ts'
import { beatStrength, sustainedToneShare } from './tonality.ts'
import {
  clusterWindows,
  DEFAULT_CLUSTER_THRESHOLD,
  type SpeechRegion,
  slideWindows,
  type Window,
} from './windows.ts'

/** Why a clip holds too little evidence to be screened, so what to record instead. */
export type WeakEvidence = 'too_short' | 'too_noisy'

export interface RecordingScreen {
  /** Seconds of sound above the clip's noise floor, pauses under 0.3 s included. */
  speechSeconds: number
  /** Seconds of voiced speech: the frames the speaker verifier embeds, so the evidence it has to decide by. */
  voicedSeconds: number
  /** Estimated number of distinct voices with at least a second of speech each: 0 only when nothing is heard. */
  speakers: number
  /** Sustained tones (instruments, a held chord) dominate the clip, or its onsets keep a musical beat. */
  music: boolean
  /** How regular the clip's onsets are at a musical tempo (tonality.ts `beatStrength`), for the benchmark. */
  beatStrength: number
  /**
   * Set when the clip cannot be judged: `too_noisy` when speech stands too little above the background (noise
   * also hides voicing), else `too_short` under MIN_VERIFIED_SPEECH_SECONDS of voiced speech. Null when the
   * evidence suffices.
   */
  weakEvidence: WeakEvidence | null
  /** Lowest speaker-model similarity between two proposed voices (1 when none was proposed), for the benchmark. */
  voiceSimilarity: number
  /**
   * How alike the two least alike proposed voices are each to itself: the similarity between the halves of each
   * voice's frames, the mean over both (1 when none was proposed). For the benchmark.
   */
  voiceWithin: number
  /** Largest gap between proposed voices' median pitches, in semitones (0 when none), for the benchmark. */
  pitchGap: number
  /**
   * How far the voice changes at the point where it changes most (a second of voice or more on each side): the
   * speaker-model similarity across that point, less CHANGE_WITHIN_WEIGHT times the similarity within each side;
   * 1 when the clip holds too little. Below CHANGED_VOICE_SCORE it is two people. For the benchmark.
   */
  changeScore: number
  /** The similarities the change score is made of (null when the clip holds too little), for the benchmark. */
  change: VoiceChange | null
}

export interface ScreenOptions {
  /** Background model of the voice comparison; the benchmark passes one fitted without the speakers it measures. */
  ubm?: Ubm
}

/** Speech stays under about half of its frames tonal on real recordings; music fills most of its frames. */
export const MUSIC_TONAL_SHARE = 0.25
/**
 * Onsets this regular at a musical tempo are music: every real one-person clip's beat strength (at most 0.447, FSDD
 * digits counted at a steady pace) rounded up to a tenth. Not held out; checked on speech never used for it (held-out
 * whole takes 0.27, whole meetings 0.11, the eSpeak phrase 0.22) and on real music (bench/voices-real.ts).
 */
const MUSIC_BEAT_STRENGTH = 0.5
/** A voice heard for less than this is not counted: a cough or a word from the next room is not a second speaker. */
const MIN_SPEAKER_SECONDS = 1
/** Pauses shorter than this stay inside the speech around them; bursts shorter than the minimum are clicks. */
const MAX_PAUSE_FRAMES = 30
const MIN_BURST_FRAMES = 10
const WINDOWS = { windowSeconds: 1.5, hopSeconds: 0.75 }
/** A proposed voice needs this many voiced frames for its supervector to mean anything. */
const MIN_VOICE_FRAMES = 40
/**
 * How much of two proposed voices' similarity each to itself is taken from their similarity to each other, as for
 * the change point below: one person whose words vary splits into voices that are unlike each other, but each is
 * as unlike itself. Chosen on fold 0 by the change point's rule (docs/voices-and-consents.md, "Fourth pass").
 */
export const VOICE_WITHIN_WEIGHT = 0.1
/**
 * Two proposed voices scoring this or more (similarity less VOICE_WITHIN_WEIGHT × within) are one person: the
 * highest threshold accepting 99% of fold 0's one-person clips with a second of voice, rounded down to a hundredth,
 * checked on held-out fold 1 (bench/voices-real.ts). Until 2026-11-28 the similarity alone, at 0.05.
 */
export const SAME_VOICE_SCORE = -0.01
/** Split points of the change-point check lie this many frames apart (a tenth of a second). */
const CHANGE_STEP_FRAMES = 10
/**
 * How much of the similarity within each side of a change point is taken from the similarity across it. One
 * person whose words vary a lot is unlike themself across any point, but as unlike within each side, so the score
 * weighs the change against that; two people are alike within each side only. Chosen on fold 0 (the weight, in
 * tenths from 0 to 1, that detects the most two-person clips at the threshold rule below; docs/voices-and-consents.md).
 */
export const CHANGE_WITHIN_WEIGHT = 0.4
/**
 * A change score below this is two people: the highest threshold accepting 99% of fold 0's one-person clips
 * with a second or more of voice (−0.053, rounded down), checked on held-out fold 1 (bench/voices-real.ts). It
 * catches two people one after the other whom the window clustering leaves as one voice.
 */
export const CHANGED_VOICE_SCORE = -0.06
/**
 * Two proposed voices whose median pitches lie half an octave apart are two people, whatever their spectra say:
 * one person's proposed voices differed by at most 4.5 semitones over both folds of real speech, while women's and
 * men's voices lie about 10 semitones apart on average (about 120 Hz against 210 Hz; Titze 1994).
 */
export const DIFFERENT_PITCH_SEMITONES = 6
/**
 * Loud speech frames (98th percentile) must stand this far above the quiet ones (5th percentile); real one-person
 * recordings in meeting rooms and at home stood 29 dB or more above their floor.
 */
const MIN_CONTRAST_DB = 15
/**
 * Voiced speech a clip needs for its speaker to be verified. Below it the verifier refuses too many owners to be
 * worth deciding on: 1.75 s is the shortest (in 0.25 s steps) at which fold 0's owners reach 90% at the shipped
 * threshold when both clips of a trial hold at least that much, a rule fixed beforehand and checked on held-out
 * fold 1 (bench/voices-real.ts, docs/voices-and-consents.md). The consent phrase as the tests' eSpeak voice reads
 * it holds 2.7 s.
 */
export const MIN_VERIFIED_SPEECH_SECONDS = 1.75

export function screenRecording(audio16k: Float32Array, options: ScreenOptions = {}): RecordingScreen {
  const track = analyzeSpeech(audio16k)
  const regions = foregroundRegions(track)
  const speechSeconds = regions.reduce((total, r) => total + r.end - r.start, 0)
  const beat = beatStrength(track.features)
  const music =
    sustainedToneShare(track.features, track.gateDb) >= MUSIC_TONAL_SHARE || beat >= MUSIC_BEAT_STRENGTH
  let voiced = 0
  for (let f = 0; f < track.features.count; f++) voiced += track.voiced[f] as number
  const weakEvidence: WeakEvidence | null =
    speechSeconds === 0
      ? null
      : loudnessContrastDb(track) < MIN_CONTRAST_DB
        ? 'too_noisy'
        : voiced < MIN_VERIFIED_SPEECH_SECONDS * FRAMES_PER_SECOND
          ? 'too_short'
          : null
  const windows = slideWindows(track, regions, WINDOWS)
  const labels = clusterWindows(windows, { threshold: DEFAULT_CLUSTER_THRESHOLD })
  // Each window's hop is the share of time it speaks for.
  const perSpeaker = new Map<number, number>()
  for (const label of labels) perSpeaker.set(label, (perSpeaker.get(label) ?? 0) + WINDOWS.hopSeconds)
  const heard = [...perSpeaker]
    .filter(([, seconds]) => seconds >= MIN_SPEAKER_SECONDS)
    .sort((a, b) => b[1] - a[1])
    .map(([label]) => label)
  const {
    similarity: voiceSimilarity,
    within: voiceWithin,
    pitchGap,
  } = heard.length >= 2
    ? compareVoices(options.ubm ?? SPEAKER_MODEL, track, windows, labels, heard)
    : { similarity: 1, within: 1, pitchGap: 0 }
  const change = changeOf(options.ubm ?? SPEAKER_MODEL, track)
  const changeScore = change ? change.across - CHANGE_WITHIN_WEIGHT * change.within : 1
  const twoPeople =
    voiceSimilarity - VOICE_WITHIN_WEIGHT * voiceWithin < SAME_VOICE_SCORE ||
    pitchGap >= DIFFERENT_PITCH_SEMITONES
  // The change point finds a second person the clustering did not propose (it needs a second of speech per voice
  // in whole windows); when it did propose them, their count stands.
  const voices = twoPeople ? heard.length : changeScore < CHANGED_VOICE_SCORE ? 2 : 1
  return {
    speechSeconds,
    voicedSeconds: voiced / FRAMES_PER_SECOND,
    speakers: speechSeconds > 0 ? voices : 0,
    music,
    beatStrength: beat,
    weakEvidence,
    voiceSimilarity,
    voiceWithin,
    pitchGap,
    changeScore,
    change,
  }
}

/**
 * Where the voice changes most (RecordingScreen.changeScore): the clip's voiced frames (after per-clip CMVN) split
 * in two at every tenth of a second leaving a second or more of voice on each side, each side's MAP-adapted
 * supervector (relevance as the verifier's) compared across the split and between its own halves.
 */
function changeOf(ubm: Ubm, track: SpeechTrack): VoiceChange | null {
  const minRows = MIN_SPEAKER_SECONDS * FRAMES_PER_SECOND
  const features = clipFeatures(track, 2 * minRows)
  return (
    features && voiceChange(ubm, features, { minRows, stepRows: CHANGE_STEP_FRAMES, relevance: V2_RELEVANCE })
  )
}

/**
 * The lowest cosine similarity between the adapted supervectors of any two proposed voices, each made of the
 * voiced frames its windows speak for (a window speaks for its first hop; the last for all of it), how alike
 * those two are each to itself (their frames' first and second halves compared, the mean over both), and the
 * largest gap between the voices' median pitches in semitones.
 */
function compareVoices(
  ubm: Ubm,
  track: SpeechTrack,
  windows: Window[],
  labels: number[],
  heard: number[],
): { similarity: number; within: number; pitchGap: number } {
  const features = clipFeatures(track, MIN_VOICE_FRAMES)
  if (!features) return { similarity: 1, within: 1, pitchGap: 0 }
  const hop = Math.round(WINDOWS.hopSeconds * FRAMES_PER_SECOND)
  const owner = new Int32Array(track.features.count).fill(-1)
  windows.forEach((w, i) => {
    const next = windows[i + 1]
    const end = next && next.from < w.to ? Math.min(w.to, w.from + hop) : w.to
    for (let f = w.from; f < end; f++) if (owner[f] === -1) owner[f] = labels[i] as number
  })
  // Rows of `features` (voiced frames in order) per proposed voice.
  const rows = new Map<number, number[]>(heard.map((label) => [label, []]))
  const pitches = new Map<number, number[]>(heard.map((label) => [label, []]))
  let row = 0
  for (let f = 0; f < track.features.count; f++) {
    if (!track.voiced[f]) continue
    rows.get(owner[f] as number)?.push(row)
    const hz = track.pitchHz[f] as number
    if (hz > 0) pitches.get(owner[f] as number)?.push(12 * Math.log2(hz))
    row++
  }
  const medians = heard.flatMap((label) => {
    const semitones = (pitches.get(label) as number[]).sort((a, b) => a - b)
    return semitones.length < MIN_VOICE_FRAMES ? [] : [semitones[semitones.length >> 1] as number]
  })
  const pitchGap = medians.length ? Math.max(...medians) - Math.min(...medians) : 0
  const gather = (mine: number[]) => {
    const values = new Float64Array(mine.length * GMM_FEATURES)
    mine.forEach((r, i) => {
      values.set(features.values.subarray(r * GMM_FEATURES, (r + 1) * GMM_FEATURES), i * GMM_FEATURES)
    })
    return { values, count: mine.length }
  }
  const voices = heard.flatMap((label) => {
    const mine = rows.get(label) as number[]
    if (mine.length < MIN_VOICE_FRAMES) return []
    const { vector, halves } = supervectorWithHalves(ubm, gather(mine))
    return [{ vector, within: halves }]
  })
  let lowest = 1
  let within = 1
  for (let i = 0; i < voices.length; i++)
    for (let j = i + 1; j < voices.length; j++) {
      const [a, b] = [voices[i], voices[j]] as [(typeof voices)[number], (typeof voices)[number]]
      const similarity = cosineSimilarity(a.vector, b.vector)
      if (similarity < lowest) [lowest, within] = [similarity, (a.within + b.within) / 2]
    }
  return { similarity: lowest, within, pitchGap }
}

/** How far the clip's loud frames stand above its quiet ones, in dB: low when noise fills the pauses. */
function loudnessContrastDb(track: SpeechTrack): number {
  const sorted = Float32Array.from(track.features.energyDb).sort()
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))] as number
  return sorted.length === 0 ? 0 : at(0.98) - at(0.05)
}

/** Runs of frames above the loudness gate, short pauses bridged and clicks dropped. */
export function foregroundRegions(track: SpeechTrack): SpeechRegion[] {
  const regions: SpeechRegion[] = []
  let start = -1
  let lastLoud = -1
  const close = () => {
    if (start >= 0 && lastLoud + 1 - start >= MIN_BURST_FRAMES) {
      regions.push({ start: start / FRAMES_PER_SECOND, end: (lastLoud + 1) / FRAMES_PER_SECOND })
    }
    start = -1
  }
  for (let f = 0; f < track.features.count; f++) {
    if ((track.features.energyDb[f] as number) < track.gateDb) {
      if (start >= 0 && f - lastLoud > MAX_PAUSE_FRAMES) close()
      continue
    }
    if (start < 0) start = f
    lastLoud = f
  }
  close()
  return regions
}
