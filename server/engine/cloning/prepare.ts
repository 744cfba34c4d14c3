import { concat } from '../../../core/concat.ts'
import { summarizePitch, trackPitch } from '../markup/pitch.ts'
import { OUTPUT_SAMPLE_RATE, type Synthesizer, type VoiceParams } from '../synthesizer.ts'
import { averageEnvelope, bestFormantScale } from './envelope.ts'

/**
 * Voice preparation for cloning: from a reference clip, the eSpeak parameters that bring a formant voice toward the
 * reference speaker — median pitch, pitch range and speaking rate, in the reference's language — and the formant
 * scale that moves the base voice's spectral envelope onto the reference's (envelope.ts). A neural cloning model
 * would replace this stage and keep the contract: audio (and its words) in, a stored, versioned preparation out.
 */

/** Bump when preparation changes, so stored voices are prepared again on their next use (contract 3). */
export const PREPARATION_VERSION = 'f0-rate-formant-1'

/** Rendered with the prepared voice to compare its envelope with the reference's: varied vowels, no rare words. */
const CALIBRATION_TEXT =
  'The weather was calm, so we walked along the river to the old mill, and talked about the harvest and the evening news.'
/** Formant scales this close to 1 are left alone: the warp would cost time and change nothing audible. */
const MIN_FORMANT_CHANGE = 0.02

export interface PreparedVoice {
  params: VoiceParams
  /** What was measured on the reference, kept for provenance and tests. */
  reference: { medianHz: number; rangeSemitones: number; wordsPerMinute: number | null; formantScale: number }
}

export interface PrepareInput {
  /** 16 kHz mono float. */
  audio: Float32Array
  sampleRate: number
  /** BCP 47 tag; decides the eSpeak language voice. */
  language: string
  /** Words spoken in the clip (a supplied transcript or the recognizer's), for the speaking rate. */
  wordCount?: number
}

/**
 * Median F0 (Hz) that eSpeak NG produces at pitch 0, 25, 50, 75 and 100 for each variant, measured with the YIN
 * tracker on one English sentence at range 50 (scripts: docs/cloning.md). Between points F0 is interpolated.
 */
const VARIANT_F0: Record<string, readonly number[]> = {
  m1: [65, 74, 93, 121, 157],
  m3: [71, 85, 105, 134, 174],
  m7: [74, 88, 106, 134, 170],
  f1: [116, 143, 180, 233, 307],
  f2: [130, 158, 196, 251, 325],
  f5: [131, 162, 206, 268, 353],
}
/** Pitch range in semitones at range 0 and the growth per range step, measured the same way. */
const RANGE_AT_ZERO = 1.1
const RANGE_PER_STEP = 0.042
/**
 * A wider range also raises the median F0 (measured: range 0 → 0.89×, range 100 → 1.14× the median at 50), about
 * 0.18 octave per 50 steps; the pitch setting is chosen for the median the range will produce.
 */
const RANGE_OCTAVES_PER_50 = 0.18
/** Below this median F0 a male variant is nearer; typical adult ranges meet around here. */
const MALE_FEMALE_SPLIT_HZ = 155
const DEFAULT_WPM = 175
const MIN_WPM = 80
const MAX_WPM = 450

export async function prepareVoice(synth: Synthesizer, input: PrepareInput): Promise<PreparedVoice> {
  const { params, medianHz, rangeSemitones, wordsPerMinute } = prosodyOf(input)
  const base: Int16Array[] = []
  for await (const chunk of synth.synthesize({ text: CALIBRATION_TEXT, voice: params, speed: 1 }))
    base.push(chunk)
  const formantScale = bestFormantScale(
    averageEnvelope(input.audio, input.sampleRate),
    averageEnvelope(concat(base, Int16Array), OUTPUT_SAMPLE_RATE),
  )
  return {
    params: Math.abs(formantScale - 1) < MIN_FORMANT_CHANGE ? params : { ...params, formantScale },
    reference: { medianHz, rangeSemitones, wordsPerMinute, formantScale },
  }
}

/** Pitch level, range and speaking rate of the reference, as eSpeak settings. */
function prosodyOf(input: PrepareInput) {
  const pcm = new Int16Array(input.audio.length)
  for (let i = 0; i < pcm.length; i++) pcm[i] = Math.max(-1, Math.min(1, input.audio[i] as number)) * 32767
  const pitch = summarizePitch(trackPitch(pcm, input.sampleRate, { minHz: 55, maxHz: 500 }))
  const medianHz = Number.isFinite(pitch.medianHz) ? pitch.medianHz : 120
  const rangeSemitones = Number.isFinite(pitch.rangeSemitones) ? pitch.rangeSemitones : 4
  const range = Math.round(clamp((rangeSemitones - RANGE_AT_ZERO) / RANGE_PER_STEP, 0, 100))
  const { variant, pitchParam } = nearestVariant(medianHz / 2 ** ((RANGE_OCTAVES_PER_50 * (range - 50)) / 50))
  const speechSeconds = voicedSeconds(pcm, input.sampleRate)
  const wordsPerMinute =
    input.wordCount && speechSeconds > 0.5
      ? clamp((input.wordCount / speechSeconds) * 60, MIN_WPM, MAX_WPM)
      : null
  const params: VoiceParams = {
    espeakVoice: `${espeakLanguage(input.language)}+${variant}`,
    pitch: Math.round(pitchParam),
    range,
    rate: Math.round(wordsPerMinute ?? DEFAULT_WPM),
  }
  return { params, medianHz, rangeSemitones, wordsPerMinute }
}

/** The variant of the reference's sex whose pitch setting lands closest to its neutral 50, and that setting. */
function nearestVariant(hz: number): { variant: string; pitchParam: number } {
  const candidates = Object.entries(VARIANT_F0).filter(([name]) =>
    hz < MALE_FEMALE_SPLIT_HZ ? name.startsWith('m') : name.startsWith('f'),
  )
  let best = { variant: 'm1', pitchParam: 50 }
  let bestDistance = Number.POSITIVE_INFINITY
  for (const [variant, table] of candidates) {
    const pitchParam = invert(table, hz)
    const distance = Math.abs(pitchParam - 50)
    if (distance < bestDistance) {
      bestDistance = distance
      best = { variant, pitchParam }
    }
  }
  return best
}

/** The pitch setting (0–100) at which a variant's measured F0 table reaches `hz`, in log frequency. */
function invert(table: readonly number[], hz: number): number {
  const target = Math.log(hz)
  for (let i = 0; i < table.length - 1; i++) {
    const lo = Math.log(table[i] as number)
    const hi = Math.log(table[i + 1] as number)
    if (target <= hi || i === table.length - 2) {
      return clamp(25 * (i + (target - lo) / (hi - lo)), 0, 100)
    }
  }
  return 50
}

/** Seconds of the clip louder than a silence floor relative to its loudest frames: the time actually spoken. */
function voicedSeconds(pcm: Int16Array, rate: number): number {
  const hop = Math.round(rate * 0.02)
  const energies: number[] = []
  for (let start = 0; start + hop <= pcm.length; start += hop) {
    let e = 0
    for (let i = start; i < start + hop; i++) e += ((pcm[i] as number) / 32768) ** 2
    energies.push(e / hop)
  }
  const loud = [...energies].sort((a, b) => b - a)[Math.floor(energies.length * 0.1)] ?? 0
  return (energies.filter((e) => e > loud * 0.01).length * hop) / rate
}

/** The service's ten languages in eSpeak NG (as the built-in voices use them); anything else speaks US English. */
const ESPEAK_LANGUAGES: Record<string, string> = {
  ar: 'ar',
  de: 'de',
  en: 'en-us',
  es: 'es',
  fr: 'fr',
  hi: 'hi',
  it: 'it',
  pt: 'pt',
  ru: 'ru',
  zh: 'cmn',
}

export function espeakLanguage(tag: string): string {
  const lower = tag.toLowerCase()
  if (lower === 'en-gb') return 'en-gb-x-rp'
  return ESPEAK_LANGUAGES[lower.split('-')[0] as string] ?? 'en-us'
}

const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x))
