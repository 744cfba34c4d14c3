import { describe, expect, it } from 'vitest'
import { ENGINE_RATE } from './pcm-input.ts'
import { changeCheckDue, confirmedChange } from './speaker-change.ts'

const S = ENGINE_RATE

describe('changeCheckDue', () => {
  it('waits for a long enough turn and a second of new speech, then looks at the latest 8 s', () => {
    expect(changeCheckDue({ start: 0, checkedAt: 0, candidate: null }, 6 * S)).toBeNull()
    expect(changeCheckDue({ start: 0, checkedAt: 0, candidate: null }, 7 * S)).toEqual({ from: 0 })
    expect(changeCheckDue({ start: 0, checkedAt: 9.5 * S, candidate: null }, 10 * S)).toBeNull()
    expect(changeCheckDue({ start: 0, checkedAt: 9 * S, candidate: null }, 10 * S)).toEqual({ from: 2 * S })
  })
})

describe('confirmedChange', () => {
  it('cuts only when two checks in a row place the change within a second', () => {
    const turn = { start: 0, checkedAt: 0, candidate: null }
    expect(confirmedChange(turn, 2 * S, 10 * S, 5)).toBeNull()
    expect(turn.candidate).toBe(7 * S)
    expect(confirmedChange(turn, 3 * S, 11 * S, 4.5)).toBe(7.5 * S)
  })

  it('distrusts a change in the first 2 s of the stretch, and forgets a candidate not seen again', () => {
    const turn = { start: 0, checkedAt: 0, candidate: (7 * S) as number | null }
    expect(confirmedChange(turn, 6 * S, 14 * S, 1)).toBeNull()
    expect(turn.candidate).toBeNull()
    expect(confirmedChange(turn, 6 * S, 14 * S, null)).toBeNull()
    expect(confirmedChange(turn, 6 * S, 14 * S, 3)).toBeNull()
    expect(confirmedChange(turn, 7 * S, 15 * S, 5)).toBeNull()
    expect(turn.candidate).toBe(12 * S)
  })
})
