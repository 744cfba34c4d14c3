/**
 * Upload format detection from the bytes themselves: a client's file name or Content-Type says nothing reliable about
 * what was recorded (a `.webm` from one browser, a `.m4a` renamed `.mp3` by a user). The checks mirror the ones that
 * mediabunny's demuxers make, so that a file accepted here is one they will open.
 */
import { firstMp3Frame, framesStartAt, id3v2Length, readAdtsHeader } from './decode-frames.ts'

export type UploadFormat = 'wav' | 'mp3' | 'ogg' | 'aac' | 'flac' | 'webm' | 'mp4'

export function sniffFormat(bytes: Uint8Array): UploadFormat | null {
  const riff = ascii(bytes, 0, 4)
  if ((riff === 'RIFF' || riff === 'RIFX' || riff === 'RF64') && ascii(bytes, 8, 4) === 'WAVE') return 'wav'
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
