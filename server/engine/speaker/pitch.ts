/**
 * Frame-wise fundamental frequency and periodicity of 16 kHz audio on the feature grid (10 ms hop), by Boersma's
 * (1993) windowed autocorrelation: the autocorrelation of a Hann-windowed 40 ms frame, divided by the window's own
 * autocorrelation so that long lags are not penalised, computed through fft.js.
 */
import FFT from 'fft.js'
import { FEATURE_SAMPLE_RATE, FRAME_HOP, FRAME_LENGTH } from './features.ts'

const PITCH_FRAME = 640
const FFT_SIZE = 1024
const MIN_HZ = 60
const MAX_HZ = 500
const MIN_LAG = Math.floor(FEATURE_SAMPLE_RATE / MAX_HZ)
/** 50 Hz would need a lag of 320; beyond about half the window the estimate gets too noisy to trust. */
const MAX_LAG = Math.min(Math.ceil(FEATURE_SAMPLE_RATE / MIN_HZ), PITCH_FRAME / 2)

export interface PitchTrack {
  /** Fundamental frequency per frame in Hz; 0 where the frame's periodicity is too weak to tell. */
  hz: Float32Array
  /** Height of the normalized autocorrelation peak, 0…1: 1 is perfectly periodic. */
  periodicity: Float32Array
}

/** How close to the highest autocorrelation peak a shorter lag must come to be taken as the period. */
const OCTAVE_TOLERANCE = 0.9

/** A frame counts as voiced (or tonal) from this periodicity on. */
export const VOICED_PERIODICITY = 0.5

const fft = new FFT(FFT_SIZE)
const hann = Float64Array.from(
  { length: PITCH_FRAME },
  (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / PITCH_FRAME),
)

/**
 * Fills frames `[from, to)` of `track`, centred like the 25 ms feature frames so that index f here describes frame f
 * there; long audio is analysed a block at a time.
 */
export function computePitch(audio: Float32Array, track: PitchTrack, from: number, to: number): void {
  const { hz, periodicity } = track
  const frame = new Float64Array(PITCH_FRAME)
  const offset = (PITCH_FRAME - FRAME_LENGTH) / 2
  for (let f = from; f < to; f++) {
    const start = f * FRAME_HOP - offset
    let mean = 0
    for (let i = 0; i < PITCH_FRAME; i++) mean += audio[start + i] ?? 0
    mean /= PITCH_FRAME
    for (let i = 0; i < PITCH_FRAME; i++) frame[i] = ((audio[start + i] ?? 0) - mean) * (hann[i] as number)
    const r = autocorrelate(frame)
    const energy = r[0] as number
    if (energy <= 1e-12) continue
    const normalized = (lag: number) => (r[lag] as number) / energy / (windowCorrelation[lag] as number)
    const isPeak = (lag: number) =>
      normalized(lag) >= normalized(lag - 1) && normalized(lag) >= normalized(lag + 1)
    let best = 0
    for (let lag = MIN_LAG; lag <= MAX_LAG; lag++) if (isPeak(lag)) best = Math.max(best, normalized(lag))
    // Every multiple of the period peaks too: the shortest lag that comes close to the best one is the period.
    for (let lag = MIN_LAG; lag <= MAX_LAG; lag++) {
      const value = normalized(lag)
      if (value < OCTAVE_TOLERANCE * best || !isPeak(lag)) continue
      periodicity[f] = Math.min(1, value)
      const period = lag + parabolicOffset(normalized(lag - 1), value, normalized(lag + 1))
      if (value >= VOICED_PERIODICITY) hz[f] = FEATURE_SAMPLE_RATE / period
      break
    }
  }
}

const padded = new Float64Array(FFT_SIZE)
const spectrum = fft.createComplexArray() as number[]
const power = fft.createComplexArray() as number[]
const correlation = fft.createComplexArray() as number[]

/** Autocorrelation of a real frame at lags 0…MAX_LAG + 1, as the transform of its power spectrum. */
function autocorrelate(frame: Float64Array): Float64Array {
  padded.fill(0)
  padded.set(frame)
  fft.realTransform(spectrum, padded)
  fft.completeSpectrum(spectrum)
  for (let k = 0; k < FFT_SIZE; k++) {
    const re = spectrum[2 * k] as number
    const im = spectrum[2 * k + 1] as number
    power[2 * k] = re * re + im * im
    power[2 * k + 1] = 0
  }
  fft.inverseTransform(correlation, power)
  return Float64Array.from({ length: MAX_LAG + 2 }, (_, lag) => correlation[2 * lag] as number)
}

const windowCorrelation = autocorrelate(hann).map((value, _, all) => value / (all[0] as number))

function parabolicOffset(left: number, centre: number, right: number): number {
  const denominator = left - 2 * centre + right
  return denominator === 0 ? 0 : (0.5 * (left - right)) / denominator
}
