import { describe, expect, it } from 'vitest'
import { findDamage, flacStreamInfo } from './decode-integrity.ts'

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0))
const bytes = (...parts: number[][]) => Uint8Array.from(parts.flat())
const zeros = (n: number) => new Array<number>(n).fill(0)
const u32le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24]
const u32be = (n: number) => [n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]

const wav = (declared: number, present: number) =>
  bytes(
    ascii('RIFF'),
    u32le(36 + declared),
    ascii('WAVEfmt '),
    u32le(16),
    zeros(16),
    ascii('data'),
    u32le(declared),
    zeros(present),
  )

describe('findDamage', () => {
  it('WAV: a data chunk running past the end is a cut; an unknown size is not', () => {
    expect(findDamage(wav(1000, 1000), 'wav')).toBeNull()
    expect(findDamage(wav(1000, 999), 'wav')).toMatch(/"data" chunk declares 1000 bytes, 999 remain/)
    expect(findDamage(wav(0xffffffff, 10), 'wav')).toBeNull()
    expect(findDamage(bytes(ascii('RIFF'), u32le(4), ascii('WAVE')), 'wav')).toMatch(/before its "data"/)
  })

  it('MP4: top-level boxes must fit; size 0 runs to the end', () => {
    const ftyp = bytes(u32be(16), ascii('ftypM4A '), zeros(4))
    const mdat = (declared: number, present: number) => [
      ...u32be(8 + declared),
      ...ascii('mdat'),
      ...zeros(present),
    ]
    expect(findDamage(bytes([...ftyp], mdat(100, 100)), 'mp4')).toBeNull()
    expect(findDamage(bytes([...ftyp], mdat(100, 50)), 'mp4')).toMatch(
      /"mdat" box declares 108 bytes, 58 remain/,
    )
    expect(findDamage(bytes([...ftyp], u32be(0), ascii('mdat'), zeros(5)), 'mp4')).toBeNull()
  })

  it('Ogg: a page whose segments run past the end is a cut', () => {
    const page = (body: number, present = body) => [
      ...ascii('OggS'),
      ...zeros(22),
      1,
      body,
      ...zeros(present),
    ]
    expect(findDamage(bytes(page(10), page(20)), 'ogg')).toBeNull()
    expect(findDamage(bytes(page(10), page(20, 5)), 'ogg')).toMatch(/declares 20 bytes, 5 remain/)
    expect(findDamage(bytes(page(10), ascii('OggS')), 'ogg')).toMatch(/inside an Ogg page header/)
  })

  it('WebM: walks into segments and unknown-size clusters, refusing elements out of place', () => {
    const header = [0x1a, 0x45, 0xdf, 0xa3, 0x80 | 4, ...zeros(4)]
    const unknownSegment = [0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
    const unknownCluster = [0x1f, 0x43, 0xb6, 0x75, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]
    const block = (size: number, present = size) => [0xa3, 0x80 | size, ...zeros(present)]
    expect(findDamage(bytes(header, unknownSegment, unknownCluster, block(10), block(10)), 'webm')).toBeNull()
    expect(
      findDamage(bytes(header, unknownSegment, unknownCluster, block(10), block(10, 3)), 'webm'),
    ).toMatch(/declares 10 bytes, 3 remain/)
    expect(
      findDamage(bytes(header, unknownSegment, unknownCluster, block(10), [0x42, 0x86, 0x81, 1]), 'webm'),
    ).toMatch(/starts no valid WebM element/)
  })

  it('MP3: a cut last frame, and a file that is mostly not frames', () => {
    const frame = [0xff, 0xfb, 0x90, 0x44, ...zeros(413)]
    expect(findDamage(bytes(frame, frame, frame), 'mp3')).toBeNull()
    expect(findDamage(bytes(frame, frame, frame.slice(0, 200)), 'mp3')).toMatch(
      /last frame declares 417 bytes, 200/,
    )
    // A little junk between frames is skipped, as the demuxer skips it.
    expect(findDamage(bytes(frame, frame, ascii('TAG'), zeros(125), frame, frame), 'mp3')).toBeNull()
    expect(findDamage(bytes(frame, frame, new Array<number>(2000).fill(0x55)), 'mp3')).toMatch(
      /only 29% of it/,
    )
  })
})

describe('flacStreamInfo', () => {
  it('reads the total sample count and the largest block size from STREAMINFO', () => {
    // min/max block 4608, frame sizes, then 44.1 kHz, 2 channels, 16 bits and 88200 samples packed into 8 bytes.
    const info = [
      0x12,
      0x00,
      0x12,
      0x00,
      ...zeros(6),
      0x0a,
      0xc4,
      0x42,
      0xf0,
      0x00,
      0x01,
      0x58,
      0x88,
      ...zeros(16),
    ]
    const file = bytes(ascii('fLaC'), [0x80, 0, 0, 34], info)
    expect(flacStreamInfo(file)).toEqual({ totalFrames: 88200, maxBlockSize: 4608 })
  })
})
