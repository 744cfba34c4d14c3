/** Test audio: sentences spoken by the project's eSpeak engine, at the recognizer's rate. */

import { concat } from '../../../core/concat.ts'
import { resampleMono } from '../codecs/decode-resample.ts'
import { OUTPUT_SAMPLE_RATE, type Synthesizer, type VoiceParams } from '../synthesizer.ts'
import { RECOGNITION_SAMPLE_RATE } from './recognizer.ts'

/** eSpeak's Klatt voices are the ones PocketSphinx recognizes best (docs/recognition.md). */
export const KLATT_VOICE: VoiceParams = { espeakVoice: 'en-us+klatt3', pitch: 50, range: 50, rate: 150 }

/** `text` spoken by `voice`, 16 kHz float, with `paddingSeconds` of silence on each side as in a recording. */
export async function speak16k(
  synth: Synthesizer,
  text: string,
  voice: VoiceParams = KLATT_VOICE,
  paddingSeconds = 0.5,
): Promise<Float32Array> {
  const chunks: Int16Array[] = []
  for await (const chunk of synth.synthesize({ text, voice, speed: 1 })) chunks.push(chunk)
  const speech = new Float32Array(chunks.reduce((n, c) => n + c.length, 0))
  let offset = 0
  for (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) speech[offset + i] = (chunk[i] as number) / 32768
    offset += chunk.length
  }
  const resampled = await resampleMono(speech, OUTPUT_SAMPLE_RATE, RECOGNITION_SAMPLE_RATE)
  const pad = Math.round(paddingSeconds * RECOGNITION_SAMPLE_RATE)
  const padded = new Float32Array(resampled.length + 2 * pad)
  padded.set(resampled, pad)
  return padded
}

/** Concatenates recordings, for longer test audio. */
export function joinAudio(parts: readonly Float32Array[]): Float32Array {
  return concat(parts, Float32Array)
}
