import { describe, expect, it } from 'vitest'
import { sniffFormat, UPLOAD_FORMATS_IN_WORDS } from './audio-format.ts'

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0))
const bytes = (...parts: (number[] | Uint8Array)[]) => Uint8Array.from(parts.flatMap((p) => Array.from(p)))
const zeros = (n: number) => new Array<number>(n).fill(0)

/** An MPEG-1 layer III frame header: 128 kbit/s, 44.1 kHz, joint stereo; its frame is 417 bytes. */
const MP3_HEADER = [0xff, 0xfb, 0x90, 0x44]
const mp3Frame = () => [...MP3_HEADER, ...zeros(417 - 4)]

/** An ADTS header: AAC LC, 44.1 kHz, stereo, no CRC, for a 100-byte frame. */
const adtsFrame = () => {
  const length = 100
  return [
    0xff,
    0xf1,
    0x50,
    0x80 | (length >> 11),
    (length >> 3) & 0xff,
    ((length & 7) << 5) | 0x1f,
    0xfc,
    ...zeros(93),
  ]
}

const id3 = (size: number) => [
  ...ascii('ID3'),
  4,
  0,
  0,
  0,
  0,
  (size >> 7) & 0x7f,
  size & 0x7f,
  ...zeros(size),
]

describe('sniffFormat', () => {
  it.each([
    ['wav', bytes(ascii('RIFF'), [0, 0, 0, 0], ascii('WAVEfmt '))],
    ['wav', bytes(ascii('RF64'), [0xff, 0xff, 0xff, 0xff], ascii('WAVEds64'))],
    ['ogg', bytes(ascii('OggS'), [0, 2], zeros(20))],
    ['webm', bytes([0x1a, 0x45, 0xdf, 0xa3], zeros(20))],
    ['mp4', bytes([0, 0, 0, 0x20], ascii('ftypM4A '), zeros(20))],
    ['mp4', bytes([0, 0, 0, 0x14], ascii('ftypqt  '), zeros(20))],
    ['flac', bytes(ascii('fLaC'), zeros(38))],
    ['flac', bytes(id3(300), ascii('fLaC'), zeros(38))],
    ['mp3', bytes(mp3Frame(), mp3Frame())],
    ['mp3', bytes(id3(1000), mp3Frame(), mp3Frame())],
    ['mp3', bytes(zeros(700), mp3Frame(), mp3Frame())],
    ['aac', bytes(adtsFrame(), adtsFrame())],
    ['aac', bytes(id3(10), adtsFrame(), adtsFrame())],
  ] as const)('recognises %s', (format, data) => {
    expect(sniffFormat(data)).toBe(format)
  })

  it('recognises a stream cut inside its first frame, so that it is reported as cut short', () => {
    expect(sniffFormat(bytes(mp3Frame().slice(0, 100)))).toBe('mp3')
    expect(sniffFormat(bytes(adtsFrame().slice(0, 50)))).toBe('aac')
  })

  it('does not take a lone frame sync inside other data for MP3', () => {
    expect(sniffFormat(bytes(zeros(100), MP3_HEADER, zeros(900)))).toBeNull()
  })

  it('needs the second frame where the first says it starts', () => {
    expect(sniffFormat(bytes(mp3Frame(), [0x12, 0x34], mp3Frame()))).toBeNull()
  })

  it.each([
    ['nothing', new Uint8Array(0)],
    ['text', new TextEncoder().encode('RIFF is a container, WAVE a format')],
    ['a RIFF that is not WAVE', bytes(ascii('RIFF'), zeros(4), ascii('AVI LIST'))],
    ['a PNG', bytes([0x89], ascii('PNG'), [0x0d, 0x0a, 0x1a, 0x0a], zeros(30))],
  ])('returns null for %s', (_, data) => {
    expect(sniffFormat(data)).toBeNull()
  })
})

describe('UPLOAD_FORMATS_IN_WORDS', () => {
  it('lists the accepted formats as contract 4.2 names them', () => {
    expect(UPLOAD_FORMATS_IN_WORDS).toBe('WAV, MP3, OGG, AAC, FLAC, WebM or MP4')
  })
})
