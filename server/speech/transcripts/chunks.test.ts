import { describe, expect, it } from 'vitest'
import { chunkAtPauses } from './chunks.ts'

const RATE = 1000

/** Noise everywhere except silent gaps at the given seconds. */
function noiseWithGaps(seconds: number, gaps: number[]) {
  const out = new Float32Array(seconds * RATE)
  let seed = 1
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31
    out[i] = (seed / 2 ** 31 - 0.5) * 0.5
  }
  for (const g of gaps) out.fill(0, Math.round((g - 0.1) * RATE), Math.round((g + 0.1) * RATE))
  return out
}

describe('chunkAtPauses', () => {
  it('keeps short audio in one chunk, including empty audio', () => {
    expect(chunkAtPauses(new Float32Array(25 * RATE), RATE)).toEqual([{ start: 0, end: 25 * RATE }])
    expect(chunkAtPauses(new Float32Array(0), RATE)).toEqual([{ start: 0, end: 0 }])
  })

  it('cuts long audio in its pauses into contiguous chunks that cover everything', () => {
    const audio = noiseWithGaps(70, [17, 39, 61])
    const chunks = chunkAtPauses(audio, RATE, { targetSeconds: 20, searchSeconds: 6 })
    expect(chunks[0]?.start).toBe(0)
    expect(chunks.at(-1)?.end).toBe(audio.length)
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]?.start).toBe(chunks[i - 1]?.end)
    const cuts = chunks.slice(0, -1).map((c) => c.end / RATE)
    expect(cuts).toHaveLength(3)
    cuts.forEach((cut, i) => {
      expect(Math.abs(cut - ([17, 39, 61][i] as number))).toBeLessThan(0.1)
    })
  })
})
