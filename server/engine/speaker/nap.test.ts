import { describe, expect, it } from 'vitest'
import { GMM_FEATURES } from './gmm.ts'
import { decodeDirections, encodeDirections, fitNap, projectOut } from './nap.ts'
import { SPEAKER_MODEL } from './speaker-model.ts'
import { SPEAKER_NAP } from './speaker-nap.ts'

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) =>
  Array.from(a).reduce((sum, x, i) => sum + x * (b[i] as number), 0)

/** A deterministic pseudo-random number in −1…1 (no Math.random: the test must say the same every run). */
function noise(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 31 - 1
  }
}

describe('nuisance attribute projection', () => {
  // Five speakers, each a fixed point; every recording adds a large shift along one "room" direction and small
  // noise. The within-speaker variation is then mostly that direction, which the fit must find.
  const dimension = 40
  const random = noise(7)
  const room = Float32Array.from({ length: dimension }, (_, d) => (d % 3 === 0 ? 1 : 0))
  const roomUnit = room.map((x) => x / Math.sqrt(dot(room, room)))
  const speakers: string[] = []
  const vectors: Float32Array[] = []
  for (let s = 0; s < 5; s++) {
    const centre = Float32Array.from({ length: dimension }, () => random())
    for (let r = 0; r < 6; r++) {
      const shift = 3 * random()
      vectors.push(centre.map((x, d) => x + shift * (room[d] as number) + 0.05 * random()))
      speakers.push(`speaker ${s}`)
    }
  }

  it('finds the direction in which one speaker varies most across recordings', () => {
    const [first] = fitNap(vectors, speakers, 1)
    expect(Math.abs(dot(first as Float32Array, roomUnit))).toBeGreaterThan(0.99)
  })

  it('returns orthonormal directions, and none from speakers with a single recording', () => {
    const directions = fitNap(vectors, speakers, 4)
    expect(directions).toHaveLength(4)
    for (const [i, u] of directions.entries())
      for (const [j, v] of directions.entries()) expect(dot(u, v)).toBeCloseTo(i === j ? 1 : 0, 5)
    expect(fitNap(vectors.slice(0, 3), ['a', 'b', 'c'], 2)).toEqual([])
  })

  it('removes the nuisance, so one speaker across rooms comes closer than two speakers', () => {
    const [direction] = fitNap(vectors, speakers, 1)
    const cosine = (a: Float32Array, b: Float32Array) => dot(a, b) / Math.sqrt(dot(a, a) * dot(b, b))
    // Recordings 0 and 5 of speaker 0 differ most in their room shift.
    const a = Float32Array.from(vectors[0] as Float32Array)
    const b = Float32Array.from(vectors[5] as Float32Array)
    const before = cosine(a, b)
    projectOut(a, [direction as Float32Array])
    projectOut(b, [direction as Float32Array])
    expect(dot(a, direction as Float32Array)).toBeCloseTo(0, 5)
    expect(cosine(a, b)).toBeGreaterThan(before)
    expect(cosine(a, b)).toBeGreaterThan(0.99)
  })

  it('stores directions in 8 bits and restores them orthonormal and close to the originals', () => {
    const directions = fitNap(vectors, speakers, 3)
    const restored = decodeDirections(encodeDirections(directions))
    expect(restored).toHaveLength(3)
    for (const [i, u] of restored.entries()) {
      expect(dot(u, u)).toBeCloseTo(1, 5)
      expect(dot(u, directions[i] as Float32Array)).toBeGreaterThan(0.999)
    }
  })

  it('ships orthonormal directions over the background model’s supervector', () => {
    expect(SPEAKER_NAP.length).toBeGreaterThan(0)
    for (const [i, u] of SPEAKER_NAP.entries()) {
      expect(u).toHaveLength(SPEAKER_MODEL.weights.length * GMM_FEATURES)
      for (const [j, v] of SPEAKER_NAP.entries()) expect(dot(u, v)).toBeCloseTo(i === j ? 1 : 0, 4)
    }
  })
})
