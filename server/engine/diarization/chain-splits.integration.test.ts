import { beforeAll, describe, expect, it } from 'vitest'
import { concat } from '../../../core/concat.ts'
import { realSpeechAvailable, spokenDigits } from '../../testing/speakers.ts'
import { createPyannoteSegmenter } from '../segmentation/pyannote.ts'
import { createSpeakerEmbedder } from '../speaker/index.ts'
import { type ChainSplitOptions, splitChains } from './chain-splits.ts'
import type { LocalSpeakers } from './local-speakers.ts'
import { chainTracks } from './reidentify.ts'
import { SEGMENTATION_DEFAULTS } from './segmented.ts'
import { stitch } from './stitch.ts'

/**
 * One local speaker heard all through windows a second apart, as the model hears someone hand the floor to another in
 * the same slot: stitching makes it one chain, whoever talks.
 */
function oneSlot(audio: Float32Array): LocalSpeakers {
  const { frames, speakers, frameStep, frameDuration, windowSamples } = createPyannoteSegmenter()
  const step = Math.round(1 / frameStep)
  const count = Math.ceil((audio.length - windowSamples) / (step * frameStep * 16_000)) + 1
  const activity = Array.from({ length: count }, () => {
    const a = new Uint8Array(frames * speakers)
    for (let f = 0; f < frames; f++) a[f * speakers] = 1
    return a
  })
  return {
    segmenter: { frames, speakers, frameStep, frameDuration },
    frames: (count - 1) * step + frames,
    starts: activity.map((_, w) => w * step),
    activity,
  }
}

/** The chains holding a voice (silent local speakers are −1). */
const voices = (chains: Int32Array) => new Set([...chains].filter((c) => c >= 0))

/** The diarizer's own settings. */
const options = SEGMENTATION_DEFAULTS.split as ChainSplitOptions

describe.skipIf(!realSpeechAvailable())('cutting chains where the voice changes (real people)', () => {
  const embedder = createSpeakerEmbedder()
  let george: Float32Array
  let jackson: Float32Array

  beforeAll(async () => {
    george = await spokenDigits('george', [0, 1, 2])
    jackson = await spokenDigits('jackson', [0, 1, 2])
  })

  it('cuts a chain that George hands to Jackson, near the handover, and gives each piece its own part', () => {
    const audio = concat([george, jackson], Float32Array)
    const local = oneSlot(audio)
    const stitched = stitch(local, 0.3)
    expect(voices(stitched)).toEqual(new Set([0]))
    const { chains, ranges } = splitChains(audio, local, stitched, embedder, options)
    expect(voices(chains).size).toBe(2)
    // Windows whose middle lies well inside George's part are one piece, those well inside Jackson's the other.
    const handover = george.length / 16_000
    const k = local.segmenter.speakers
    const pieceAt = (seconds: number) => {
      const w = local.starts.findIndex((s) => s * local.segmenter.frameStep + 5 >= seconds)
      return chains[w * k]
    }
    expect(pieceAt(handover - 3)).not.toBe(pieceAt(handover + 3))
    const [, to] = ranges.get(pieceAt(handover - 3) as number) ?? [0, 0]
    expect(Math.abs(to * local.segmenter.frameStep - handover)).toBeLessThan(5)
    // The pieces' tracks do not share a frame of speech.
    const tracks = chainTracks(local, chains, 2, ranges)
    const heard = tracks.map(
      ({ start, heard: h }) => new Set([...h].flatMap((x, f) => (x ? [start + f] : []))),
    )
    expect([...(heard[0] as Set<number>)].some((g) => heard[1]?.has(g))).toBe(false)
  })

  it('keeps one voice, six sittings of it, in one chain', async () => {
    const audio = concat([george, await spokenDigits('george', [3, 4, 5])], Float32Array)
    const local = oneSlot(audio)
    const { chains, ranges } = splitChains(audio, local, stitch(local, 0.3), embedder, options)
    expect(voices(chains)).toEqual(new Set([0]))
    expect(ranges.size).toBe(0)
  })
})
