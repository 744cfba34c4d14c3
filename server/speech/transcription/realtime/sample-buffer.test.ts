import { describe, expect, it } from 'vitest'
import { SampleBuffer } from './sample-buffer.ts'

const ramp = (from: number, n: number) => Float32Array.from({ length: n }, (_, i) => from + i)

describe('SampleBuffer', () => {
  it('addresses audio on the session clock across the chunks it arrived in', () => {
    const buffer = new SampleBuffer()
    buffer.push(ramp(0, 3))
    buffer.push(new Float32Array(0))
    buffer.push(ramp(3, 4))
    expect([buffer.start, buffer.length, buffer.end]).toEqual([0, 7, 7])
    expect([...buffer.peek(2, 5)]).toEqual([2, 3, 4])
    // Peeking keeps the audio; out-of-range parts are left out.
    expect([...buffer.peek(5, 99)]).toEqual([5, 6])
    expect(buffer.length).toBe(7)
  })

  it('takes a range and drops everything before its end, keeping the clock', () => {
    const buffer = new SampleBuffer()
    buffer.push(ramp(0, 4))
    buffer.push(ramp(4, 4))
    expect([...buffer.take(1, 6)]).toEqual([1, 2, 3, 4, 5])
    expect([buffer.start, buffer.length, buffer.end]).toEqual([6, 2, 8])
    // What was dropped cannot be read again.
    expect([...buffer.peek(0, 8)]).toEqual([6, 7])
    buffer.push(ramp(8, 2))
    expect([...buffer.take(0, 99)]).toEqual([6, 7, 8, 9])
    expect([buffer.start, buffer.length, buffer.end]).toEqual([10, 0, 10])
  })

  it('drops part of a chunk', () => {
    const buffer = new SampleBuffer()
    buffer.push(ramp(0, 10))
    buffer.dropBefore(3)
    expect([buffer.start, buffer.length]).toEqual([3, 7])
    expect([...buffer.peek(3, 5)]).toEqual([3, 4])
  })
})
