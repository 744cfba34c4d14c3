import libsamplerate from '@alexanderolsen/libsamplerate-js'

// A UMD bundle: Node sees only its default export.
const { ConverterType, create } = libsamplerate

/**
 * libsamplerate's `simple` API hands arrays over 4 MB to its streaming API piece by piece and never flushes the
 * filter, so the last few dozen output samples stay inside it. Silence appended to the input pushes them out; the
 * output is then cut to the exact length.
 */
const TAIL_PADDING = 4096

/**
 * Whole-buffer mono sample-rate conversion. SINC_FASTEST still keeps 97 dB SNR over 80% of the band, far past what
 * speech recognition needs, and runs twice as fast as the medium-quality sinc (about 1 s per minute of 48 kHz audio).
 */
export async function resampleMono(
  samples: Float32Array,
  fromRate: number,
  toRate: number,
): Promise<Float32Array> {
  if (fromRate === toRate) return samples
  const outputLength = Math.round((samples.length * toRate) / fromRate)
  if (samples.length === 0) return new Float32Array(0)
  const src = await create(1, fromRate, toRate, { converterType: ConverterType.SRC_SINC_FASTEST })
  try {
    const padded = new Float32Array(samples.length + TAIL_PADDING)
    padded.set(samples)
    const out = src.simple(padded)
    if (out.length >= outputLength) return out.subarray(0, outputLength)
    const exact = new Float32Array(outputLength)
    exact.set(out)
    return exact
  } finally {
    src.destroy()
  }
}
