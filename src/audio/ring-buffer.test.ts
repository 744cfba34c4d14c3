import { describe, expect, it } from 'vitest'
import { RingBuffer } from './ring-buffer.ts'

const drain = (ring: RingBuffer) => {
  const out: number[] = []
  for (let s = ring.shift(); s !== undefined; s = ring.shift()) out.push(s)
  return out
}

describe('RingBuffer', () => {
  it('returns samples in order across the wrap-around', () => {
    const ring = new RingBuffer(5)
    expect(ring.write(Float32Array.of(1, 2, 3))).toBe(3)
    expect([ring.shift(), ring.shift()]).toEqual([1, 2])
    expect(ring.write(Float32Array.of(4, 5, 6, 7))).toBe(4)
    expect(ring.available).toBe(5)
    expect(drain(ring)).toEqual([3, 4, 5, 6, 7])
  })

  it('accepts only what fits and never overwrites unread samples', () => {
    const ring = new RingBuffer(4)
    expect(ring.write(Float32Array.of(1, 2, 3, 4, 5, 6))).toBe(4)
    expect(ring.space).toBe(0)
    expect(ring.write(Float32Array.of(9))).toBe(0)
    expect(drain(ring)).toEqual([1, 2, 3, 4])
  })

  it('is empty after clear and reports undefined when empty', () => {
    const ring = new RingBuffer(3)
    ring.write(Float32Array.of(1, 2))
    ring.clear()
    expect(ring.available).toBe(0)
    expect(ring.shift()).toBeUndefined()
    expect(ring.space).toBe(3)
  })

  it('peeks across the wrap-around without removing anything', () => {
    const ring = new RingBuffer(5)
    ring.write(Float32Array.of(1, 2, 3, 4))
    ring.shift()
    ring.shift()
    ring.write(Float32Array.of(5, 6, 7))
    const into = new Float32Array(4)
    expect(ring.peek(into)).toBe(4)
    expect([...into]).toEqual([3, 4, 5, 6])
    expect(ring.peek(new Float32Array(9))).toBe(5)
    expect(drain(ring)).toEqual([3, 4, 5, 6, 7])
  })
})
