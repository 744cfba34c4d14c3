import { describe, expect, it } from 'vitest'
import { ENGINE_RATE } from './pcm-input.ts'
import { changeCheckDue, confirmedChange } from './speaker-change.ts'

const S = ENGINE_RATE

describe('changeCheckDue', () => {
  it('waits for a 2 s turn and half a second of new speech, then looks at the latest 10 s', () => {
    expect(changeCheckDue({ start: 0, checkedAt: 0, candidate: null }, 1.9 * S)).toBeNull()
    expect(changeCheckDue({ start: 0, checkedAt: 0, candidate: null }, 2 * S)).toEqual({ from: 0 })
    expect(changeCheckDue({ start: 0, checkedAt: 11.7 * S, candidate: null }, 12 * S)).toBeNull()
    expect(changeCheckDue({ start: 0, checkedAt: 11.5 * S, candidate: null }, 12 * S)).toEqual({
      from: 2 * S,
    })
  })
})

describe('confirmedChange', () => {
  it('cuts only when two checks in a row place the change within a second', () => {
    const turn = { start: 0, checkedAt: 0, candidate: null }
    expect(confirmedChange(turn, 2 * S, 10 * S, 5)).toBeNull()
    expect(turn.candidate).toBe(7 * S)
    expect(confirmedChange(turn, 2.5 * S, 10.5 * S, 4.6)).toBe(7.1 * S)
  })

  it('distrusts a change in the first second of the stretch, and forgets a candidate not seen again', () => {
    const turn = { start: 0, checkedAt: 0, candidate: (7 * S) as number | null }
    expect(confirmedChange(turn, 6 * S, 14 * S, 0.5)).toBeNull()
    expect(turn.candidate).toBeNull()
    expect(confirmedChange(turn, 6 * S, 14 * S, null)).toBeNull()
    expect(confirmedChange(turn, 6 * S, 14 * S, 3)).toBeNull()
    expect(confirmedChange(turn, 7 * S, 15 * S, 5)).toBeNull()
    expect(turn.candidate).toBe(12 * S)
  })
})
