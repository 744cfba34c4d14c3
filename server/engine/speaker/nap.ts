/**
 * Nuisance attribute projection (Solomonoff, Campbell & Boardman 2005, "Advances in channel compensation for SVM
 * speaker recognition", ICASSP; Campbell, Sturim, Reynolds & Solomonoff 2006): the directions in which one person's
 * supervectors vary most from one recording to the next (words, loudness, distance, room) are estimated on speakers
 * the verifier is fitted on, and removed from every supervector before two are compared, so that what is left
 * varies less within a person and relatively more between people.
 */

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number)
  return sum
}

/** Makes `vectors` orthonormal in place, in order (Gram–Schmidt); drops any that are (nearly) dependent. */
export function orthonormalize(vectors: Float64Array[]): Float64Array[] {
  const out: Float64Array[] = []
  for (const v of vectors) {
    for (const u of out) {
      const p = dot(v, u)
      for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) - p * (u[i] as number)
    }
    const norm = Math.sqrt(dot(v, v))
    if (norm < 1e-9) continue
    for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm
    out.push(v)
  }
  return out
}

/**
 * The `count` leading directions of within-speaker variation: each supervector minus the mean of its speaker's
 * (speakers with one recording say nothing about it), then the top eigenvectors of their scatter, by orthogonal
 * iteration from a fixed start so a refit gives the same model.
 */
export function fitNap(supervectors: ArrayLike<number>[], speakers: string[], count: number): Float32Array[] {
  const dimension = supervectors[0]?.length ?? 0
  const bySpeaker = new Map<string, number[]>()
  speakers.forEach((s, i) => {
    bySpeaker.set(s, [...(bySpeaker.get(s) ?? []), i])
  })
  const rows: Float64Array[] = []
  for (const members of bySpeaker.values()) {
    if (members.length < 2) continue
    const mean = new Float64Array(dimension)
    for (const m of members)
      for (let d = 0; d < dimension; d++)
        mean[d] = (mean[d] as number) + ((supervectors[m] as ArrayLike<number>)[d] as number) / members.length
    for (const m of members)
      rows.push(Float64Array.from(supervectors[m] as ArrayLike<number>, (x, d) => x - (mean[d] as number)))
  }
  const k = Math.min(count, rows.length)
  if (k === 0) return []
  let basis = orthonormalize(
    Array.from({ length: k }, (_, j) =>
      Float64Array.from(rows[Math.floor((j * rows.length) / k)] as Float64Array),
    ),
  )
  for (let iteration = 0; iteration < 60; iteration++) {
    // Scatter × basis = Σ rows · (row · basis vector), without forming the dimension² scatter matrix.
    const next = basis.map(() => new Float64Array(dimension))
    for (const row of rows) {
      basis.forEach((b, j) => {
        const p = dot(row, b)
        const target = next[j] as Float64Array
        for (let d = 0; d < dimension; d++) target[d] = (target[d] as number) + p * (row[d] as number)
      })
    }
    basis = orthonormalize(next)
  }
  return basis.map((b) => Float32Array.from(b))
}

/** `vector` with its components along the (orthonormal) `directions` removed, in place. */
export function projectOut(vector: Float32Array, directions: readonly Float32Array[]): Float32Array {
  for (const u of directions) {
    const p = dot(vector, u)
    for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) - p * (u[i] as number)
  }
  return vector
}

/**
 * Directions stored compactly for speaker-nap.ts: per direction its largest magnitude and the entries quantised
 * to 8 bits against it, base64. `decodeDirections` restores them and makes them orthonormal again, so the
 * projection stays exact for the directions actually stored.
 */
export function encodeDirections(directions: readonly Float32Array[]): { scales: number[]; data: string } {
  const dimension = directions[0]?.length ?? 0
  const bytes = new Int8Array(directions.length * dimension)
  const scales = directions.map((u, j) => {
    const scale = u.reduce((m, x) => Math.max(m, Math.abs(x)), 0) / 127 || 1
    for (let d = 0; d < dimension; d++) bytes[j * dimension + d] = Math.round((u[d] as number) / scale)
    return Number(scale.toPrecision(6))
  })
  return { scales, data: Buffer.from(bytes.buffer).toString('base64') }
}

export function decodeDirections(encoded: { scales: readonly number[]; data: string }): Float32Array[] {
  const bytes = new Int8Array(Buffer.from(encoded.data, 'base64'))
  const dimension = encoded.scales.length ? bytes.length / encoded.scales.length : 0
  const vectors = encoded.scales.map((scale, j) =>
    Float64Array.from(bytes.subarray(j * dimension, (j + 1) * dimension), (q) => q * scale),
  )
  return orthonormalize(vectors).map((u) => Float32Array.from(u))
}
