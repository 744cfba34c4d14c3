import { z } from 'zod'

/** Saved voices and consents (contract 2.3, 2.5, 4.3–4.8), shared by the service, the backend and the studio. */

/** The sentence a voice owner must say in the consent recording (4.6). */
export const CONSENT_PHRASE =
  'I am the owner of this voice and I consent to its use to create a synthetic voice.'

export const CONSENT_MIN_SECONDS = 2
export const CONSENT_MAX_SECONDS = 30
/** One-request reference upload (contract 8). */
export const MAX_REFERENCE_BYTES = 10 * 1024 * 1024
/** Upload sizes the contract leaves open (8): the one-request reference limit, applied to both uploads. */
export const CONSENT_RECORDING_MAX_BYTES = MAX_REFERENCE_BYTES
export const VOICE_SAMPLE_MAX_BYTES = MAX_REFERENCE_BYTES
/** A saved voice's sample: enough speech to measure the speaker, short enough to prepare in seconds. */
export const VOICE_SAMPLE_MIN_SECONDS = 1
export const VOICE_SAMPLE_MAX_SECONDS = 120
export const NAME_MAX_CHARS = 256
export const CONSENT_LIST_MAX = 100

export const consentIdPattern = /^cons_[0-9a-f]{32}$/
export const savedVoiceIdPattern = /^voice_[0-9a-f]{32}$/

/**
 * A language tag of the form the contract shows (`xx` or `xx-XX`, language and optional region), checked by the
 * platform's BCP 47 parser and returned in canonical case; null when it is not one.
 */
export function canonicalLanguageTag(tag: string): string | null {
  if (!/^[A-Za-z]{2,3}(-[A-Za-z]{2}|-[0-9]{3})?$/.test(tag)) return null
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null
  } catch {
    return null
  }
}

/**
 * Words of a transcript as the phrase check compares them: lower case, apostrophes and other punctuation dropped,
 * the contractions a reader may say ("I'm", "it's") expanded, digits left as they are.
 */
export function phraseWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\bi'm\b/g, 'i am')
    .replace(/\bit's\b/g, 'it is')
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean)
}

/** A supplied consent transcript must be the phrase itself, word for word after normalization. */
export const isConsentPhrase = (transcript: string) =>
  phraseWords(transcript).join(' ') === phraseWords(CONSENT_PHRASE).join(' ')

export const voiceConsentSchema = z.object({
  id: z.string().regex(consentIdPattern),
  object: z.literal('audio.voice_consent'),
  name: z.string(),
  language: z.string(),
  created_at: z.number().int(),
})
export type VoiceConsent = z.infer<typeof voiceConsentSchema>

export const consentListSchema = z.object({
  object: z.literal('list'),
  data: z.array(voiceConsentSchema),
  has_more: z.boolean(),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
})
export type ConsentList = z.infer<typeof consentListSchema>

export const savedVoiceSchema = z.object({
  id: z.string().regex(savedVoiceIdPattern),
  object: z.literal('audio.voice'),
  name: z.string(),
  created_at: z.number().int(),
})
export type SavedVoice = z.infer<typeof savedVoiceSchema>

export const deletionSchema = z.object({
  id: z.string(),
  deleted: z.literal(true),
  object: z.enum(['audio.voice', 'audio.voice_consent']),
})
export type Deletion = z.infer<typeof deletionSchema>

export const consentListQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(CONSENT_LIST_MAX).optional(),
    after: z.string().regex(consentIdPattern, 'after must be a consent id (cons_…)').optional(),
  })
  .strict()
