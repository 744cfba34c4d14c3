import { explainError } from '../../api/error-text.ts'
import { ApiRequestError } from '../../api/http.ts'

/**
 * What a failed consent or voice request means, in plain words, and what to do next: the one explainer's words
 * (src/api/error-text.ts, which knows every code), said of what this form was doing, and the form field it is about,
 * for focusing it.
 */
export interface Failure {
  /** What went wrong. */
  what: string
  /** What to do next. */
  next: string
  /** The form field it is about, for focusing it. */
  field?: 'recording' | 'sample' | 'consent' | 'name' | 'language' | 'transcript'
}

export type FailureContext = 'consent' | 'voice' | 'revoke' | 'delete-voice' | 'load' | 'preview'

const ACTIONS: Record<FailureContext, string> = {
  consent: 'save the consent',
  voice: 'save the voice',
  revoke: 'revoke the consent',
  'delete-voice': 'delete the voice',
  load: 'load the list',
  preview: 'preview the voice',
}

/** The form field a code is about whatever its `param` says. */
const FIELD_OF_CODE: Record<string, Failure['field']> = {
  consent_phrase_mismatch: 'recording',
  recording_duration_out_of_range: 'recording',
  speaker_verification_failed: 'sample',
  recognition_unavailable: 'transcript',
  consent_not_found: 'consent',
}

/** Codes about the clip itself: its field when `param` names none (the recording of a consent, a voice's sample). */
const CLIP_CODES = new Set(['multiple_speakers', 'music_detected', 'invalid_audio', 'decoder_unavailable'])

/** The field a `param` from the service is about, in this form. */
function fieldOf(param: string | null, context: FailureContext): Failure['field'] {
  switch (param) {
    case 'recording':
      return 'recording'
    case 'audio_sample':
      return 'sample'
    case 'consent':
      return 'consent'
    case 'name':
      return 'name'
    case 'language':
      return 'language'
    case 'consent_transcript':
    case 'reference_transcript':
      return 'transcript'
    default:
      return context === 'consent' ? 'recording' : context === 'voice' ? 'sample' : undefined
  }
}

/** The field to focus: by the code when it decides, else by `param` for a refused value, a clip or a size. */
function fieldOfError(err: ApiRequestError, context: FailureContext): Failure['field'] {
  const byCode = err.code ? FIELD_OF_CODE[err.code] : undefined
  if (byCode) return byCode
  const clipOrValue =
    (err.code !== null && CLIP_CODES.has(err.code)) ||
    (err.code === null && (err.status === 400 || err.status === 413 || err.status === 422))
  return clipOrValue ? fieldOf(err.param, context) : undefined
}

export function describeFailure(err: unknown, context: FailureContext): Failure {
  const { title, action } = explainError(err, ACTIONS[context])
  if (!(err instanceof ApiRequestError)) return { what: title, next: action }
  const field = fieldOfError(err, context)
  // A value refused without a code (the service's `detail` validation) is the form's to correct.
  const next =
    field && err.code === null && (err.status === 400 || err.status === 422)
      ? `Correct the ${fieldLabel(field)} and send again.`
      : action
  return field ? { what: title, next, field } : { what: title, next }
}

function fieldLabel(field: NonNullable<Failure['field']>): string {
  return {
    recording: 'recording',
    sample: 'sample',
    consent: 'consent',
    name: 'name',
    language: 'language tag',
    transcript: 'transcript',
  }[field]
}

/** Whether a voice creation should be retried later (429 custom_voice_creation_busy). */
export function isCreationBusy(err: unknown): err is ApiRequestError {
  return err instanceof ApiRequestError && err.status === 429 && err.code === 'custom_voice_creation_busy'
}
