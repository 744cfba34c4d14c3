import { concat } from '../../core/concat.ts'
import { builtinVoiceLanguage } from '../../schema/index.ts'
import { type Synthesizer, speak, voiceParamsFor } from '../engine/index.ts'
import { pcmBytes, wavHeader } from '../speech/synthesis/audio-out.ts'

/** Real speech for tests that need a voice: the project's eSpeak engine speaking `text` with a built-in voice. */
export async function spokenPcm(
  synth: Synthesizer,
  text: string,
  voiceId = 'english_40',
): Promise<Int16Array> {
  const voice = voiceParamsFor(voiceId)
  if (!voice) throw new Error(`${voiceId} is not a built-in voice`)
  const chunks: Int16Array[] = []
  const language = builtinVoiceLanguage(voiceId) ?? 'en-US'
  for await (const c of speak(synth, {
    text,
    voice,
    language,
    speed: 1,
    markup: false,
    maxNewTokens: null,
  })) {
    chunks.push(c)
  }
  return concat(chunks, Int16Array)
}

/** 24 kHz mono PCM16 samples, padded or cut to exactly `seconds` when given. */
export function fitToSeconds(pcm: Int16Array, seconds: number): Int16Array {
  const out = new Int16Array(Math.round(seconds * 24_000))
  out.set(pcm.subarray(0, out.length))
  return out
}

/** A complete WAV file of 24 kHz mono PCM16. */
export function wavFile(pcm: Int16Array): Buffer {
  return Buffer.concat([wavHeader(pcm.byteLength), pcmBytes(pcm)])
}
