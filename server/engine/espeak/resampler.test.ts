import { describe, expect, it } from 'vitest'
import { concat } from '../../../core/concat.ts'
import { StreamResampler } from './resampler.ts'

function sine(frequency: number, rate: number, frames: number, amplitude = 0.5): Int16Array {
  return Int16Array.from({ length: frames }, (_, i) =>
    Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * frequency * i) / rate)),
  )
}

/** Estimated frequency from zero crossings, ignoring the filter's start-up. */
function frequencyOf(samples: Int16Array, rate: number): number {
  let crossings = 0
  const start = 500
  for (let i = start + 1; i < samples.length; i++) {
    if ((samples[i - 1] ?? 0) < 0 !== (samples[i] ?? 0) < 0) crossings++
  }
  return (crossings / 2) * (rate / (samples.length - start))
}

describe('StreamResampler', () => {
  it('turns 22,050 Hz into exactly round(n × 24000/22050) frames across uneven chunks', async () => {
    const r = await StreamResampler.create(22_050, 24_000)
    const input = sine(440, 22_050, 22_050)
    const parts: Int16Array[] = []
    for (let i = 0; i < input.length; i += 2206 + (i % 7))
      parts.push(r.push(input.subarray(i, i + 2206 + (i % 7))))
    parts.push(r.flush())
    r.close()
    const total = parts.reduce((n, p) => n + p.length, 0)
    expect(total).toBe(24_000)
  })

  it('keeps pitch and level', async () => {
    const r = await StreamResampler.create(22_050, 24_000)
    const parts = [r.push(sine(440, 22_050, 11_025)), r.push(sine(440, 22_050, 11_025)), r.flush()]
    r.close()
    const out = concat(parts, Int16Array)
    // The two halves join without a phase jump only because the filter state carries across pushes.
    expect(frequencyOf(out.subarray(0, 23_000), 24_000)).toBeCloseTo(440, -1)
    const peak = out.subarray(1000, 23_000).reduce((m, s) => Math.max(m, Math.abs(s)), 0)
    expect(peak / 32767).toBeGreaterThan(0.45)
    expect(peak / 32767).toBeLessThan(0.55)
  })

  it('returns nothing for an empty push', async () => {
    const r = await StreamResampler.create(22_050, 24_000)
    expect(r.push(new Int16Array(0))).toHaveLength(0)
    expect(r.flush()).toHaveLength(0)
    r.close()
  })
})
