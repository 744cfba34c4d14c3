/**
 * WAV (RIFF) framing of mono PCM16, for the speech service's `wav` responses, the studio's live recordings, tests and
 * benchmarks alike.
 */

/** The RIFF and data sizes of a stream whose length is not known yet; readers take "to the end of the file". */
const UNKNOWN_SIZE = 0xffff_ffff

/** A 44-byte header for mono PCM16 at `rate` Hz; without a known length it uses the streaming sentinel sizes. */
export function pcm16WavHeader(rate: number, dataBytes?: number): Buffer {
  const h = Buffer.alloc(44)
  h.write('RIFF', 0, 'ascii')
  h.writeUInt32LE(dataBytes === undefined ? UNKNOWN_SIZE : 36 + dataBytes, 4)
  h.write('WAVE', 8, 'ascii')
  h.write('fmt ', 12, 'ascii')
  h.writeUInt32LE(16, 16)
  h.writeUInt16LE(1, 20)
  h.writeUInt16LE(1, 22)
  h.writeUInt32LE(rate, 24)
  h.writeUInt32LE(rate * 2, 28)
  h.writeUInt16LE(2, 32)
  h.writeUInt16LE(16, 34)
  h.write('data', 36, 'ascii')
  h.writeUInt32LE(dataBytes ?? UNKNOWN_SIZE, 40)
  return h
}

/** Float samples in −1…1 (clipped) as little-endian PCM16. */
export function floatToPcm16(samples: ArrayLike<number>): Buffer {
  const pcm = Buffer.alloc(samples.length * 2)
  for (let i = 0; i < samples.length; i++) {
    const x = Math.max(-1, Math.min(1, samples[i] as number))
    pcm.writeInt16LE(Math.round(x * 32767), i * 2)
  }
  return pcm
}

/** A complete WAV file of float samples in −1…1 (clipped) as mono PCM16 at `rate` Hz. */
export function floatToPcm16Wav(samples: ArrayLike<number>, rate: number): Buffer {
  const pcm = floatToPcm16(samples)
  return Buffer.concat([pcm16WavHeader(rate, pcm.length), pcm])
}
