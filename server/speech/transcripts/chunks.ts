/**
 * Where to cut a long recording for recognition: at the quietest 30 ms frame near each target length, so that cuts
 * fall in pauses rather than inside words. Recognizing a file chunk by chunk lets text stream out as it is recognized
 * (`stream=true`) and keeps the recognizer's input small; the chunks are contiguous and cover the whole audio.
 */

export interface ChunkOptions {
  /** Preferred chunk length in seconds. */
  targetSeconds: number
  /** Cuts are searched from `targetSeconds − searchSeconds` to `targetSeconds + searchSeconds` into the chunk. */
  searchSeconds: number
}

export const DEFAULT_CHUNKS: ChunkOptions = { targetSeconds: 20, searchSeconds: 6 }

/** Contiguous `[start, end)` sample ranges covering `samples`. */
export function chunkAtPauses(
  samples: Float32Array,
  rate: number,
  opts: ChunkOptions = DEFAULT_CHUNKS,
): Array<{ start: number; end: number }> {
  const frame = Math.max(1, Math.round(rate * 0.03))
  const target = Math.round(opts.targetSeconds * rate)
  const search = Math.round(Math.min(opts.searchSeconds, opts.targetSeconds / 2) * rate)
  const chunks: Array<{ start: number; end: number }> = []
  let start = 0
  while (samples.length - start > target + search) {
    let bestAt = start + target
    let bestEnergy = Number.POSITIVE_INFINITY
    for (let at = start + target - search; at + frame <= start + target + search; at += frame) {
      let energy = 0
      for (let i = at; i < at + frame; i++) {
        const v = samples[i] as number
        energy += v * v
      }
      if (energy < bestEnergy) {
        bestEnergy = energy
        bestAt = at + (frame >> 1)
      }
    }
    chunks.push({ start, end: bestAt })
    start = bestAt
  }
  if (samples.length > start || chunks.length === 0) chunks.push({ start, end: samples.length })
  return chunks
}
