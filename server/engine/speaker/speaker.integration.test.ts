import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadMeetings, MEETINGS_DIR } from '../../../bench/eval-diarization.ts'
import { concat } from '../../../core/concat.ts'
import { silence, speak16k, synthesizeMusic } from '../../testing/audio-16k.ts'
import { joinClips, realSpeechAvailable, spokenDigits } from '../../testing/speakers.ts'
import { createEspeakSynthesizer } from '../espeak/pool.ts'
import type { Synthesizer } from '../synthesizer.ts'
import {
  cosineSimilarity,
  createSpeakerEmbedder,
  DEFAULT_VERIFICATION_THRESHOLD,
  screenRecording,
} from './index.ts'

const FIRST = 'I agree that my voice may be recorded and used to create a synthetic voice for this project.'
const SECOND = 'The weather was fine all week, so we walked to the harbour every evening after dinner.'

let synth: Synthesizer
const clips: Record<string, Float32Array> = {}

beforeAll(async () => {
  synth = await createEspeakSynthesizer({ workers: 1 })
  for (const voice of ['captain_01', 'announcer_09', 'english_40']) {
    clips[`${voice}:first`] = await speak16k(synth, voice, FIRST)
    clips[`${voice}:second`] = await speak16k(synth, voice, SECOND)
  }
}, 120_000)
afterAll(() => synth.close())

const clip = (key: string) => clips[key] as Float32Array

describe('speaker embedder', () => {
  const embedder = createSpeakerEmbedder()

  it('has nothing to say about silence or a fraction of a second', () => {
    expect(embedder.embed(silence(3))).toBeNull()
    expect(embedder.embed(clip('captain_01:first').subarray(0, 8000))).toBeNull()
  })

  it('scores one voice saying different things above two voices saying the same', () => {
    const embed = (key: string) => embedder.embed(clip(key)) as Float32Array
    expect(embed('captain_01:first')).toHaveLength(embedder.dimension)
    const same = cosineSimilarity(embed('captain_01:first'), embed('captain_01:second'))
    const different = cosineSimilarity(embed('captain_01:first'), embed('announcer_09:first'))
    expect(same).toBeGreaterThan(DEFAULT_VERIFICATION_THRESHOLD)
    expect(different).toBeLessThan(same)
  })
})

describe('screenRecording', () => {
  it('passes one voice: its speech, one speaker, no music', () => {
    const screen = screenRecording(
      concat([silence(0.5), clip('captain_01:first'), silence(0.5)], Float32Array),
    )
    expect(screen.speakers).toBe(1)
    expect(screen.music).toBe(false)
    expect(screen.speechSeconds).toBeGreaterThan(clip('captain_01:first').length / 16_000 - 1)
  })

  it('hears one voice over half a minute as one speaker', () => {
    const long = concat(
      ['first', 'second', 'first', 'second', 'first', 'second'].map((part) => clip(`english_40:${part}`)),
      Float32Array,
    )
    expect(long.length / 16_000).toBeGreaterThan(25)
    expect(screenRecording(long).speakers).toBe(1)
  })

  it('counts two voices taking turns', () => {
    const dialogue = concat(
      [
        clip('captain_01:first'),
        silence(0.4),
        clip('announcer_09:first'),
        silence(0.4),
        clip('captain_01:second'),
      ],
      Float32Array,
    )
    expect(screenRecording(dialogue).speakers).toBe(2)
  })

  it('flags music', () => {
    expect(screenRecording(synthesizeMusic(8)).music).toBe(true)
  })

  it.skipIf(!existsSync(join(MEETINGS_DIR, 'train.rttm')))(
    'hears no music in real meetings, and two real people one after the other',
    async () => {
      const screens = (await loadMeetings()).map((m) => screenRecording(m.audio))
      expect(screens.every((s) => !s.music)).toBe(true)
      // Whole meetings are busy (three or four people in 30 s, often at once): the window clusters mix voices, so
      // the screen is measured on clean turns instead (bench/voices-real.ts).
      if (!realSpeechAvailable()) return
      const two = joinClips([await spokenDigits('jackson', [7]), await spokenDigits('nicolas', [7])], 0.3)
      expect(screenRecording(two).speakers).toBe(2)
      expect(screenRecording(await spokenDigits('jackson', [7, 8])).speakers).toBe(1)
    },
    120_000,
  )
})
