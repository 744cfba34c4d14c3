import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { test as setup } from '@playwright/test'
import { e2eMeetingMicWav } from '../playwright.config.ts'
import { meetingFile } from '../server/testing/meetings.ts'
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
  let at = 12
  let rate = 0
  let channels = 0
  let samples: Float32Array | null = null
  while (at + 8 <= source.length) {
    const id = source.toString('ascii', at, at + 4)
    const size = source.readUInt32LE(at + 4)
    if (id === 'fmt ') {
      channels = source.readUInt16LE(at + 10)
      rate = source.readUInt32LE(at + 12)
      if (source.readUInt16LE(at + 8) !== 3 || source.readUInt16LE(at + 22) !== 32)
        throw new Error('expected float32')
    } else if (id === 'data') {
      const copy = Buffer.from(source.subarray(at + 8, at + 8 + size))
      samples = new Float32Array(copy.buffer, copy.byteOffset, Math.floor(copy.length / 4))
      break
    }
    at += 8 + size + (size % 2)
  }
  if (!samples || channels !== 1) throw new Error(`${MIC_SOURCE} is not the mono float WAV expected`)
  writeFileSync(e2eMeetingMicWav, floatToPcm16Wav(samples, rate))
})
