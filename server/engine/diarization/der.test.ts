import { describe, expect, it } from 'vitest'
import { diarizationError } from './der.ts'

describe('diarizationError', () => {
  const reference = [
    { start: 0, end: 10, speaker: 'A' },
    { start: 10, end: 20, speaker: 'B' },
  ]

  it('is zero for a perfect hypothesis, whatever its speaker names', () => {
    const hypothesis = [
      { start: 0, end: 10, speaker: 7 },
      { start: 10, end: 20, speaker: 3 },
    ]
    expect(diarizationError(reference, hypothesis)).toEqual({
      reference: 20,
      missed: 0,
      falseAlarm: 0,
      confusion: 0,
      der: 0,
    })
  })

  it('counts everything as missed for an empty hypothesis', () => {
    expect(diarizationError(reference, []).der).toBe(1)
    expect(diarizationError(reference, []).missed).toBe(20)
  })

  it('counts a speaker labelled as another as confusion, under the best mapping', () => {
    const hypothesis = [
      { start: 0, end: 15, speaker: 0 },
      { start: 15, end: 20, speaker: 1 },
    ]
    const error = diarizationError(reference, hypothesis)
    expect(error.confusion).toBeCloseTo(5)
    expect(error.der).toBeCloseTo(0.25)
  })

  it('scores overlap: every reference speaker counts, one hypothesis speaker covers only one', () => {
    const overlapped = [
      { start: 0, end: 10, speaker: 'A' },
      { start: 5, end: 15, speaker: 'B' },
    ]
    const error = diarizationError(overlapped, [{ start: 0, end: 15, speaker: 0 }])
    expect(error.reference).toBeCloseTo(20)
    expect(error.missed).toBeCloseTo(5)
    expect(error.confusion).toBeCloseTo(5)
    expect(error.der).toBeCloseTo(0.5)
  })

  it('counts hypothesis speech outside the reference as false alarm, only inside the scored region', () => {
    const hypothesis = [
      { start: 0, end: 10, speaker: 0 },
      { start: 10, end: 25, speaker: 1 },
    ]
    expect(diarizationError(reference, hypothesis).falseAlarm).toBeCloseTo(5)
    expect(diarizationError(reference, hypothesis, { from: 0, to: 20 }).der).toBe(0)
  })

  it('maps many hypothesis speakers one-to-one', () => {
    const hypothesis = Array.from({ length: 20 }, (_, i) => ({ start: i, end: i + 1, speaker: i }))
    const error = diarizationError(reference, hypothesis)
    // Only one hypothesis speaker (1 s) can map to each reference speaker.
    expect(error.confusion).toBeCloseTo(18)
  })
})
