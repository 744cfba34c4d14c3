import FFT from 'fft.js'

/**
 * Spectral envelopes by cepstral liftering: the log-magnitude spectrum smoothed by keeping only its low-quefrency
 * part, which holds the vocal tract's resonances (formants) and drops the harmonics of the voice's pitch. A change
 * of vocal-tract length scales the envelope along frequency; `FormantWarper` applies such a scale to a stream of
 * PCM without touching the harmonics, so pitch stays where eSpeak put it.
 */

export const FRAME = 1024
const HOP = FRAME / 4
/**
 * Quefrencies kept, in samples: 1.3 ms at 24 kHz. Pitch periods of adult voices (2.5–12 ms) lie above it, so the
 * envelope keeps the formants without the harmonic ripple.
 */
const LIFTER = 32

const fft = new FFT(FRAME)
const hann = Float64Array.from({ length: FRAME }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / FRAME))
/** Hann analysis and synthesis at a quarter-frame hop overlap-add to a constant 1.5. */
const OVERLAP_GAIN = 1.5
const FLOOR = 1e-9

/** Log-magnitude envelope (natural log) of one windowed frame's spectrum, bins 0…FRAME/2. */
export function logEnvelope(spectrum: number[]): Float64Array {
  const bins = FRAME / 2 + 1
  const logMag = fft.createComplexArray() as number[]
  for (let k = 0; k < FRAME; k++) {
    const re = spectrum[2 * k] as number
    const im = spectrum[2 * k + 1] as number
    logMag[2 * k] = Math.log(Math.sqrt(re * re + im * im) + FLOOR)
    logMag[2 * k + 1] = 0
  }
  const cepstrum = fft.createComplexArray() as number[]
  fft.inverseTransform(cepstrum, logMag)
  for (let n = LIFTER; n <= FRAME - LIFTER; n++) {
    cepstrum[2 * n] = 0
    cepstrum[2 * n + 1] = 0
  }
  const smooth = fft.createComplexArray() as number[]
  fft.transform(smooth, cepstrum)
  return Float64Array.from({ length: bins }, (_, k) => smooth[2 * k] as number)
}

/** The envelope read at frequency bin k / scale (linear interpolation): formants move up by `scale`. */
export function scaleEnvelope(envelope: Float64Array, scale: number): Float64Array {
  const last = envelope.length - 1
  return envelope.map((_, k) => {
    const x = Math.min(last, k / scale)
    const i = Math.floor(x)
    const f = x - i
    return (envelope[i] as number) * (1 - f) + (envelope[Math.min(last, i + 1)] as number) * f
  })
}

/** Spectrum of a Hann-windowed frame starting at `offset`. */
export function frameSpectrum(samples: ArrayLike<number>, offset: number): number[] {
  const frame = new Array<number>(FRAME)
  for (let i = 0; i < FRAME; i++) frame[i] = ((samples[offset + i] as number) ?? 0) * (hann[i] as number)
  const spectrum = fft.createComplexArray() as number[]
  fft.realTransform(spectrum, frame)
  fft.completeSpectrum(spectrum)
  return spectrum
}

/** Bins of a frame's spectrum that are not mirrors of others: 0 … FRAME/2. */
const BINS = FRAME / 2 + 1

/**
 * Streaming formant scaling of 24 kHz PCM16: short-time Fourier analysis, each frame's envelope replaced by the
 * scaled one (phases and harmonics kept), overlap-add. Output lags input by one frame; `flush` returns the rest.
 *
 * The same arithmetic as `logEnvelope` and `scaleEnvelope`, arranged for speed: the log spectrum is real and even, so
 * its cepstrum and the liftered envelope each take one real transform instead of two complex ones, the warp's
 * interpolation points are computed once per scale, and all buffers are typed and reused.
 */
export class FormantWarper {
  /** Input not yet analysed: `filled` samples, the first of which starts the next frame. */
  private readonly input = new Float64Array(FRAME)
  private filled = 0
  private readonly output = new Float64Array(FRAME)
  private emitted = 0
  private received = 0
  private readonly frame = new Float64Array(FRAME)
  private readonly spectrum = new Float64Array(2 * FRAME)
  private readonly logMag = new Float64Array(FRAME)
  private readonly transformed = new Float64Array(2 * FRAME)
  private readonly envelope = new Float64Array(BINS)
  private readonly result = new Float64Array(2 * FRAME)
  /** For each bin k, the envelope is read at `at[k] + frac[k]` (bin k / scale, clamped). */
  private readonly at = new Int32Array(BINS)
  private readonly frac = new Float64Array(BINS)

  constructor(scale: number) {
    for (let k = 0; k < BINS; k++) {
      const x = Math.min(BINS - 1, k / scale)
      this.at[k] = Math.floor(x)
      this.frac[k] = x - Math.floor(x)
    }
  }

  push(chunk: Int16Array): Int16Array {
    this.received += chunk.length
    const out = new Int16Array(this.hopsFor(chunk.length) * HOP)
    let written = 0
    let read = 0
    while (read < chunk.length) {
      const take = Math.min(FRAME - this.filled, chunk.length - read)
      for (let i = 0; i < take; i++) this.input[this.filled + i] = chunk[read + i] as number
      this.filled += take
      read += take
      if (this.filled === FRAME) written = this.step(out, written)
    }
    return out
  }

  flush(): Int16Array {
    const parts: Int16Array[] = []
    // Pad with silence until every received sample has left the overlap-add buffer.
    while (this.emitted < this.received) {
      this.input.fill(0, this.filled)
      this.filled = FRAME
      const hop = new Int16Array(HOP)
      this.step(hop, 0)
      parts.push(hop)
    }
    const all = new Int16Array(parts.length * HOP)
    for (const [i, p] of parts.entries()) all.set(p, i * HOP)
    return all.subarray(0, all.length - (this.emitted - this.received))
  }

  /** Hops a push of `length` samples completes. */
  private hopsFor(length: number): number {
    const total = this.filled + length
    return total < FRAME ? 0 : Math.floor((total - FRAME) / HOP) + 1
  }

  /** Processes the full input frame, writes one hop of output at `at`, and moves the input on by a hop. */
  private step(out: Int16Array, at: number): number {
    this.processFrame()
    const output = this.output
    for (let i = 0; i < HOP; i++) {
      const v = Math.round(output[i] as number)
      out[at + i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v
    }
    output.copyWithin(0, HOP)
    output.fill(0, FRAME - HOP)
    this.emitted += HOP
    this.input.copyWithin(0, HOP)
    this.filled = FRAME - HOP
    return at + HOP
  }

  private processFrame() {
    const { frame, spectrum, logMag, transformed, envelope, result, input, at, frac } = this
    for (let i = 0; i < FRAME; i++) frame[i] = (input[i] as number) * (hann[i] as number)
    fft.realTransform(spectrum, frame)
    // Log magnitude, even: bins 0…FRAME/2 and their mirror.
    for (let k = 0; k < BINS; k++) {
      const re = spectrum[2 * k] as number
      const im = spectrum[2 * k + 1] as number
      const v = Math.log(Math.sqrt(re * re + im * im) + FLOOR)
      logMag[k] = v
      if (k > 0 && k < FRAME / 2) logMag[FRAME - k] = v
    }
    // Cepstrum (real, even): c[n] = (1/FRAME) Σ L[k] cos(2πkn/FRAME); keep quefrencies below LIFTER and their mirror.
    fft.realTransform(transformed, logMag)
    frame.fill(0)
    frame[0] = (transformed[0] as number) / FRAME
    for (let n = 1; n < LIFTER; n++) {
      const c = (transformed[2 * n] as number) / FRAME
      frame[n] = c
      frame[FRAME - n] = c
    }
    // The smoothed log envelope: the liftered cepstrum transformed back (real, even).
    fft.realTransform(transformed, frame)
    for (let k = 0; k < BINS; k++) envelope[k] = transformed[2 * k] as number
    // Each bin takes the gain that moves its envelope value to the one at k / scale.
    for (let k = 0; k < BINS; k++) {
      const i = at[k] as number
      const f = frac[k] as number
      const target = (envelope[i] as number) * (1 - f) + (envelope[Math.min(BINS - 1, i + 1)] as number) * f
      const gain = Math.exp(target - (envelope[k] as number))
      const re = (spectrum[2 * k] as number) * gain
      const im = (spectrum[2 * k + 1] as number) * gain
      spectrum[2 * k] = re
      spectrum[2 * k + 1] = im
      if (k > 0 && k < FRAME / 2) {
        // Conjugate-symmetric, so the frame stays real.
        spectrum[2 * (FRAME - k)] = re
        spectrum[2 * (FRAME - k) + 1] = -im
      }
    }
    fft.inverseTransform(result, spectrum)
    const output = this.output
    for (let i = 0; i < FRAME; i++) {
      output[i] = (output[i] as number) + ((result[2 * i] as number) * (hann[i] as number)) / OVERLAP_GAIN
    }
  }
}

/** The frequency grid envelopes are compared on: where formants F1–F4 live, above the pitch region. */
const GRID_FROM_HZ = 250
const GRID_TO_HZ = 5000
const GRID_STEP_HZ = 25
/** Frames within this many dB of the loudest carry the voice; quieter ones are pauses and breath. */
const SPEECH_RANGE_DB = 25

/** Long-term average log envelope of the speech frames of `samples`, on the comparison grid. */
export function averageEnvelope(samples: ArrayLike<number>, sampleRate: number): Float64Array {
  const frames: { energy: number; envelope: Float64Array }[] = []
  for (let offset = 0; offset + FRAME <= samples.length; offset += FRAME / 2) {
    let energy = 0
    for (let i = 0; i < FRAME; i++) energy += ((samples[offset + i] as number) ?? 0) ** 2
    frames.push({ energy, envelope: logEnvelope(frameSpectrum(samples, offset)) })
  }
  const loudest = Math.max(...frames.map((f) => f.energy), FLOOR)
  const speech = frames.filter((f) => f.energy > loudest * 10 ** (-SPEECH_RANGE_DB / 10))
  const grid = new Float64Array(Math.floor((GRID_TO_HZ - GRID_FROM_HZ) / GRID_STEP_HZ) + 1)
  for (const { envelope } of speech) {
    grid.forEach((value, g) => {
      const bin = ((GRID_FROM_HZ + g * GRID_STEP_HZ) * FRAME) / sampleRate
      const i = Math.floor(bin)
      const f = bin - i
      grid[g] = value + ((envelope[i] as number) * (1 - f) + (envelope[i + 1] as number) * f) / speech.length
    })
  }
  return grid
}

/**
 * The formant scale that makes `base` (a voice's long-term envelope) most like `reference`: the scale whose warped
 * envelope correlates best with the reference after removing level and tilt, searched over 0.8–1.25 — roughly the
 * spread of adult vocal-tract lengths.
 */
export function bestFormantScale(reference: Float64Array, base: Float64Array): number {
  let best = 1
  let bestScore = Number.NEGATIVE_INFINITY
  for (let scale = 0.8; scale <= 1.2501; scale += 0.01) {
    const warped = reference.map((_, g) => {
      const x = (GRID_FROM_HZ + g * GRID_STEP_HZ) / scale
      const pos = (x - GRID_FROM_HZ) / GRID_STEP_HZ
      const i = Math.max(0, Math.min(base.length - 1, Math.floor(pos)))
      const f = Math.max(0, Math.min(1, pos - i))
      return (base[i] as number) * (1 - f) + (base[Math.min(base.length - 1, i + 1)] as number) * f
    })
    const score = detrendedCorrelation(reference, warped)
    if (score > bestScore) {
      bestScore = score
      best = scale
    }
  }
  return Math.round(best * 100) / 100
}

/** Pearson correlation of two curves after removing each one's straight-line fit (level and spectral tilt). */
function detrendedCorrelation(a: Float64Array, b: Float64Array): number {
  const ra = detrend(a)
  const rb = detrend(b)
  let ab = 0
  let aa = 0
  let bb = 0
  for (let i = 0; i < ra.length; i++) {
    ab += (ra[i] as number) * (rb[i] as number)
    aa += (ra[i] as number) ** 2
    bb += (rb[i] as number) ** 2
  }
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb)
}

function detrend(y: Float64Array): Float64Array {
  const n = y.length
  const meanX = (n - 1) / 2
  const meanY = y.reduce((s, v) => s + v, 0) / n
  let sxy = 0
  let sxx = 0
  y.forEach((v, x) => {
    sxy += (x - meanX) * (v - meanY)
    sxx += (x - meanX) ** 2
  })
  const slope = sxy / sxx
  return y.map((v, x) => v - meanY - slope * (x - meanX))
}

/** A stream of 24 kHz PCM16 chunks with its formants scaled by `scale`. */
export async function* warpFormants(
  audio: AsyncIterable<Int16Array>,
  scale: number,
): AsyncGenerator<Int16Array> {
  const warper = new FormantWarper(scale)
  for await (const chunk of audio) {
    const out = warper.push(chunk)
    if (out.length > 0) yield out
  }
  const rest = warper.flush()
  if (rest.length > 0) yield rest
}
