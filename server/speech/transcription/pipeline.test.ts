import { describe, expect, it } from 'vitest'
import type { RecognizedWord, RecognizeOptions, Recognizer } from '../../engine/recognition/index.ts'
import { RATE, SEGMENT_CAP_SECONDS, segmentsOf, transcribeAudio } from './pipeline.ts'

/** Noise without a single pause. */
function noise(seconds: number): Float32Array {
  const out = new Float32Array(seconds * RATE)
  let seed = 3
  for (let i = 0; i < out.length; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) | 0
    out[i] = (seed / 2 ** 31) * 0.3
  }
  return out
}

/** A recognizer that hears a word every 0.3 s everywhere, ignoring the boundaries it is given, and records them. */
function everywhere(calls: Array<{ seconds: number; boundaries: readonly number[] }>): Recognizer {
  return {
    name: 'fake',
    available: async () => true,
    async transcribe(audio: Float32Array, opts?: RecognizeOptions) {
      calls.push({ seconds: audio.length / RATE, boundaries: opts?.boundaries ?? [] })
      const words: RecognizedWord[] = []
      for (let t = 0; t + 0.25 <= audio.length / RATE; t += 0.3) {
        words.push({ text: `w${words.length}`, start: t, end: t + 0.25, confidence: 1 })
      }
      return { words, text: words.map((w) => w.text).join(' ') }
    },
    checkPhrase: async () => ({ matched: false, heard: '', score: 0 }),
    close: async () => {},
  }
}

describe('transcribeAudio', () => {
  it('cuts speech without pauses into pieces of at most 10 s and passes their boundaries to the recognizer', async () => {
    const calls: Array<{ seconds: number; boundaries: readonly number[] }> = []
    const parts = await transcribeAudio(noise(47), {
      recognizer: everywhere(calls),
      signal: new AbortController().signal,
      // The detector finds speech throughout: no pause to cut in.
      detectSpeech: async (audio) => [{ start: 0, end: audio.length / RATE }],
    })
    expect(calls.length).toBeGreaterThanOrEqual(2)
    for (const call of calls) {
      const edges = [0, ...call.boundaries, call.seconds]
      for (let i = 1; i < edges.length; i++) {
        expect((edges[i] as number) - (edges[i - 1] as number)).toBeLessThanOrEqual(SEGMENT_CAP_SECONDS)
      }
    }
    expect(parts.segments.length).toBeGreaterThanOrEqual(5)
    for (const s of parts.segments) expect(s.end - s.start).toBeLessThanOrEqual(SEGMENT_CAP_SECONDS)
    expect(parts.segments.flatMap((s) => s.words ?? [])).toEqual(parts.words)
  })

  it('falls back to cuts by energy alone when the detector fails', async () => {
    const errors: unknown[] = []
    const parts = await transcribeAudio(noise(25), {
      recognizer: everywhere([]),
      signal: new AbortController().signal,
      detectSpeech: async () => {
        throw new Error('no model')
      },
      onVadError: (err) => errors.push(err),
    })
    expect(errors).toHaveLength(1)
    for (const s of parts.segments) expect(s.end - s.start).toBeLessThanOrEqual(SEGMENT_CAP_SECONDS)
  })
})

describe('segmentsOf', () => {
  const w = (start: number, end: number): RecognizedWord => ({ text: 'x', start, end, confidence: 1 })

  it('never lets a segment cross a piece boundary, giving a word to the piece holding its middle', () => {
    const pieces = [
      { start: 0, end: 5 * RATE },
      { start: 5 * RATE, end: 12 * RATE },
    ]
    const segments = segmentsOf([w(4.5, 4.8), w(4.9, 5.2), w(5.2, 5.6), w(5.7, 6)], pieces)
    expect(segments.map((s) => [s.start, s.end])).toEqual([
      [4.5, 4.8],
      [4.9, 6],
    ])
  })

  it('cuts at the cap by word boundary when a recognizer puts words past its piece', () => {
    const words = Array.from({ length: 50 }, (_, i) => w(i * 0.3, i * 0.3 + 0.25))
    const segments = segmentsOf(words, [{ start: 0, end: 15 * RATE }])
    for (const s of segments) expect(s.end - s.start).toBeLessThanOrEqual(SEGMENT_CAP_SECONDS)
    expect(segments.length).toBe(2)
  })
})
