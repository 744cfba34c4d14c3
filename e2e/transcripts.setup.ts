import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { test as setup } from '@playwright/test'
import { concat } from '../core/concat.ts'
import { readWav } from '../core/wav.ts'
import { e2eMeetingMicWav } from '../playwright.config.ts'
import { meetingFile } from '../server/testing/meetings.ts'
import { spokenDigits, wav16k } from '../server/testing/speakers.ts'
import { floatToPcm16Wav } from '../server/wav.ts'

/**
 * The fake microphone of the transcripts tests: a real meeting excerpt (16 kHz mono 32-bit float) rewritten as 16-bit
 * PCM, which Chromium's fake capture reads. Written to the temporary directory, never into the repository.
 *
 * trn08, not trn01: trn01 holds under 6 s of quiet, far-field speech in its 30 s, and the service's voice activity
 * detector finds no speech in it at all (fed straight to /v1/realtime, raw or peak-normalized), so a live session on it
 * would never see a turn. trn08 has four people talking for most of the excerpt.
 */
export const MIC_SOURCE = meetingFile('trn08.wav')

setup('make the fake microphone from a real meeting recording', () => {
  const source = readFileSync(resolve(MIC_SOURCE))
  const wav = readWav(source)
  if (wav?.fmt?.formatTag !== 3 || wav.fmt.bitsPerSample !== 32) throw new Error('expected float32')
  const { channels, sampleRate: rate } = wav.fmt
  // A copy, aligned for Float32Array whatever the chunk's offset.
  const copy = wav.data
    ? Buffer.from(source.subarray(wav.data.offset, wav.data.offset + wav.data.bytes))
    : null
  const samples = copy && new Float32Array(copy.buffer, copy.byteOffset, Math.floor(copy.length / 4))
  if (!samples || channels !== 1) throw new Error(`${MIC_SOURCE} is not the mono float WAV expected`)
  writeFileSync(e2eMeetingMicWav, floatToPcm16Wav(samples, rate))
})

/**
 * Where the two-speaker recording is written: beside the fake microphone, in the temporary directory (the contract finds
 * it the same way; importing this file there would run these setups again).
 */
const twoSpeakersWav = (micWav: string): string => micWav.replace(/meeting-mic\.wav$/, 'two-speakers.wav')

/**
 * A two-speaker recording of real people: George and Jackson (FSDD, ../shared/data/speakers) taking turns, each
 * saying the ten digits (about 6 s a turn), a second of silence between turns: George, Jackson, George, Jackson.
 */
setup('join two real speakers taking turns into one recording', async () => {
  const rate = 16_000
  const pause = () => new Float32Array(rate)
  const parts: Float32Array[] = [new Float32Array(rate / 2)]
  for (const [take, speaker] of ['george', 'jackson', 'george', 'jackson'].entries())
    parts.push(await spokenDigits(speaker, [Math.floor(take / 2)]), pause())
  const samples = concat(parts, Float32Array)
  writeFileSync(twoSpeakersWav(e2eMeetingMicWav), wav16k(samples))
})
