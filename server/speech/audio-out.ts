import { PCM_DELTA_BYTES, type ResponseFormat, SAMPLE_RATE } from '../../schema/index.ts'
import { encodeCompressed } from '../engine/index.ts'
import { pcm16WavHeader } from '../wav.ts'

/** Turns the engine's 24 kHz PCM16 chunks into the bytes of a response format, as they are produced. */

/** A 44-byte WAV header for 24 kHz mono PCM16. Without a known length it uses the streaming sentinel sizes. */
export function wavHeader(dataBytes?: number): Buffer {
  return pcm16WavHeader(SAMPLE_RATE, dataBytes)
}

export function pcmBytes(samples: Int16Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)
}

/** The bytes of `format` as the PCM arrives: raw or WAV directly, the compressed formats through their encoders. */
export async function* encodeStream(
  format: ResponseFormat,
  pcm: AsyncIterable<Int16Array>,
  signal?: AbortSignal,
): AsyncGenerator<Buffer> {
  if (format === 'pcm' || format === 'wav') {
    if (format === 'wav') yield wavHeader()
    for await (const chunk of pcm) if (chunk.length > 0) yield pcmBytes(chunk)
    return
  }
  for await (const bytes of encodeCompressed(format, pcm, { sampleRate: SAMPLE_RATE, signal })) {
    yield Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }
}

/** Re-cuts a byte stream into pieces of exactly `size` bytes; the last piece may be shorter. */
export async function* fixedSizePieces(
  source: AsyncIterable<Buffer>,
  size = PCM_DELTA_BYTES,
): AsyncGenerator<Buffer> {
  let pending: Buffer = Buffer.alloc(0)
  for await (const buf of source) {
    pending = pending.length === 0 ? buf : Buffer.concat([pending, buf])
    let offset = 0
    while (pending.length - offset >= size) {
      yield pending.subarray(offset, offset + size)
      offset += size
    }
    pending = pending.subarray(offset)
  }
  if (pending.length > 0) yield pending
}
