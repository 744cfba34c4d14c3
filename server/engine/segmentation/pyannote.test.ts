import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  createPyannoteSegmenter,
  decodePowerset,
  PYANNOTE_MODEL_PATH,
  SegmentationModelError,
} from './pyannote.ts'

const dir = mkdtempSync(join(tmpdir(), 'segmenter-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Log-probabilities of one frame favouring `best` of the seven powerset classes (and `second` after it). */
function frame(best: number, second: number): number[] {
  return Array.from({ length: 7 }, (_, c) => Math.log(c === best ? 0.6 : c === second ? 0.3 : 0.02))
}

describe('powerset decoding', () => {
  it('maps each class to its speakers, overlap included, and the best speech class where nobody is heard', () => {
    // nobody (then {2}), speaker 1, speakers {1,3}, speakers {2,3}
    const logp = Float32Array.from([...frame(0, 2), ...frame(1, 0), ...frame(5, 0), ...frame(6, 0)])
    const { active, activeIfSpeech } = decodePowerset(logp, 4)
    expect([...active]).toEqual([0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1])
    expect([...activeIfSpeech]).toEqual([0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1, 1])
  })

  it('counts the speakers of a frame by the median of the count, then takes the likeliest class with that count', () => {
    const probabilities = [
      // Nobody is the likeliest class, but speech is likelier than not: speaker 1.
      [0.4, 0.25, 0.2, 0.15, 0, 0, 0],
      // Speaker 1 is the likeliest class, but two speakers are likelier than one or none: {1,2}.
      [0.02, 0.4, 0.02, 0.02, 0.3, 0.24, 0],
    ]
    const logp = Float32Array.from(probabilities.flat().map((x) => Math.log(x)))
    expect([...decodePowerset(logp, 2).active]).toEqual([1, 0, 0, 1, 1, 0])
  })
})

describe('pyannote segmentation model', () => {
  it('hears nobody in silence, and answers 589 frames of 3 local speakers for each window, in order', async () => {
    const segmenter = createPyannoteSegmenter()
    const silence = new Float32Array(segmenter.windowSamples)
    const decoded = await segmenter.segment([silence, new Float32Array(100), silence])
    expect(decoded).toHaveLength(3)
    for (const { active, activeIfSpeech } of decoded) {
      expect(active).toHaveLength(589 * 3)
      expect(active.every((x) => x === 0)).toBe(true)
      // Given speech, some speaker in every frame.
      for (let f = 0; f < 589; f++)
        expect(activeIfSpeech.subarray(f * 3, f * 3 + 3).some((x) => x === 1)).toBe(true)
    }
  })

  it('refuses a missing or damaged model file with a SegmentationModelError, naming what is wrong', async () => {
    await expect(createPyannoteSegmenter({ modelPath: join(dir, 'absent.onnx') }).load()).rejects.toThrow(
      /cannot be read \(ENOENT\)/,
    )
    const bytes = readFileSync(PYANNOTE_MODEL_PATH)
    bytes[1000] = (bytes[1000] as number) ^ 1
    writeFileSync(join(dir, 'damaged.onnx'), bytes)
    const damaged = createPyannoteSegmenter({ modelPath: join(dir, 'damaged.onnx') })
    await expect(damaged.load()).rejects.toThrow(SegmentationModelError)
    await expect(damaged.segment([new Float32Array(10)])).rejects.toThrow(/damaged \(SHA-256/)
  })
})
