/**
 * Upload formats told from the bytes themselves (contract 4.2: WAV, MP3, OGG, AAC, FLAC, WebM, MP4). A client's file name
 * or Content-Type says nothing reliable about what was recorded (a `.webm` from one browser, a `.m4a` renamed `.mp3`
 * by a user). The checks mirror the ones that mediabunny's demuxers make, so that a file accepted here is one they
 * will open. Shared: the service's decoder refuses what this does not recognise, and the studio checks a clip the
 * same way before sending it.
 */

import { waveForm } from '../core/wav.ts'

export const UPLOAD_FORMATS = ['wav', 'mp3', 'ogg', 'aac', 'flac', 'webm', 'mp4'] as const
export type UploadFormat = (typeof UPLOAD_FORMATS)[number]

/** How people know each format, for messages. */
export const UPLOAD_FORMAT_NAMES: Record<UploadFormat, string> = {
  wav: 'WAV',
  mp3: 'MP3',
  ogg: 'OGG',
  aac: 'AAC',
  flac: 'FLAC',
  webm: 'WebM',
  mp4: 'MP4',
}

const FORMAT_NAMES = UPLOAD_FORMATS.map((f) => UPLOAD_FORMAT_NAMES[f])
/** The accepted formats as a sentence lists them: "WAV, MP3, OGG, AAC, FLAC, WebM or MP4". */
export const UPLOAD_FORMATS_IN_WORDS = `${FORMAT_NAMES.slice(0, -1).join(', ')} or ${FORMAT_NAMES.at(-1)}`

export function sniffFormat(bytes: Uint8Array): UploadFormat | null {
  if (waveForm(bytes)) return 'wav' // RIFF, RIFX or RF64 holding WAVE (core/wav.ts, the one WAV reader)
  if (ascii(bytes, 0, 4) === 'OggS') return 'ogg'
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return 'webm' // EBML: WebM or Matroska
  if (ascii(bytes, 4, 4) === 'ftyp') return 'mp4' // ISO BMFF: MP4, M4A, MOV

  // FLAC, ADTS and MP3 may all start with ID3v2 tags.
  const start = id3v2Length(bytes)
  if (ascii(bytes, start, 4) === 'fLaC') return 'flac'
  if (framesStartAt(bytes, start, readAdtsHeader)) return 'aac'
  if (firstMp3Frame(bytes, start) >= 0) return 'mp3'
  return null
}

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  if (offset + length > bytes.length) return ''
  return String.fromCharCode(...bytes.subarray(offset, offset + length))
}

// Frame headers of the two raw bitstream formats, MP3 and ADTS (AAC), which have no container to name them: format
// sniffing and the decoder's truncation checks both walk them.

export interface FrameHeader {
  /** The whole frame's length in bytes, header included. */
  frameLength: number
  /** Fields that stay the same from frame to frame in a real stream. */
  signature: number
}

/** ADTS (ISO/IEC 13818-7): 12-bit sync, layer 0, then profile, rate, channels and the 13-bit frame length. */
export function readAdtsHeader(bytes: Uint8Array, pos: number): FrameHeader | null {
  if (pos + 7 > bytes.length) return null
  const b1 = bytes[pos + 1] ?? 0
  const b2 = bytes[pos + 2] ?? 0
  const b3 = bytes[pos + 3] ?? 0
  if (bytes[pos] !== 0xff || (b1 & 0xf6) !== 0xf0) return null
  if (((b2 >> 2) & 0x0f) > 12) return null // sampling frequency index
  const frameLength = ((b3 & 0x03) << 11) | ((bytes[pos + 4] ?? 0) << 3) | ((bytes[pos + 5] ?? 0) >> 5)
  const headerLength = b1 & 0x01 ? 7 : 9 // without or with CRC
  if (frameLength <= headerLength) return null
  return { frameLength, signature: ((b2 & 0xfd) << 8) | (b3 & 0xc0) }
}

// Bitrates in kbit/s by [layer III, II, I][index]; index 0 is "free format", 15 is invalid.
const MPEG1_BITRATES = [
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
]
const MPEG2_BITRATES = [
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
]
const MPEG1_SAMPLE_RATES = [44100, 48000, 32000]

/** MPEG audio layers I–III (MP3 and its kin): 11-bit sync, then version, layer, bitrate, rate and padding. */
export function readMp3Header(bytes: Uint8Array, pos: number): FrameHeader | null {
  if (pos + 4 > bytes.length) return null
  const b1 = bytes[pos + 1] ?? 0
  const b2 = bytes[pos + 2] ?? 0
  if (bytes[pos] !== 0xff || (b1 & 0xe0) !== 0xe0) return null
  const version = (b1 >> 3) & 0x03 // 0: MPEG-2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
  const layer = (b1 >> 1) & 0x03 // 1: III, 2: II, 3: I; 0 is ADTS' and reserved here
  const bitrateIndex = b2 >> 4
  const rateIndex = (b2 >> 2) & 0x03
  // Free-format frames (bitrate index 0) carry no length; they are too rare to be worth guessing at.
  if (version === 1 || layer === 0 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3)
    return null
  const bitrate = ((version === 3 ? MPEG1_BITRATES : MPEG2_BITRATES)[layer - 1]?.[bitrateIndex] ?? 0) * 1000
  const sampleRate = (MPEG1_SAMPLE_RATES[rateIndex] ?? 0) / (version === 3 ? 1 : version === 2 ? 2 : 4)
  const padding = (b2 >> 1) & 0x01
  // Layer I counts in 4-byte slots; layer III of MPEG-2/2.5 carries half the samples per frame, so half the bytes.
  const frameLength =
    layer === 3
      ? (Math.floor((12 * bitrate) / sampleRate) + padding) * 4
      : Math.floor(((layer === 1 && version !== 3 ? 72 : 144) * bitrate) / sampleRate) + padding
  // Version, layer, rate and channel mode.
  const signature = ((b1 & 0x1e) << 8) | ((b2 & 0x0c) << 4) | ((bytes[pos + 3] ?? 0) >> 6)
  return { frameLength, signature }
}

type ReadHeader = (bytes: Uint8Array, pos: number) => FrameHeader | null

/**
 * Whether a stream of these frames starts at `pos`: a header, and a matching one where it says the next frame
 * starts. One 0xFFF sync word alone turns up in random data far too often, except at the very start of the file.
 */
export function framesStartAt(bytes: Uint8Array, pos: number, readHeader: ReadHeader): boolean {
  const first = readHeader(bytes, pos)
  if (!first) return false
  // A file cut inside its first frame is still recognised, to be reported as cut short rather than as unknown.
  if (pos + first.frameLength >= bytes.length) return pos === id3v2Length(bytes)
  const second = readHeader(bytes, pos + first.frameLength)
  return second !== null && second.signature === first.signature
}

/** The bytes taken by ID3v2 tags at the start ("ID3", version, flags, 28-bit syncsafe size, optional footer). */
export function id3v2Length(bytes: Uint8Array): number {
  let pos = 0
  while (
    pos + 10 <= bytes.length &&
    bytes[pos] === 0x49 &&
    bytes[pos + 1] === 0x44 &&
    bytes[pos + 2] === 0x33
  ) {
    const flags = bytes[pos + 5] ?? 0
    let size = 0
    for (let i = 6; i < 10; i++) size = (size << 7) | ((bytes[pos + i] ?? 0) & 0x7f)
    pos += 10 + size + (flags & 0x10 ? 10 : 0)
  }
  return pos
}

/** mediabunny also tolerates this much junk before the first MP3 frame (often a broken tag). */
export const MP3_SYNC_SEARCH_BYTES = 4096

/** Where the first MP3 frame of a stream starts, searching as mediabunny does, or -1. */
export function firstMp3Frame(bytes: Uint8Array, from: number): number {
  const end = Math.min(bytes.length, from + MP3_SYNC_SEARCH_BYTES)
  for (let pos = from; pos < end; pos++) {
    if (bytes[pos] === 0xff && framesStartAt(bytes, pos, readMp3Header)) return pos
  }
  return -1
}
