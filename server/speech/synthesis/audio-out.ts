import { PCM_DELTA_BYTES, type ResponseFormat, SAMPLE_RATE } from '../../../schema/index.ts'
import { encodeCompressed } from '../../engine/index.ts'
import { pcm16WavHeader } from '../../wav.ts'
import { sseJsonFrame } from '../sse.ts'

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

/**
 * Re-cuts a byte stream into pieces of exactly `size` bytes; the last piece may be shorter. Whole pieces inside an
 * input buffer are views of it; only a piece that straddles two inputs is copied.
 */
export async function* fixedSizePieces(
  source: AsyncIterable<Buffer>,
  size = PCM_DELTA_BYTES,
): AsyncGenerator<Buffer> {
  // The start of a piece that the next input completes, at most size − 1 bytes.
  let pending: Buffer | null = null
  for await (const buf of source) {
    let offset = 0
    if (pending) {
      const need = size - pending.length
      if (buf.length < need) {
        pending = Buffer.concat([pending, buf])
        continue
      }
      yield Buffer.concat([pending, buf.subarray(0, need)])
      pending = null
      offset = need
    }
    while (buf.length - offset >= size) {
      yield buf.subarray(offset, offset + size)
      offset += size
    }
    if (offset < buf.length) pending = buf.subarray(offset)
  }
  if (pending) yield pending
}

/**
 * One `speech.audio.delta` SSE frame (contract 6.1). Base64 needs no JSON escaping, so the event's JSON is written
 * directly, the same bytes `sseFrame(event)` gives without scanning the audio twice.
 */
export function audioDeltaFrame(piece: Buffer): string {
  return sseJsonFrame(`{"type":"speech.audio.delta","audio":"${piece.toString('base64')}"}`)
}

/**
 * The `speech.audio.delta` frames of a streamed SSE answer (6.1), without its closing `speech.audio.done`: PCM in
 * deltas of exactly 4,800 bytes, other formats as their encoder emits them.
 */
export async function* audioDeltaFrames(
  format: ResponseFormat,
  pcm: AsyncIterable<Int16Array>,
  signal?: AbortSignal,
): AsyncGenerator<string> {
  const encoded = encodeStream(format, pcm, signal)
  const pieces = format === 'pcm' ? fixedSizePieces(encoded) : encoded
  for await (const piece of pieces) yield audioDeltaFrame(piece)
}
