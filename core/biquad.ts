/**
 * Biquad filters (the RBJ Audio EQ Cookbook's forms), shared by the browser's microphone capture and the engine's
 * smoothing and loudness measure. Coefficients are normalized by a0:
 * y[n] = b0·x[n] + b1·x[n−1] + b2·x[n−2] − a1·y[n−1] − a2·y[n−2].
 */

export interface BiquadCoefficients {
  b0: number
  b1: number
  b2: number
  a1: number
  a2: number
}

/** Low-pass at `cutoff` Hz (Q √½ is Butterworth; cascade sections with their own Q for higher orders). */
export function lowPass(rate: number, cutoff: number, q = Math.SQRT1_2): BiquadCoefficients {
  const w = (2 * Math.PI * cutoff) / rate
  const alpha = Math.sin(w) / (2 * q)
  const cos = Math.cos(w)
  const a0 = 1 + alpha
  return {
    b0: (1 - cos) / 2 / a0,
    b1: (1 - cos) / a0,
    b2: (1 - cos) / 2 / a0,
    a1: (-2 * cos) / a0,
    a2: (1 - alpha) / a0,
  }
}

/** High-pass at `cutoff` Hz. */
export function highPass(rate: number, cutoff: number, q = Math.SQRT1_2): BiquadCoefficients {
  const w = (2 * Math.PI * cutoff) / rate
  const alpha = Math.sin(w) / (2 * q)
  const cos = Math.cos(w)
  const a0 = 1 + alpha
  return {
    b0: (1 + cos) / 2 / a0,
    b1: -(1 + cos) / a0,
    b2: (1 + cos) / 2 / a0,
    a1: (-2 * cos) / a0,
    a2: (1 - alpha) / a0,
  }
}

/** High shelf at `frequency` Hz raising what is above it by `gainDb`. */
export function highShelf(
  rate: number,
  frequency: number,
  gainDb: number,
  q = Math.SQRT1_2,
): BiquadCoefficients {
  const A = 10 ** (gainDb / 40)
  const w = (2 * Math.PI * frequency) / rate
  const alpha = Math.sin(w) / (2 * q)
  const cos = Math.cos(w)
  const sq = 2 * Math.sqrt(A) * alpha
  const a0 = A + 1 - (A - 1) * cos + sq
  return {
    b0: (A * (A + 1 + (A - 1) * cos + sq)) / a0,
    b1: (-2 * A * (A - 1 + (A + 1) * cos)) / a0,
    b2: (A * (A + 1 + (A - 1) * cos - sq)) / a0,
    a1: (2 * (A - 1 - (A + 1) * cos)) / a0,
    a2: (A + 1 - (A - 1) * cos - sq) / a0,
  }
}

/** One biquad section in direct form I, keeping its state from sample to sample (and so from block to block). */
export class Biquad {
  private readonly b0: number
  private readonly b1: number
  private readonly b2: number
  private readonly a1: number
  private readonly a2: number
  private x1 = 0
  private x2 = 0
  private y1 = 0
  private y2 = 0

  constructor({ b0, b1, b2, a1, a2 }: BiquadCoefficients) {
    this.b0 = b0
    this.b1 = b1
    this.b2 = b2
    this.a1 = a1
    this.a2 = a2
  }

  /** The next output for input `x`. */
  step(x: number): number {
    const y = this.b0 * x + this.b1 * this.x1 + this.b2 * this.x2 - this.a1 * this.y1 - this.a2 * this.y2
    this.x2 = this.x1
    this.x1 = x
    this.y2 = this.y1
    this.y1 = y
    return y
  }
}

/** A whole signal through one section from rest: a new array. */
export function filtered(input: Float64Array, coefficients: BiquadCoefficients): Float64Array {
  const section = new Biquad(coefficients)
  const out = new Float64Array(input.length)
  for (let i = 0; i < input.length; i++) out[i] = section.step(input[i] ?? 0)
  return out
}
