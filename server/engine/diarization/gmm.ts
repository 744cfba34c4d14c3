/**
 * Diagonal-covariance Gaussian mixtures over rows of a frame matrix (`rows × dimension`, row-major), fitted by EM from
 * a deterministic k-means++ start: the speaker models of the GMM–HMM clustering (hmm-cluster.ts).
 */

export interface DiagonalGmm {
  components: number
  dimension: number
  weights: Float64Array
  /** `components × dimension`. */
  means: Float64Array
  variances: Float64Array
}

/** Frames of a recording as a row-major matrix. */
export interface FrameMatrix {
  rows: number
  dimension: number
  data: Float64Array
}

const LOG_2PI = Math.log(2 * Math.PI)

/** A fixed-seed generator: the same recording always gives the same mixture. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 4294967296
  }
}

/** Per-dimension variance of the rows, the scale of the variance floor. */
export function columnVariances(frames: FrameMatrix, rows: ArrayLike<number>): Float64Array {
  const { dimension, data } = frames
  const mean = new Float64Array(dimension)
  const square = new Float64Array(dimension)
  for (let r = 0; r < rows.length; r++) {
    const offset = (rows[r] as number) * dimension
    for (let j = 0; j < dimension; j++) {
      const x = data[offset + j] as number
      mean[j] = (mean[j] as number) + x
      square[j] = (square[j] as number) + x * x
    }
  }
  const n = Math.max(1, rows.length)
  return Float64Array.from(mean, (m, j) => Math.max(1e-6, (square[j] as number) / n - (m / n) ** 2))
}

/** EM from k-means++ seeds over `rows` (all rows when omitted); variances are floored at `floor` × their spread. */
export function fitGmm(
  frames: FrameMatrix,
  opts: { components: number; iterations: number; rows?: ArrayLike<number>; floor?: number; seed?: number },
): DiagonalGmm {
  const rows = opts.rows ?? Int32Array.from({ length: frames.rows }, (_, i) => i)
  const { dimension, data } = frames
  const components = Math.max(1, Math.min(opts.components, rows.length))
  const spread = columnVariances(frames, rows)
  const floor = spread.map((v) => v * (opts.floor ?? 0.01))
  const next = random(opts.seed ?? 1)
  const means = new Float64Array(components * dimension)
  const distance = new Float64Array(rows.length).fill(Number.POSITIVE_INFINITY)
  let pick = Math.floor(next() * rows.length)
  for (let c = 0; c < components; c++) {
    means.set(
      data.subarray((rows[pick] as number) * dimension, (rows[pick] as number) * dimension + dimension),
      c * dimension,
    )
    let total = 0
    for (let r = 0; r < rows.length; r++) {
      const offset = (rows[r] as number) * dimension
      let d = 0
      for (let j = 0; j < dimension; j++)
        d +=
          ((data[offset + j] as number) - (means[c * dimension + j] as number)) ** 2 / (spread[j] as number)
      if (d < (distance[r] as number)) distance[r] = d
      total += distance[r] as number
    }
    let target = next() * total
    for (pick = 0; pick < rows.length - 1; pick++) {
      target -= distance[pick] as number
      if (target <= 0) break
    }
  }
  const gmm: DiagonalGmm = {
    components,
    dimension,
    weights: new Float64Array(components).fill(1 / components),
    means,
    variances: new Float64Array(components * dimension),
  }
  for (let c = 0; c < components; c++) gmm.variances.set(spread, c * dimension)
  return refineGmm(gmm, frames, rows, opts.iterations, floor)
}

/** EM iterations from `start` over `rows`; components left without frames keep their previous parameters. */
export function refineGmm(
  start: DiagonalGmm,
  frames: FrameMatrix,
  rows: ArrayLike<number>,
  iterations: number,
  floor: Float64Array,
): DiagonalGmm {
  const { components, dimension } = start
  const gmm: DiagonalGmm = {
    components,
    dimension,
    weights: Float64Array.from(start.weights),
    means: Float64Array.from(start.means),
    variances: Float64Array.from(start.variances),
  }
  const { data } = frames
  const posterior = new Float64Array(components)
  for (let iteration = 0; iteration < iterations; iteration++) {
    const model = prepare(gmm)
    const count = new Float64Array(components)
    const first = new Float64Array(components * dimension)
    const second = new Float64Array(components * dimension)
    for (let r = 0; r < rows.length; r++) {
      const row = rows[r] as number
      posteriors(model, data, row, posterior)
      const offset = row * dimension
      for (let c = 0; c < components; c++) {
        const p = posterior[c] as number
        if (p < 1e-5) continue
        count[c] = (count[c] as number) + p
        for (let j = 0; j < dimension; j++) {
          const x = data[offset + j] as number
          first[c * dimension + j] = (first[c * dimension + j] as number) + p * x
          second[c * dimension + j] = (second[c * dimension + j] as number) + p * x * x
        }
      }
    }
    for (let c = 0; c < components; c++) {
      const n = count[c] as number
      if (n < 1) continue
      gmm.weights[c] = n / rows.length
      for (let j = 0; j < dimension; j++) {
        const mean = (first[c * dimension + j] as number) / n
        gmm.means[c * dimension + j] = mean
        gmm.variances[c * dimension + j] = Math.max(
          floor[j] as number,
          (second[c * dimension + j] as number) / n - mean * mean,
        )
      }
    }
    let total = 0
    for (const w of gmm.weights) total += w
    for (let c = 0; c < components; c++) gmm.weights[c] = (gmm.weights[c] as number) / total
  }
  return gmm
}

/** A mixture ready for scoring: the per-component constants and precisions computed once. */
export interface PreparedGmm {
  gmm: DiagonalGmm
  /** log weight − ½ (d log 2π + Σ log variance), per component. */
  constant: Float64Array
  precision: Float64Array
}

export function prepare(gmm: DiagonalGmm): PreparedGmm {
  const { components, dimension, weights, variances } = gmm
  const constant = new Float64Array(components)
  for (let c = 0; c < components; c++) {
    let logDet = 0
    for (let j = 0; j < dimension; j++) logDet += Math.log(variances[c * dimension + j] as number)
    constant[c] = Math.log(weights[c] as number) - 0.5 * (dimension * LOG_2PI + logDet)
  }
  return { gmm, constant, precision: variances.map((v) => 1 / v) }
}

/** Log-likelihood of one row; fills `out` (length = components) with the posteriors when given. */
export function posteriors(model: PreparedGmm, data: Float64Array, row: number, out?: Float64Array): number {
  const { components, dimension, means } = model.gmm
  const { constant, precision } = model
  const terms = out ?? new Float64Array(components)
  const offset = row * dimension
  let best = Number.NEGATIVE_INFINITY
  for (let c = 0; c < components; c++) {
    let sum = 0
    const base = c * dimension
    for (let j = 0; j < dimension; j++) {
      const d = (data[offset + j] as number) - (means[base + j] as number)
      sum += d * d * (precision[base + j] as number)
    }
    const term = (constant[c] as number) - 0.5 * sum
    terms[c] = term
    if (term > best) best = term
  }
  let total = 0
  for (let c = 0; c < components; c++) {
    const e = Math.exp((terms[c] as number) - best)
    terms[c] = e
    total += e
  }
  for (let c = 0; c < components; c++) terms[c] = (terms[c] as number) / total
  return best + Math.log(total)
}
