/**
 * The non-speech sounds of contract 2.7, synthesized with a source-filter model (dsp.ts) rather than recorded: each is a
 * pattern of voiced and breathy segments through vowel or nasal formants, at a pitch that follows the voice.
 */
import { SOUND_TAGS } from '../../../schema/markup.ts'
import { type Formant, fade, glide, Tract, type TractState } from './dsp.ts'
import type { SoundTag } from './tags.ts'

export interface SoundOptions {
  /** The speaking voice's F0; voiced sounds are pitched relative to it. */
  pitchHz: number
  sampleRate: 24000
}

type Formants = TractState['formants']

/** Formants of an adult male tract; `scaled` shortens the tract for higher voices. */
const VOWEL_A: Formants = [
  { hz: 800, bw: 80 },
  { hz: 1200, bw: 90 },
  { hz: 2500, bw: 150 },
  { hz: 3500, bw: 200 },
]
/** The "i" of "hih", its F1 raised and widened so that no single harmonic of a giggle's high F0 dominates it. */
const VOWEL_I: Formants = [
  { hz: 450, bw: 160 },
  { hz: 2000, bw: 120 },
  { hz: 2700, bw: 180 },
  { hz: 3600, bw: 250 },
]
const SCHWA: Formants = [
  { hz: 580, bw: 90 },
  { hz: 1150, bw: 100 },
  { hz: 2450, bw: 150 },
  { hz: 3400, bw: 200 },
]
const VOWEL_U: Formants = [
  { hz: 400, bw: 80 },
  { hz: 900, bw: 100 },
  { hz: 2300, bw: 160 },
  { hz: 3300, bw: 220 },
]
/** Closed lips: a low murmur with damped upper formants; the anti-resonance near 1 kHz makes it nasal. */
const NASAL_M: Formants = [
  { hz: 280, bw: 140 },
  { hz: 1100, bw: 250 },
  { hz: 2300, bw: 350 },
  { hz: 3300, bw: 450 },
]
const NASAL_ZERO = { hz: 1000, bw: 120 }
/** Open, turbulent breath: wide bandwidths make noise sound like air rather than a whistle. */
const BREATH: Formants = [
  { hz: 650, bw: 250 },
  { hz: 1300, bw: 300 },
  { hz: 2600, bw: 400 },
  { hz: 3700, bw: 500 },
]
const THROAT: Formants = [
  { hz: 180, bw: 60 },
  { hz: 420, bw: 120 },
  { hz: 950, bw: 250 },
  { hz: 2000, bw: 500 },
]
const CLICK: Formants = [
  { hz: 1800, bw: 300 },
  { hz: 2700, bw: 300 },
  { hz: 3600, bw: 400 },
  { hz: 4500, bw: 500 },
]

function scaled([f1, f2, f3, f4]: Formants, k: number): Formants {
  const scale = (f: Formant): Formant => ({ hz: f.hz * k, bw: f.bw * k })
  return [scale(f1), scale(f2), scale(f3), scale(f4)]
}

/** What a sound recipe gets: a fresh tract, the voice's pitch, and its formant scale. */
interface Voice {
  tract: Tract
  pitch: number
  /** Vowel formants for this voice (a higher voice implies a shorter tract). */
  vowel: (formants: Formants) => Formants
}

/** Each recipe returns its segments in order and the peak level it is normalized to (sighs are quieter than laughs). */
type Recipe = (v: Voice) => { segments: Float32Array[]; level: number }

/** "Ha ha ha": breathy onsets, open vowels, pitch and loudness falling from burst to burst. */
const laugh: Recipe = ({ tract, pitch, vowel }) => {
  const segments: Float32Array[] = []
  for (let i = 0; i < 5; i++) {
    const f0 = pitch * 1.45 * 0.93 ** i
    const gain = 0.9 ** i
    segments.push(
      // The "h" eases into the vowel's own breathiness, so the two segments join without a step.
      tract.render(0.05, (u) => ({
        f0,
        voice: 0,
        breath: 0.5 * gain * fade(u, 0.4, 0) * (1 - 0.6 * u),
        formants: vowel(BREATH),
      })),
      tract.render(0.11, (u) => ({
        f0: f0 * (1 - 0.1 * u),
        voice: gain * fade(u, 0.15, 0.35),
        breath: 0.2 * gain * fade(u, 0, 0.35),
        formants: vowel(VOWEL_A),
      })),
      tract.rest(0.08),
    )
  }
  return { segments, level: 0.55 }
}

/** "Hee hee": shorter, quicker and higher bursts on a closed front vowel. */
const giggle: Recipe = ({ tract, pitch, vowel }) => {
  const segments: Float32Array[] = []
  for (let i = 0; i < 7; i++) {
    const f0 = pitch * 1.8 * (1 - 0.025 * i)
    const gain = 0.92 ** i
    segments.push(
      tract.render(0.015, (u) => ({
        f0,
        voice: 0,
        breath: 0.4 * gain * fade(u, 0.5, 0),
        formants: vowel(BREATH),
      })),
      tract.render(0.055, (u) => ({
        f0: f0 * (1 + 0.08 * Math.sin(Math.PI * u)),
        voice: gain * fade(u, 0.2, 0.4),
        breath: 0.4 * gain * fade(u, 0, 0.4),
        formants: vowel(VOWEL_I),
      })),
      tract.rest(0.045),
    )
  }
  return { segments, level: 0.45 }
}

/** A long breathy exhale whose formants and faint voicing sink as the breath runs out. */
const sigh: Recipe = ({ tract, pitch, vowel }) => ({
  segments: [
    tract.render(0.85, (u) => {
      const envelope = fade(u, 0.15, 0.6)
      return {
        f0: pitch * (0.95 - 0.25 * u),
        voice: 0.06 * envelope,
        breath: envelope,
        formants: vowel(glide(BREATH, scaled(BREATH, 0.75), u)),
      }
    }),
  ],
  level: 0.3,
})

/** A sharp inhale: unvoiced, sudden onset, formants sweeping upward, cut off short. */
const gasp: Recipe = ({ tract, pitch, vowel }) => ({
  segments: [
    tract.render(0.32, (u) => ({
      f0: pitch,
      voice: 0,
      breath: fade(u, 0.08, 0.12) * (0.7 + 0.3 * u),
      formants: vowel(glide(scaled(BREATH, 0.8), scaled(BREATH, 1.35), u)),
    })),
  ],
  level: 0.35,
})

/** Irregular, shaky voiced bursts with a 7 Hz tremolo, each followed by a catch of breath. */
const sob: Recipe = ({ tract, pitch, vowel }) => {
  const bursts = [0.2, 0.12, 0.26, 0.15]
  const catches = [0.1, 0.07, 0.16, 0]
  const segments: Float32Array[] = []
  bursts.forEach((seconds, i) => {
    const f0 = pitch * 1.3 * (1 - 0.05 * i)
    segments.push(
      tract.render(seconds, (u, t) => {
        const tremolo = Math.sin(2 * Math.PI * 7 * t)
        return {
          f0: f0 * (1 + 0.06 * tremolo) * (1 - 0.12 * u),
          voice: fade(u, 0.15, 0.3) * (0.65 + 0.35 * tremolo),
          breath: 0.45 * fade(u, 0.15, 0.3),
          formants: vowel(glide(SCHWA, VOWEL_U, u)),
        }
      }),
      tract.render(catches[i] ?? 0, (u) => ({
        f0,
        voice: 0,
        breath: 0.35 * fade(u, 0.3, 0.3),
        formants: vowel(BREATH),
      })),
    )
  })
  return { segments, level: 0.45 }
}

/** "Hmph": a short nasal murmur and a puff of breath through the nose. */
const scoff: Recipe = ({ tract, pitch, vowel }) => ({
  segments: [
    tract.render(0.1, (u) => ({
      f0: pitch * (1.05 - 0.1 * u),
      voice: fade(u, 0.3, 0),
      breath: 0.1,
      formants: vowel(NASAL_M),
      nasalZero: NASAL_ZERO,
    })),
    tract.render(0.15, (u) => ({
      f0: pitch * 0.95,
      voice: 0.3 * (1 - u) ** 4,
      breath: 0.9 * (1 - u) ** 2,
      formants: vowel(glide(NASAL_M, BREATH, 0.6)),
      nasalZero: NASAL_ZERO,
    })),
  ],
  level: 0.4,
})

/** A low, rough, rumbling voice: half the speaking pitch, irregular pulses, and a 30 Hz flutter of loudness. */
const growl: Recipe = ({ tract, pitch, vowel }) => ({
  segments: [
    tract.render(0.9, (u, t) => ({
      f0: Math.max(55, pitch * 0.5) * (1 - 0.1 * u),
      voice: fade(u, 0.15, 0.25) * (0.55 + 0.45 * Math.sin(2 * Math.PI * 30 * t)),
      breath: 0.25 * fade(u, 0.15, 0.25),
      formants: vowel(scaled(VOWEL_U, 1.2)),
    })),
  ],
  level: 0.55,
})

/** "Um": a short central vowel closing into a hummed "m", pitch easing down. */
const um: Recipe = ({ tract, pitch, vowel }) => ({
  segments: [
    tract.render(0.55, (u) => {
      const closing = Math.min(1, Math.max(0, (u - 0.25) / 0.12))
      return {
        f0: pitch * (1 - 0.12 * u),
        voice: fade(u, 0.08, 0.25),
        breath: 0.03,
        formants: vowel(glide(SCHWA, NASAL_M, closing)),
        nasalZero: { hz: 4000 - 3000 * closing, bw: 400 - 280 * closing },
      }
    }),
  ],
  level: 0.4,
})

/** A swallow: a dull low thump in the throat, then the click of the tongue releasing. */
const gulp: Recipe = ({ tract, pitch }) => {
  const thump = (seconds: number, gain: number) =>
    tract.render(seconds, (u) => ({
      f0: pitch * 0.6,
      voice: gain * fade(u, 0.05, 0) * (1 - u) ** 2,
      breath: gain * fade(u, 0.05, 0) * (1 - u) ** 4,
      formants: THROAT,
    }))
  return {
    segments: [
      tract.rest(0.03),
      thump(0.15, 1),
      tract.rest(0.05),
      tract.render(0.025, (u) => ({
        f0: pitch,
        voice: 0,
        breath: 0.25 * fade(u, 0.1, 0) * (1 - u) ** 6,
        formants: CLICK,
      })),
      thump(0.08, 0.4),
    ],
    level: 0.4,
  }
}

const pause: Recipe = ({ tract }) => ({ segments: [tract.rest(0.6)], level: 0 })

const RECIPES: Record<SoundTag, Recipe> = { laugh, giggle, sigh, gasp, sob, scoff, growl, um, gulp, pause }

/** Joins the segments, brings the loudest sample to `level` of full scale and ends on zero to avoid clicks. */
function finish(segments: Float32Array[], level: number, sampleRate: number): Int16Array {
  const out = new Int16Array(segments.reduce((n, s) => n + s.length, 0))
  let peak = 0
  for (const s of segments) for (const x of s) peak = Math.max(peak, Math.abs(x))
  const gain = peak > 0 ? (level * 32767) / peak : 0
  const edge = Math.round(0.005 * sampleRate)
  let i = 0
  for (const s of segments) {
    for (const x of s) {
      const taper = Math.min(1, i / edge, (out.length - 1 - i) / edge)
      out[i++] = Math.round(x * gain * taper)
    }
  }
  return out
}

export function synthesizeSound(sound: SoundTag, opts: SoundOptions): Int16Array {
  const { pitchHz: pitch, sampleRate: rate } = opts
  // A fixed seed per tag: the same sound every time, but unrelated noise from one tag to the next.
  const seed = SOUND_TAGS.indexOf(sound) + 1
  const rough = sound === 'growl'
  const tract = new Tract({
    sampleRate: rate,
    seed,
    jitter: rough ? 0.06 : 0.015,
    shimmer: rough ? 0.35 : 0.04,
  })
  // Formants rise by up to 15% from a deep male voice (~110 Hz) to a high female one (~210 Hz).
  const k = 1 + 0.15 * Math.min(1, Math.max(0, (pitch - 110) / 100))
  const { segments, level } = RECIPES[sound]({ tract, pitch, vowel: (f) => scaled(f, k) })
  return finish(segments, level, rate)
}
