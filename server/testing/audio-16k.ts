/**
 * Test material for the speaker, VAD, screen and diarization tests: eSpeak NG speech at 16 kHz, and a synthetic
 * piece of music.
 */
import { resampleMono } from '../engine/codecs/decode-resample.ts'
import { OUTPUT_SAMPLE_RATE, type Synthesizer } from '../engine/synthesizer.ts'
import { spokenPcm } from './spoken-audio.ts'

export const TEST_RATE = 16_000

/** `text` spoken by a built-in voice, as 16 kHz float samples. */
export async function speak16k(synth: Synthesizer, voiceId: string, text: string): Promise<Float32Array> {
  const pcm = await spokenPcm(synth, text, voiceId)
  return resampleMono(
    Float32Array.from(pcm, (s) => s / 32768),
    OUTPUT_SAMPLE_RATE,
    TEST_RATE,
  )
}

export function silence(seconds: number): Float32Array {
  return new Float32Array(Math.round(seconds * TEST_RATE))
}

/**
 * Music-like audio: a I–V–vi–IV chord progression of harmonic tones (six partials each) over a bass note, one chord
 * a bar at 120 beats a minute, every beat struck again with a decaying envelope.
 */
export function synthesizeMusic(seconds: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * TEST_RATE))
  const progression = [
    [60, 64, 67],
    [67, 71, 74],
    [69, 72, 76],
    [65, 69, 72],
  ]
  const beat = 0.5
  const hz = (midi: number) => 440 * 2 ** ((midi - 69) / 12)
  for (let i = 0; i < out.length; i++) {
    const t = i / TEST_RATE
    const chord = progression[Math.floor(t / (4 * beat)) % progression.length] as number[]
    const envelope = 0.3 + 0.7 * Math.exp(-(t % beat) * 6)
    let sample = 0
    for (const note of [...chord, (chord[0] as number) - 24]) {
      for (let partial = 1; partial <= 6; partial++)
        sample += Math.sin(2 * Math.PI * hz(note) * partial * t) / partial ** 2
    }
    out[i] = 0.08 * envelope * sample
  }
  return out
}
