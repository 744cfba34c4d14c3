import { describe, expect, it } from 'vitest'
import { lineAt } from './preview.ts'

describe('lineAt: the line being heard', () => {
  const starts = [
    { lineId: 'ln_first1', frame: 0 },
    { lineId: 'ln_second', frame: 48_000 },
    { lineId: 'ln_third1', frame: 60_000 },
  ]

  it.each([
    [0, 'ln_first1'],
    [47_999, 'ln_first1'],
    [48_000, 'ln_second'],
    [59_999, 'ln_second'],
    [60_000, 'ln_third1'],
    [1_000_000, 'ln_third1'],
  ])('after %i frames played it is %s', (frames, expected) => {
    expect(lineAt(starts, frames)).toBe(expected)
  })

  it('is none before any line has audio', () => {
    expect(lineAt([], 10)).toBeNull()
    expect(lineAt([{ lineId: 'ln_later1', frame: 24_000 }], 100)).toBeNull()
  })
})
