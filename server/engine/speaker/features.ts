/**
 * Short-time features of 16 kHz speech shared by the speaker embedder, the recording screen, the online tracker and
 * the diarizer: 25 ms Hamming frames every 10 ms, a 512-point FFT (fft.js), a 40-band mel filterbank and MFCCs.
 */
import FFT from 'fft.js'

export const FEATURE_SAMPLE_RATE = 16_000
export const FRAME_LENGTH = 400
export const FRAME_HOP = 160
export const FRAMES_PER_SECOND = FEATURE_SAMPLE_RATE / FRAME_HOP
const FFT_SIZE = 512
export const SPECTRUM_BINS = FFT_SIZE / 2 + 1
const MEL_BANDS = 40
const MEL_LOW_HZ = 60
const MEL_HIGH_HZ = 7800
/** Cepstra 1…19; c0 is loudness, which says more about the microphone distance than about the speaker. */
export const CEPSTRA = 19
const PRE_EMPHASIS = 0.97
/** Keeps log energies finite on digital silence: about −100 dB below a full-scale sine. */
const POWER_FLOOR = 1e-10

export interface FrameFeatures {
  /** Number of frames. */
  count: number
  /** Power spectrum per frame, `count × SPECTRUM_BINS`, for the screen's music and pitch measures. */
  power: Float32Array
  /** Natural-log mel energies, `count × MEL_BANDS`. */
  logMel: Float32Array
  /** MFCCs c1…c19, `count × CEPSTRA`. */
  mfcc: Float32Array
  /** Frame energy in dB (full-scale sine ≈ −3 dB), before pre-emphasis. */
  energyDb: Float32Array
}

const hamming = Float64Array.from(
  { length: FRAME_LENGTH },
  (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (FRAME_LENGTH - 1)),
)
const fft = new FFT(FFT_SIZE)
const melFilters = buildMelFilters()
const dctMatrix = buildDct()

/** Frame `start` of `audio` at 10 ms steps; frames that would run past the end are not produced. */
export function frameCount(samples: number): number {
  return samples < FRAME_LENGTH ? 0 : 1 + Math.floor((samples - FRAME_LENGTH) / FRAME_HOP)
}

export function allocateFeatures(count: number): FrameFeatures {
  return {
    count,
    power: new Float32Array(count * SPECTRUM_BINS),
    logMel: new Float32Array(count * MEL_BANDS),
    mfcc: new Float32Array(count * CEPSTRA),
    energyDb: new Float32Array(count),
  }
}

/** Fills frames `[from, to)` of `features`, so that long audio can be analysed a block at a time. */
export function computeFeatures(
  audio: Float32Array,
  features: FrameFeatures,
  from: number,
  to: number,
): void {
  const { power, logMel, mfcc, energyDb } = features
  const frame = new Float64Array(FFT_SIZE)
  const spectrum = fft.createComplexArray() as number[]
  const bands = new Float64Array(MEL_BANDS)

  for (let f = from; f < to; f++) {
    const start = f * FRAME_HOP
    let energy = 0
    let previous = start > 0 ? (audio[start - 1] as number) : 0
    for (let i = 0; i < FRAME_LENGTH; i++) {
      const x = audio[start + i] as number
      energy += x * x
      frame[i] = (x - PRE_EMPHASIS * previous) * (hamming[i] as number)
      previous = x
    }
    energyDb[f] = 10 * Math.log10(energy / FRAME_LENGTH + POWER_FLOOR)
    fft.realTransform(spectrum, frame)

    const powerRow = f * SPECTRUM_BINS
    for (let k = 0; k < SPECTRUM_BINS; k++) {
      const re = spectrum[2 * k] as number
      const im = spectrum[2 * k + 1] as number
      power[powerRow + k] = re * re + im * im
    }
    for (let b = 0; b < MEL_BANDS; b++) {
      const { first, weights } = melFilters[b] as MelFilter
      let sum = 0
      for (let k = 0; k < weights.length; k++)
        sum += (weights[k] as number) * (power[powerRow + first + k] as number)
      const value = Math.log(sum + POWER_FLOOR)
      bands[b] = value
      logMel[f * MEL_BANDS + b] = value
    }
    for (let c = 0; c < CEPSTRA; c++) {
      let sum = 0
      const row = c * MEL_BANDS
      for (let b = 0; b < MEL_BANDS; b++) sum += (dctMatrix[row + b] as number) * (bands[b] as number)
      mfcc[f * CEPSTRA + c] = sum
    }
  }
}

/** Frequency in Hz of spectrum bin `k`. */
export function binHz(k: number): number {
  return (k * FEATURE_SAMPLE_RATE) / FFT_SIZE
}

interface MelFilter {
  first: number
  weights: Float64Array
}

function hzToMel(hz: number): number {
  return 2595 * Math.log10(1 + hz / 700)
}

function melToHz(mel: number): number {
  return 700 * (10 ** (mel / 2595) - 1)
}

/** Triangular filters evenly spaced on the mel scale (HTK), each stored as its non-zero run of bins. */
function buildMelFilters(): MelFilter[] {
  const low = hzToMel(MEL_LOW_HZ)
  const high = hzToMel(MEL_HIGH_HZ)
  const edges = Array.from({ length: MEL_BANDS + 2 }, (_, i) =>
    melToHz(low + ((high - low) * i) / (MEL_BANDS + 1)),
  )
  return Array.from({ length: MEL_BANDS }, (_, b) => {
    const left = edges[b] as number
    const centre = edges[b + 1] as number
    const right = edges[b + 2] as number
    const first = Math.ceil((left * FFT_SIZE) / FEATURE_SAMPLE_RATE)
    const last = Math.floor((right * FFT_SIZE) / FEATURE_SAMPLE_RATE)
    const weights = new Float64Array(Math.max(0, last - first + 1))
    for (let k = first; k <= last; k++) {
      const hz = binHz(k)
      weights[k - first] = Math.max(
        0,
        hz <= centre ? (hz - left) / (centre - left) : (right - hz) / (right - centre),
      )
    }
    return { first, weights }
  })
}

/** Orthonormal DCT-II rows 1…CEPSTRA over the mel bands. */
function buildDct(): Float64Array {
  const matrix = new Float64Array(CEPSTRA * MEL_BANDS)
  const scale = Math.sqrt(2 / MEL_BANDS)
  for (let c = 0; c < CEPSTRA; c++) {
    for (let b = 0; b < MEL_BANDS; b++) {
      matrix[c * MEL_BANDS + b] = scale * Math.cos((Math.PI * (c + 1) * (b + 0.5)) / MEL_BANDS)
    }
  }
  return matrix
}
