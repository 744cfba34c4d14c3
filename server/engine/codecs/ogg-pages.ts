/**
 * Ogg pages (RFC 3533): a 27-byte header — "OggS", version, header type (0x02: the first page of its stream), granule
 * position, the stream's serial number (bytes 14–17, little-endian), sequence, checksum — then a segment table whose
 * entries add up to the page's body. One file may interleave several streams, such as Theora video beside Vorbis
 * sound.
 */

import { concat } from '../../../core/concat.ts'

export interface OggPage {
  start: number
  end: number
  serial: number
  /** The first page of its stream, whose body opens with the codec's identification header. */
  beginsStream: boolean
  /** Where the page's body starts. */
  body: number
}

/**
 * The whole pages of `bytes` in order, up to the first bytes that are not a page, and why the walk stopped short when
 * the last page is incomplete (`cut`; null when the pages end on a boundary or trailing bytes are not a page).
 */
export function oggPages(bytes: Uint8Array): { pages: OggPage[]; cut: string | null } {
  const pages: OggPage[] = []
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let pos = 0
  while (pos < bytes.length) {
    if (pos + 27 > bytes.length) return { pages, cut: 'it ends inside an Ogg page header' }
    if (String.fromCharCode(...bytes.subarray(pos, pos + 4)) !== 'OggS') return { pages, cut: null }
    const segments = bytes[pos + 26] ?? 0
    const body = pos + 27 + segments
    if (body > bytes.length) return { pages, cut: 'it ends inside an Ogg page header' }
    let bodySize = 0
    for (let i = 0; i < segments; i++) bodySize += bytes[pos + 27 + i] ?? 0
    const end = body + bodySize
    if (end > bytes.length)
      return { pages, cut: `its last Ogg page declares ${bodySize} bytes, ${bytes.length - body} remain` }
    const beginsStream = ((bytes[pos + 5] ?? 0) & 0x02) !== 0
    pages.push({ start: pos, end, serial: view.getUint32(pos + 14, true), beginsStream, body })
    pos = end
  }
  return { pages, cut: null }
}

/**
 * The file's Vorbis stream as Ogg pages of its own, for the Vorbis decoder, which reads a single stream: `bytes`
 * itself when nothing else is interleaved, the Vorbis pages alone when the file also carries other streams (a
 * video's pictures), null when no stream is Vorbis.
 */
export function oggVorbisStream(bytes: Uint8Array): Uint8Array | null {
  const { pages } = oggPages(bytes)
  const isVorbis = (page: OggPage) =>
    page.beginsStream &&
    bytes[page.body] === 0x01 &&
    String.fromCharCode(...bytes.subarray(page.body + 1, page.body + 7)) === 'vorbis'
  const serial = pages.find(isVorbis)?.serial
  if (serial === undefined) return null
  const mine = pages.filter((page) => page.serial === serial)
  if (mine.length === pages.length) return bytes
  return concat(
    mine.map((page) => bytes.subarray(page.start, page.end)),
    Uint8Array,
  )
}
