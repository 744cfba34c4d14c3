import { CONSENT_PHRASE } from '../../schema/index.ts'
import { createEspeakSynthesizer, type Synthesizer } from '../engine/index.ts'
import { spokenPcm, wavFile } from './spoken-audio.ts'

/**
 * A real consent and a saved voice bound to it, made at the real local service from eSpeak speech (the consent
 * phrase, then a sample of the same built-in voice, so speaker verification passes). The phrase is also sent as
 * `consent_transcript`, so no recognizer is needed.
 */
export interface VoiceRecordings {
  consent: Buffer
  sample: Buffer
  close(): Promise<void>
}

export async function voiceRecordings(): Promise<VoiceRecordings> {
  const synth: Synthesizer = await createEspeakSynthesizer({ workers: 1 })
  const pad = new Int16Array(12_000)
  const phrase = await spokenPcm(synth, CONSENT_PHRASE, 'english_40')
  const consent = wavFile(Int16Array.from([...pad, ...phrase, ...pad]))
  const sample = wavFile(
    await spokenPcm(
      synth,
      'The weather today is bright and calm, and the river runs slowly past the mill.',
      'english_40',
    ),
  )
  return { consent, sample, close: () => synth.close() }
}

/** Where to create them: the service itself (`/v1`, its key) or a studio (`/api/v1`, a consent admin's headers). */
export interface VoiceTarget {
  /** `http://…/v1` or `http://…/api/v1`. */
  base: string
  headers: Record<string, string>
}

function form(fields: Record<string, string>, files: Record<string, Buffer>): FormData {
  const body = new FormData()
  for (const [k, v] of Object.entries(fields)) body.append(k, v)
  for (const [k, v] of Object.entries(files)) body.append(k, new Blob([new Uint8Array(v)]), `${k}.wav`)
  return body
}

async function post(target: VoiceTarget, path: string, body: FormData): Promise<{ id: string }> {
  const res = await fetch(`${target.base}${path}`, { method: 'POST', headers: target.headers, body })
  const json = (await res.json()) as { id?: string }
  if (res.status !== 200 || typeof json.id !== 'string')
    throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`)
  return { id: json.id }
}

/** A consent and one voice bound to it; returns both ids. */
export async function createSavedVoice(
  target: VoiceTarget,
  audio: VoiceRecordings,
  name = 'Ada',
): Promise<{ consent: string; voice: string }> {
  const consent = await post(
    target,
    '/audio/voice_consents',
    form({ name, language: 'en-US', consent_transcript: CONSENT_PHRASE }, { recording: audio.consent }),
  )
  const voice = await post(
    target,
    '/audio/voices',
    form({ name: `${name} narrator`, consent: consent.id }, { audio_sample: audio.sample }),
  )
  return { consent: consent.id, voice: voice.id }
}

/** Another voice bound to an existing consent. */
export async function createVoiceOf(
  target: VoiceTarget,
  audio: VoiceRecordings,
  consent: string,
  name: string,
) {
  return (await post(target, '/audio/voices', form({ name, consent }, { audio_sample: audio.sample }))).id
}

export function remove(target: VoiceTarget, path: string) {
  return fetch(`${target.base}${path}`, { method: 'DELETE', headers: target.headers })
}
