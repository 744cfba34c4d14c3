/**
 * Source-filter synthesis for the non-speech sounds, after Klatt (1980): a glottal pulse train and aspiration noise
 * excite a cascade of formant resonators, with an optional anti-resonance for nasal sounds.
 */

/**
 * mulberry32: a small seeded generator of numbers in [0, 1), the same on every machine — the project's one PRNG, for
 * sounds that must render the same every time, reproducible takes, and tests that generate cases from a seed.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** Deterministic white noise in [-1, 1]: a sound renders the same every time, which tests rely on. */
export function whiteNoise(seed: number): () => number {
  const random = mulberry32(seed)
  return () => random() * 2 - 1
}

export interface Formant {
  hz: number
  /** Bandwidth in Hz: wide for breathy or damped sounds, narrow for ringing ones. */
  bw: number
}

/**
 * A two-pole resonance with unity gain at 0 Hz (Klatt's coefficients), as a formant (`resonate`) or as the spectral
 * zero that the nasal cavity adds to a hummed "m" (`antiResonate`, the inverse filter).
 */
class Resonance {
  private a = 1
  private b = 0
  private c = 0
  private y1 = 0
  private y2 = 0

  tune(f: Formant, sampleRate: number) {
    this.c = -Math.exp((-2 * Math.PI * f.bw) / sampleRate)
    this.b = 2 * Math.exp((-Math.PI * f.bw) / sampleRate) * Math.cos((2 * Math.PI * f.hz) / sampleRate)
    this.a = 1 - this.b - this.c
  }

  resonate(x: number): number {
    const y = this.a * x + this.b * this.y1 + this.c * this.y2
    this.y2 = this.y1
    this.y1 = y
    return y
  }

  /** Here y1 and y2 hold past inputs rather than outputs. */
  antiResonate(x: number): number {
    const y = (x - this.b * this.y1 - this.c * this.y2) / this.a
    this.y2 = this.y1
    this.y1 = x
    return y
  }
}

/** The state of the vocal tract at one instant; sounds describe it as a function of their progress. */
export interface TractState {
  /** Fundamental frequency of the glottal pulses in Hz. */
  f0: number
  /** Amplitudes of the voiced source and of the aspiration noise. */
  voice: number
  breath: number
  /** Four formants, lowest first. */
  formants: readonly [Formant, Formant, Formant, Formant]
  /** The anti-resonance of a nasal sound. */
  nasalZero?: Formant
}

export interface TractOptions {
  sampleRate: number
  seed: number
  /** Random period and amplitude variation per glottal cycle (0.01 is a healthy voice, 0.1 a rough one). */
  jitter: number
  shimmer: number
}

/**
 * One vocal tract that keeps its state between calls, so that consecutive segments of a sound join without clicks.
 * The glottal source is the KLGLOTT88 flow derivative: a smooth opening and an abrupt closure, rich in harmonics.
 */
export class Tract {
  private readonly noise: () => number
  private readonly formants = [new Resonance(), new Resonance(), new Resonance(), new Resonance()]
  private readonly zero = new Resonance()
  private phase = 1
  private periodHz = 0
  private pulseGain = 1

  constructor(private readonly opts: TractOptions) {
    this.noise = whiteNoise(opts.seed)
  }

  /**
   * `seconds` of sound; `at(u, t)` gives the tract's state at progress u in [0, 1) and time t in seconds. The state
   * is read once a millisecond, fast enough for the quickest tremolo and far cheaper than per sample.
   */
  render(seconds: number, at: (u: number, t: number) => TractState): Float32Array {
    const { sampleRate } = this.opts
    const out = new Float32Array(Math.round(seconds * sampleRate))
    const controlPeriod = Math.round(sampleRate / 1000)
    let state: TractState | undefined
    for (let i = 0; i < out.length; i++) {
      if (i % controlPeriod === 0 || !state) {
        state = at(i / out.length, i / sampleRate)
        for (const [k, f] of state.formants.entries()) this.formants[k]?.tune(f, sampleRate)
        if (state.nasalZero) this.zero.tune(state.nasalZero, sampleRate)
      }
      let x = state.voice * this.glottal(state.f0) + state.breath * this.noise()
      for (const formant of this.formants) x = formant.resonate(x)
      out[i] = state.nasalZero ? this.zero.antiResonate(x) : x
    }
    return out
  }

  /** Quiet while the resonators ring out, so a sound's bursts end as softly as they began. */
  rest(seconds: number): Float32Array {
    const out = new Float32Array(Math.round(seconds * this.opts.sampleRate))
    for (let i = 0; i < out.length; i++) {
      let x = 0
      for (const formant of this.formants) x = formant.resonate(x)
      out[i] = x
    }
    return out
  }

  private glottal(f0: number): number {
    const { sampleRate, jitter, shimmer } = this.opts
    if (this.phase >= 1) {
      this.phase -= 1
      this.periodHz = f0 * (1 + jitter * this.noise())
      this.pulseGain = 1 + shimmer * this.noise()
    }
    const openQuotient = 0.5
    const x = this.phase / openQuotient
    this.phase += this.periodHz / sampleRate
    return x < 1 ? this.pulseGain * (2 * x - 3 * x * x) : 0
  }
}

/** A raised-cosine fade in over `attack` and out over `release`, both as fractions of the segment. */
export function fade(u: number, attack: number, release: number): number {
  const rise = attack > 0 ? Math.min(1, u / attack) : 1
  const fall = release > 0 ? Math.min(1, (1 - u) / release) : 1
  return (0.5 - 0.5 * Math.cos(Math.PI * rise)) * (0.5 - 0.5 * Math.cos(Math.PI * fall))
}

/** Linear interpolation between two formant sets. */
export function glide(
  from: TractState['formants'],
  to: TractState['formants'],
  u: number,
): TractState['formants'] {
  const mix = (a: Formant, b: Formant): Formant => ({
    hz: a.hz + (b.hz - a.hz) * u,
    bw: a.bw + (b.bw - a.bw) * u,
  })
  return [mix(from[0], to[0]), mix(from[1], to[1]), mix(from[2], to[2]), mix(from[3], to[3])]
}
