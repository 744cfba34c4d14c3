/**
 * The one RIFF/WAVE header reader, shared by the browser (waveform peaks, a take's audio), the engine (truncation
 * checks of uploads) and the contract's format sniffing. It reads where things are and what they declare; what a
 * caller accepts (which sample formats, whether a cut is an error) is the caller's.
 *
 * Pure: no DOM, no Node. Bytes in, numbers out.
 */

/** The RIFF forms a WAVE file comes in: little-endian, big-endian, and RF64's 64-bit sizes. */
export type WaveForm = 'RIFF' | 'RIFX' | 'RF64'

/** `formatTag` values: integer PCM, IEEE float, and WAVE_FORMAT_EXTENSIBLE (the real tag is in its sub-format GUID). */
export const WAVE_FORMAT_PCM = 1
export const WAVE_FORMAT_IEEE_FLOAT = 3
export const WAVE_FORMAT_EXTENSIBLE = 0xfffe

/** One chunk as its header declares it. */
export interface RiffChunk {
  /** Four ASCII characters: "fmt ", "data", "LIST", … */
  id: string
  /** Offset of the chunk's body, just past its 8-byte header. */
  body: number
  /** The body's size as declared (it may run past the end of the bytes). */
  size: number
}

/** The "fmt " chunk's fields every caller reads. */
export interface WavFmt {
  /** 1 PCM, 3 IEEE float, …; WAVE_FORMAT_EXTENSIBLE already resolved to its sub-format when the GUID is there. */
  formatTag: number
  channels: number
  sampleRate: number
  bitsPerSample: number
}

/** Where the samples are. */
export interface WavData {
  /** Offset of the first sample byte. */
  offset: number
  /** The size the "data" header declares. */
  declared: number
  /** The declared size is a streaming writer's "not known yet" (0 or 0xFFFFFFFF, see `isUnknownSize`). */
  unknownSize: boolean
  /** Bytes of sample data actually present: the declared size clipped to the file, or to its end when unknown. */
  bytes: number
}

export interface WavHeader {
  /** The last "fmt " chunk before "data" with its 16 bytes present, or null. */
  fmt: WavFmt | null
  /** The first "data" chunk, or null when the bytes end before one. */
  data: WavData | null
  /** Every chunk header walked, in order, up to and including "data". */
  chunks: RiffChunk[]
}

/** A streaming writer that did not know the length yet writes 0 or 0xFFFFFFFF as the "data" size. */
export function isUnknownSize(size: number): boolean {
  return size === 0 || size === 0xffffffff
}

function ascii(bytes: Uint8Array, offset: number): string {
  if (offset + 4 > bytes.length) return ''
  return String.fromCharCode(
    bytes[offset] ?? 0,
    bytes[offset + 1] ?? 0,
    bytes[offset + 2] ?? 0,
    bytes[offset + 3] ?? 0,
  )
}

/** The RIFF form of a WAVE file, or null when the bytes do not start as one. */
export function waveForm(bytes: Uint8Array): WaveForm | null {
  const form = ascii(bytes, 0)
  if (form !== 'RIFF' && form !== 'RIFX' && form !== 'RF64') return null
  return ascii(bytes, 8) === 'WAVE' ? form : null
}

/**
 * The chunk headers of a RIFF file from byte 12, in order, up to and including the first "data" chunk; the walk stops
 * where the next 8-byte header does not fit. Chunks are padded to an even size.
 */
export function riffChunks(bytes: Uint8Array): RiffChunk[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const chunks: RiffChunk[] = []
  let at = 12
  while (at + 8 <= bytes.length) {
    const chunk = { id: ascii(bytes, at), body: at + 8, size: view.getUint32(at + 4, true) }
    chunks.push(chunk)
    if (chunk.id === 'data') break
    at = chunk.body + chunk.size + (chunk.size % 2)
  }
  return chunks
}

/** Reads a little-endian RIFF/WAVE header ("RIFF" … "WAVE"), or null for anything else (RIFX and RF64 included). */
export function readWav(bytes: Uint8Array): WavHeader | null {
  if (waveForm(bytes) !== 'RIFF') return null
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const chunks = riffChunks(bytes)
  let fmt: WavFmt | null = null
  let data: WavData | null = null
  for (const { id, body, size } of chunks) {
    if (id === 'fmt ' && body + 16 <= bytes.length) {
      let formatTag = view.getUint16(body, true)
      // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID.
      if (formatTag === WAVE_FORMAT_EXTENSIBLE && body + 26 <= bytes.length)
        formatTag = view.getUint16(body + 24, true)
      fmt = {
        formatTag,
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        bitsPerSample: view.getUint16(body + 14, true),
      }
    } else if (id === 'data') {
      const unknownSize = isUnknownSize(size)
      const present = bytes.length - body
      data = {
        offset: body,
        declared: size,
        unknownSize,
        bytes: unknownSize ? present : Math.min(size, present),
      }
    }
  }
  return { fmt, data, chunks }
}
