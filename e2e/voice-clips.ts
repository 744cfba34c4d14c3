import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { concat } from '../core/concat.ts'
import { CONSENT_PHRASE } from '../schema/index.ts'
import { createEspeakSynthesizer, OUTPUT_SAMPLE_RATE } from '../server/engine/index.ts'
import { spokenPcm, wavFile } from '../server/testing/spoken-audio.ts'

/**
 * The audio the voices e2e test feeds Chromium's fake microphone and its file inputs, made at test time (never
 * committed): the consent phrase spoken by the project's own eSpeak NG engine with silence around it, a voice sample
 * of the same eSpeak voice saying other sentences, and a sample of a clearly different voice. 16-bit PCM mono WAV
 * at 24 kHz.
 *
 * Run by the voices-setup project (e2e/voices.setup.ts) through tsx, or by hand: `npx tsx e2e/voice-clips.ts DIR`.
 */

export const CLIP_FILES = {
  /** The fake microphone: 1 s of silence, the phrase, then silence long enough for the test to stop in. */
  microphone: 'consent-phrase.wav',
  /** The phrase as a file to upload: half a second of silence around it, as a recording would have. */
  consent: 'consent-upload.wav',
  /** The same speaker as the consent, other words. */
  sameSpeaker: 'sample-same-speaker.wav',
  /** Another speaker altogether. */
  otherSpeaker: 'sample-other-speaker.wav',
} as const

/** The consent's voice: the studio's plain US English voice (the service's own voice tests speak with it too). */
const OWNER = 'english_40'
/**
 * Another speaker: the catalog's robot voice (eSpeak's Klatt synthesizer, flat pitch), the eSpeak voice farthest from
 * the owner for the service's speaker embedder (cosine similarity about 0.3 against a threshold of 0.45, where a
 * meeting recording of a real person still scores about 0.55).
 */
const STRANGER = 'robot_03'

const SAME_SPEAKER_TEXT =
  'The morning train was late again, so I walked along the river to the office. ' +
  'It was a bright and quiet day, and the water was calm. I stopped for coffee and read the news.'
const OTHER_SPEAKER_TEXT =
  'Welcome aboard! Please keep your seatbelts fastened while the sign is on. ' +
  'We will be landing shortly, and the weather at our destination is sunny and warm.'

function silence(seconds: number): Int16Array {
  return new Int16Array(Math.round(seconds * OUTPUT_SAMPLE_RATE))
}

/** Writes the clips into `dir`; returns the phrase's length in seconds (the test records a little longer). */
export async function makeVoiceClips(dir: string): Promise<{ phraseSeconds: number }> {
  mkdirSync(dir, { recursive: true })
  const synth = await createEspeakSynthesizer({ workers: 1 })
  try {
    const phrase = await spokenPcm(synth, CONSENT_PHRASE, OWNER)
    writeFileSync(
      join(dir, CLIP_FILES.microphone),
      wavFile(concat([silence(1), phrase, silence(14)], Int16Array)),
    )
    writeFileSync(
      join(dir, CLIP_FILES.consent),
      wavFile(concat([silence(0.5), phrase, silence(0.5)], Int16Array)),
    )
    const same = await spokenPcm(synth, SAME_SPEAKER_TEXT, OWNER)
    writeFileSync(
      join(dir, CLIP_FILES.sameSpeaker),
      wavFile(concat([silence(0.3), same, silence(0.3)], Int16Array)),
    )
    const other = await spokenPcm(synth, OTHER_SPEAKER_TEXT, STRANGER)
    writeFileSync(
      join(dir, CLIP_FILES.otherSpeaker),
      wavFile(concat([silence(0.3), other, silence(0.3)], Int16Array)),
    )
    const phraseSeconds = phrase.length / OUTPUT_SAMPLE_RATE
    writeFileSync(join(dir, 'clips.json'), JSON.stringify({ phraseSeconds }))
    return { phraseSeconds }
  } finally {
    await synth.close()
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) {
  const dir = process.argv[2]
  if (!dir) throw new Error('usage: tsx e2e/voice-clips.ts DIR')
  const { phraseSeconds } = await makeVoiceClips(dir)
  console.log(`clips written to ${dir} (phrase ${phraseSeconds.toFixed(1)} s)`)
}
