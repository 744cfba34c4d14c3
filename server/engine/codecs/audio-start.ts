import type { ResponseFormat } from '../../../schema/index.ts'

/**
 * Where the audio of a response starts: how many leading bytes are container header that carries no sound. Time to
 * first byte alone flatters a format whose header goes out before any audio exists (WAV's 44 bytes, Ogg's two header
 * pages, FLAC's metadata); the benchmark and the tests measure the first byte past this point as well.
 */

/**
 * The length of the header at the start of `prefix`, once `prefix` holds enough of the stream to tell; `undefined`
 * while the header is still incomplete. Per format:
 * - pcm: no header; every byte is a sample.
 * - wav: the RIFF chunks up to and including the `data` chunk's 8-byte header (44 bytes as we write it).
 * - mp3: an ID3v2 tag if there is one; after it every byte belongs to an MPEG frame. A stream carries no Xing frame
 *   (encode.ts), so its first frame is already audio.
 * - aac: ADTS has no file header; each frame starts with its own 7-byte header, so the first frame is the first audio.
 * - flac: `fLaC` and the metadata blocks (STREAMINFO, comments, padding) up to the one marked last.
 * - opus: the Ogg pages holding the two header packets, OpusHead and OpusTags (RFC 7845 §3: audio starts on a fresh
 *   page after them).
 * Each encoder writes whole frames or pages, so the first byte past the header arrives with a whole first frame/page.
 */
export function audioStart(format: ResponseFormat, prefix: Uint8Array): number | undefined {
  switch (format) {
    case 'pcm':
    case 'aac':
      return 0
    case 'wav':
      return wavDataStart(prefix)
    case 'mp3':
      return id3Length(prefix)
    case 'flac':
      return flacAudioStart(prefix)
    case 'opus':
      return oggPacketsEnd(prefix, 2)
  }
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length))
}

function wavDataStart(bytes: Uint8Array): number | undefined {
  if (bytes.length < 12) return undefined
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let at = 12; at + 8 <= bytes.length; ) {
    if (ascii(bytes, at, 4) === 'data') return at + 8
    // Chunks are padded to an even length.
    const size = view.getUint32(at + 4, true)
    at += 8 + size + (size % 2)
  }
  return undefined
}

function id3Length(bytes: Uint8Array): number | undefined {
  if (bytes.length < 3) return undefined
  if (ascii(bytes, 0, 3) !== 'ID3') return 0
  if (bytes.length < 10) return undefined
  // Synchsafe: 7 bits per byte.
  const size = bytes.subarray(6, 10).reduce((sum, b) => sum * 128 + (b & 0x7f), 0)
  const footer = ((bytes[5] as number) & 0x10) === 0 ? 0 : 10
  return 10 + size + footer
}

function flacAudioStart(bytes: Uint8Array): number | undefined {
  for (let at = 4; at + 4 <= bytes.length; ) {
    const last = ((bytes[at] as number) & 0x80) !== 0
    const length =
      ((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number)
    at += 4 + length
    if (last) return at <= bytes.length ? at : undefined
  }
  return undefined
}

/** The end of the Ogg page on which the `packets`-th packet ends. */
function oggPacketsEnd(bytes: Uint8Array, packets: number): number | undefined {
  let ended = 0
  for (let at = 0; at + 27 <= bytes.length; ) {
    const segments = bytes[at + 26] as number
    if (at + 27 + segments > bytes.length) return undefined
    const lacing = bytes.subarray(at + 27, at + 27 + segments)
    const end = at + 27 + segments + lacing.reduce((sum, l) => sum + l, 0)
    // A lacing value below 255 ends a packet.
    ended += lacing.filter((l) => l < 255).length
    if (ended >= packets) return end <= bytes.length ? end : undefined
    at = end
  }
  return undefined
}
