import { describe, expect, it } from 'vitest'
import { audioDeltaFrame, encodeStream, fixedSizePieces, wavHeader } from './audio-out.ts'

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

async function* from<T>(items: T[]) {
  yield* items
}

describe('fixedSizePieces', () => {
  it('re-cuts uneven input into exact pieces with a shorter last one, losing and reordering nothing', async () => {
    const bytes = Buffer.from(Array.from({ length: 10_007 }, (_, i) => i % 251))
    const input = [
      bytes.subarray(0, 3),
      bytes.subarray(3, 5000),
      bytes.subarray(5000, 9601),
      bytes.subarray(9601),
    ]
    const pieces = await collect(fixedSizePieces(from(input), 4800))
    expect(pieces.map((p) => p.length)).toEqual([4800, 4800, 407])
    expect(Buffer.concat(pieces).equals(bytes)).toBe(true)
  })

  it('hands out whole pieces as views of the input, copying only a piece that spans two inputs', async () => {
    const first = Buffer.alloc(10_000, 1)
    const second = Buffer.alloc(5_000, 2)
    const pieces = await collect(fixedSizePieces(from([first, second]), 4800))
    expect(pieces.map((p) => p.length)).toEqual([4800, 4800, 4800, 600])
    expect(pieces[0]?.buffer).toBe(first.buffer)
    expect(pieces[2]?.subarray(0, 400).every((b) => b === 1)).toBe(true)
    expect(pieces[2]?.subarray(400).every((b) => b === 2)).toBe(true)
  })

  it('yields nothing for an empty stream', async () => {
    expect(await collect(fixedSizePieces(from<Buffer>([]), 4800))).toEqual([])
  })
})

describe('WAV output', () => {
  it('writes a 24 kHz mono PCM16 header with exact sizes when the length is known', () => {
    const h = wavHeader(4800)
    expect(h.toString('ascii', 0, 4)).toBe('RIFF')
    expect(h.readUInt32LE(4)).toBe(36 + 4800)
    expect(h.readUInt16LE(22)).toBe(1)
    expect(h.readUInt32LE(24)).toBe(24_000)
    expect(h.readUInt16LE(34)).toBe(16)
    expect(h.readUInt32LE(40)).toBe(4800)
  })

  it('streams a header with the unknown-length sentinel, then the samples little-endian', async () => {
    const pieces = await collect(encodeStream('wav', from([Int16Array.of(1, -2), Int16Array.of(0x1234)])))
    const all = Buffer.concat(pieces)
    expect(all.readUInt32LE(40)).toBe(0xffffffff)
    expect(all.length).toBe(44 + 6)
    expect([all.readInt16LE(44), all.readInt16LE(46), all.readInt16LE(48)]).toEqual([1, -2, 0x1234])
  })
})

describe('audioDeltaFrame', () => {
  it('writes the same SSE frame as serializing the event', () => {
    const piece = Buffer.from(Array.from({ length: 4800 }, (_, i) => (i * 37) % 256))
    const event = { type: 'speech.audio.delta', audio: piece.toString('base64') }
    expect(audioDeltaFrame(piece)).toBe(`data: ${JSON.stringify(event)}\n\n`)
  })
})
