import { builtinVoiceLanguage } from '../../../schema/index.ts'
import { type VoiceParams, voiceParamsFor } from '../../engine/index.ts'
import { ApiError, voiceNotFound } from '../errors.ts'
import type { VoiceService } from './voice-service.ts'

/** A voice as the engine speaks it: eSpeak parameters and the language that decides normalization. */
export interface SpeakingVoice {
  params: VoiceParams
  language: string
}

export type RequestedVoice = { kind: 'builtin'; id: string } | { kind: 'saved'; id: string }

/** Built-in ids from the catalog; saved ids from the owner's store (prepared again if the engine changed). */
export async function speakingVoice(
  voices: VoiceService,
  owner: string,
  voice: RequestedVoice,
): Promise<SpeakingVoice> {
  if (voice.kind === 'builtin') {
    const params = voiceParamsFor(voice.id)
    if (!params) throw voiceNotFound()
    return { params, language: builtinVoiceLanguage(voice.id) ?? 'en-US' }
  }
  const prepared = await voices.prepared(owner, voice.id)
  if ('retryAfterSeconds' in prepared) {
    throw new ApiError(
      503,
      'envelope',
      'The voice is being prepared for the current engine. Retry after the Retry-After delay.',
      'voice_preparing',
      'voice',
      'server_error',
      { 'retry-after': String(prepared.retryAfterSeconds) },
    )
  }
  return prepared
}
