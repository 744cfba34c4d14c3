import { describe, expect, it } from 'vitest'
import { CubicResampler } from './cubic-resampler.ts'

function source(samples: Float32Array) {
  let i = 0
  return () => (i < samples.length ? samples[i++] : undefined)
}

const sine = (f: number, rate: number, n: number) =>
  Float32Array.from({ length: n }, (_, i) => Math.sin((2 * Math.PI * f * i) / rate))

/** Renders in 128-frame quanta, as the worklet does. */
function renderAll(r: CubicResampler, input: Float32Array, frames: number) {
  const next = source(input)
  const out = new Float32Array(frames)
  const quantum = new Float32Array(128)
  for (let o = 0; o < frames; o += 128) {
    const written = r.render(quantum, 0, next)
    out.set(quantum.subarray(0, Math.min(written, frames - o)), o)
    if (written < 128) return out.subarray(0, o + written)
  }
  return out
}

describe('CubicResampler (worklet, cubic)', () => {
  it('maps 24 kHz onto 48 kHz and 44.1 kHz at the right length', () => {
    const input = sine(440, 24_000, 24_000)
    expect(renderAll(new CubicResampler(24_000, 48_000), input, 100_000).length).toBeCloseTo(48_000, -1)
    expect(renderAll(new CubicResampler(24_000, 44_100), input, 100_000).length).toBeCloseTo(44_100, -1)
  })

  it('follows a sine closely, with no seam between render quanta', () => {
    const rate = 44_100
    const out = renderAll(new CubicResampler(24_000, rate), sine(440, 24_000, 24_000), 40_000)
    // The four-sample window puts output three source samples behind input.
    const delay = 3 * (rate / 24_000)
    let worst = 0
    for (let i = 200; i < 40_000; i++) {
      const expected = Math.sin((2 * Math.PI * 440 * (i - delay)) / rate)
      worst = Math.max(worst, Math.abs((out[i] ?? 0) - expected))
    }
    expect(worst).toBeLessThan(0.01)
  })

  it('stops where the source runs dry and resumes without losing its place', () => {
    const r = new CubicResampler(24_000, 48_000)
    const out = new Float32Array(128)
    const ramp = Float32Array.from({ length: 40 }, (_, i) => i / 40)
    const first = r.render(out, 0, source(ramp.subarray(0, 20)))
    expect(first).toBeLessThan(128)
    const second = r.render(out, first, source(ramp.subarray(20)))
    expect(second).toBeGreaterThan(first)
    // Linear input stays linear through a cubic: consecutive outputs step evenly, across the refill too.
    const steps = Array.from(out.subarray(8, second - 1)).map((v, i) => (out[8 + i + 1] ?? 0) - v)
    for (const s of steps) expect(s).toBeCloseTo(1 / 80, 5)
  })
})
