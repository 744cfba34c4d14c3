/**
 * Structural checks that run before decoding, for uploads that are cut short (an interrupted upload, a recorder that
 * crashed) or damaged. The demuxers tolerate a cut silently, playing whatever complete frames there are, which for a
 * consent recording or a voice reference would mean accepting half of it. The rule is the same for every format: the
 * file is cut short when its bytes end inside something the container declared the size of (a RIFF chunk, an MP4
 * box, a WebM element, an Ogg page, an MP3 or ADTS frame), or, for FLAC, before the sample count its STREAMINFO
 * promises (checked after decoding). A cut that falls on a frame boundary of a stream format (MP3, ADTS, Ogg, live
 * WebM) cannot be told from a shorter recording.
 *
 * Damage is found where the structure allows: an MP3 or ADTS file that is mostly not frames, and a WebM file with an
 * element the Matroska spec does not place there (mediabunny's demuxer then searches for the next known element and,
 * when there is none, never returns). Damage inside frames is the decoders' to find (decode-codecs.ts).
 */

import { isUnknownSize, readWav } from '../../../core/wav.ts'
import {
  firstMp3Frame,
  framesStartAt,
  id3v2Length,
  readAdtsHeader,
  readMp3Header,
  type UploadFormat,
} from '../../../schema/audio-format.ts'
import { oggPages } from './ogg-pages.ts'

/** Why the bytes look cut short or damaged, or null when they do not. */
export function findDamage(bytes: Uint8Array, format: UploadFormat): string | null {
  switch (format) {
    case 'wav':
      return wavDamage(bytes)
    case 'mp4':
      return mp4Damage(bytes)
    case 'webm':
      return ebmlDamage(bytes)
    case 'ogg':
      return oggDamage(bytes)
    case 'mp3':
    case 'aac':
      return frameDamage(bytes, format)
    case 'flac':
      return null // checked against the decoded length, see flacDeclaredFrames
  }
}

/**
 * STREAMINFO's total sample count per channel (0 when the encoder did not know it) and largest block size. It is
 * the first metadata block, right after "fLaC" and its 4-byte block header: min and max block size (16 bits each),
 * min and max frame size (24 bits each), then rate, channels and bit depth, which share bytes with the 36-bit count.
 */
export function flacStreamInfo(bytes: Uint8Array): { totalFrames: number; maxBlockSize: number } {
  const info = id3v2Length(bytes) + 8
  if (info + 18 > bytes.length) return { totalFrames: 0, maxBlockSize: 0 }
  const data = view(bytes)
  const totalFrames = ((bytes[info + 13] ?? 0) & 0x0f) * 2 ** 32 + data.getUint32(info + 14)
  return { totalFrames, maxBlockSize: data.getUint16(info + 2) }
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length))
}

/**
 * RIFF chunks up to and including "data" (walked by the one WAV reader, core/wav.ts); a "data" size of 0 or
 * 0xFFFFFFFF is a streaming writer's "unknown", never a cut.
 */
function wavDamage(bytes: Uint8Array): string | null {
  const wav = readWav(bytes)
  if (!wav) return null // RIFX and RF64 are rare enough to let through unchecked
  for (const { id, body, size } of wav.chunks) {
    if (id === 'data' && isUnknownSize(size)) return null
    if (body + size > bytes.length)
      return `its "${id}" chunk declares ${size} bytes, ${bytes.length - body} remain`
  }
  return wav.data ? null : 'it ends before its "data" chunk'
}

/** Top-level ISO BMFF boxes (ftyp, moov, mdat, …); size 0 means "to the end of the file". */
function mp4Damage(bytes: Uint8Array): string | null {
  const data = view(bytes)
  let pos = 0
  while (pos + 8 <= bytes.length) {
    let size = data.getUint32(pos)
    const type = ascii(bytes, pos + 4, 4)
    if (size === 0) return null
    if (size === 1) {
      if (pos + 16 > bytes.length) return `it ends inside the "${type}" box header`
      size = Number(data.getBigUint64(pos + 8))
    }
    if (size < 8) return null // not a box size; leave it to the demuxer
    if (pos + size > bytes.length)
      return `its "${type}" box declares ${size} bytes, ${bytes.length - pos} remain`
    pos += size
  }
  return pos === bytes.length ? null : 'it ends inside a box header'
}

const EBML_HEADER = 0x1a45dfa3
const EBML_SEGMENT = 0x18538067
const EBML_CLUSTER = 0x1f43b675

/** The elements that may follow one another at the top, in a Segment, and in a Cluster. */
const EBML_SIBLINGS = new Set([
  EBML_HEADER,
  EBML_SEGMENT,
  // Segment children: SeekHead, Info, Tracks, Cluster, Cues, Tags, Attachments, Chapters
  0x114d9b74,
  0x1549a966,
  0x1654ae6b,
  EBML_CLUSTER,
  0x1c53bb6b,
  0x1254c367,
  0x1941a469,
  0x1043a770,
  // Anywhere: Void, CRC-32
  0xec,
  0xbf,
  // Cluster children: Timestamp, Position, PrevSize, SimpleBlock, BlockGroup, EncryptedBlock, SilentTracks
  0xe7,
  0xa7,
  0xab,
  0xa3,
  0xa0,
  0xaf,
  0x5854,
])

/**
 * EBML elements from the top, descending into the Segment and its Clusters down to their blocks (MediaRecorder
 * writes both with unknown sizes); other elements are checked as a whole.
 */
function ebmlDamage(bytes: Uint8Array): string | null {
  let pos = 0
  while (pos < bytes.length) {
    const id = readVint(bytes, pos, false)
    const size = id && readVint(bytes, pos + id.length, true)
    if (!id || !size) return `it ends inside an element header at byte ${pos}`
    if (id.value === null || !EBML_SIBLINGS.has(id.value)) return `byte ${pos} starts no valid WebM element`
    const dataStart = pos + id.length + size.length
    if (size.value !== null && dataStart + size.value > bytes.length) {
      return `an element at byte ${pos} declares ${size.value} bytes, ${bytes.length - dataStart} remain`
    }
    if (id.value === EBML_SEGMENT || id.value === EBML_CLUSTER) {
      pos = dataStart
    } else if (size.value === null) {
      return null // cannot tell where it ends
    } else {
      pos = dataStart + size.value
    }
  }
  return null
}

/**
 * An EBML variable-length integer: the leading zero bits of its first byte tell its length. IDs keep their marker
 * bit; sizes drop it, and all value bits set means "unknown".
 */
function readVint(
  bytes: Uint8Array,
  pos: number,
  isSize: boolean,
): { value: number | null; length: number } | null {
  const first = bytes[pos]
  if (first === undefined || first === 0) return null
  const length = Math.clz32(first) - 23
  if (pos + length > bytes.length) return null
  let value = isSize ? first & (0xff >> length) : first
  let allOnes = value === 0xff >> length
  for (let i = 1; i < length; i++) {
    const byte = bytes[pos + i] ?? 0
    value = value * 256 + byte
    allOnes &&= byte === 0xff
  }
  return { value: isSize && allOnes ? null : value, length }
}

/** Ogg pages (ogg-pages.ts): the last one must be whole. */
function oggDamage(bytes: Uint8Array): string | null {
  return oggPages(bytes).cut
}

/**
 * MP3 or ADTS frames, walked as the demuxers do: frame after frame, searching past junk for the next two frames in
 * a row. A frame that runs past the end is a cut; a file that is mostly not frames (garbage after a valid start) is
 * damaged. A little junk, such as a stray tag between two streams, is fine: the demuxers skip it too.
 */
function frameDamage(bytes: Uint8Array, format: 'mp3' | 'aac'): string | null {
  const readHeader = format === 'mp3' ? readMp3Header : readAdtsHeader
  const start = id3v2Length(bytes)
  let pos = format === 'mp3' ? firstMp3Frame(bytes, start) : start
  if (pos < 0) return null
  let framed = 0
  let inStream = true
  while (pos < bytes.length) {
    const header = readHeader(bytes, pos)
    if (header && (inStream || framesStartAt(bytes, pos, readHeader))) {
      if (pos + header.frameLength > bytes.length) {
        return `its last frame declares ${header.frameLength} bytes, ${bytes.length - pos} remain`
      }
      framed += header.frameLength
      pos += header.frameLength
      inStream = true
    } else {
      pos++
      inStream = false
    }
  }
  const share = framed / (bytes.length - start)
  if (share < MIN_FRAMED_SHARE) return `only ${Math.round(share * 100)}% of it is ${format} frames`
  return null
}

/** Below this share of frames (after any leading tags), an MP3 or ADTS file is more junk than audio. */
const MIN_FRAMED_SHARE = 0.5
