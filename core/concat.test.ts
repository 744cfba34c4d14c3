import { describe, expect, it } from 'vitest'
import { concat } from './concat.ts'

describe('concat', () => {
  it('joins parts end to end, in order', () => {
    const out = concat([Int16Array.of(1, 2), Int16Array.of(), Int16Array.of(3)], Int16Array)
    expect(out).toBeInstanceOf(Int16Array)
    expect(Array.from(out)).toEqual([1, 2, 3])
  })

  it('copies: the result shares no memory with its parts', () => {
    const part = Float32Array.of(0.5, -0.25)
    const out = concat([part], Float32Array)
    part[0] = 1
    expect(Array.from(out)).toEqual([0.5, -0.25])
  })

  it('reads subarrays from their own offset', () => {
    const whole = Uint8Array.of(9, 1, 2, 9, 3, 9)
    expect(Array.from(concat([whole.subarray(1, 3), whole.subarray(4, 5)], Uint8Array))).toEqual([1, 2, 3])
  })

  it('makes an empty array of the given kind from no parts', () => {
    const out = concat([], Float64Array)
    expect(out).toBeInstanceOf(Float64Array)
    expect(out.length).toBe(0)
  })
})
