import {
  CONSENT_MAX_SECONDS,
  CONSENT_MIN_SECONDS,
  formatBytes,
  VOICE_SAMPLE_MAX_BYTES,
} from '../../../schema/index.ts'
import { clipProblem, explainError, paramOf, serviceWords, VOICE_GONE_TITLE } from '../../api/error-text.ts'
import { ApiRequestError } from '../../api/http.ts'

/**
 * What a failed consent or voice request means, in plain words, and what to do next. The service's own message is
 * kept where it says something specific (what the phrase check heard).
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

/** The field a `param` from the service is about, in this form. */
function fieldOf(param: string | null | undefined, context: FailureContext): Failure['field'] {
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

/** Failures that mean the same on every page (the network, the session, a busy service), in the shared words. */
function shared(err: unknown): Failure {
  const { title, action } = explainError(err)
  return { what: title, next: action }
}

export function describeFailure(err: unknown, context: FailureContext): Failure {
  if (err instanceof TypeError) return shared(err)
  if (!(err instanceof ApiRequestError)) {
    return {
      what: `Could not ${ACTIONS[context]}: ${(err as Error)?.message ?? 'unknown error'}.`,
      next: 'Try again; if it keeps failing, reload the page.',
    }
  }
  const clip = context === 'voice' ? 'sample' : 'recording'
  const param = paramOf(err)
  switch (err.code) {
    case 'consent_phrase_mismatch':
      return {
        what: `The recording does not say the consent phrase. ${serviceWords(err)}`.trim(),
        next: 'The owner of the voice must read the phrase exactly as written, in one go, clearly and without other words. Record again.',
        field: 'recording',
      }
    case 'recording_duration_out_of_range':
      return {
        what: `The recording must be between ${CONSENT_MIN_SECONDS} and ${CONSENT_MAX_SECONDS} seconds long.`,
        next: 'Record again: read the phrase once at a steady pace and stop soon after.',
        field: 'recording',
      }
    case 'multiple_speakers':
      return {
        what: `More than one person can be heard in the ${clip}.`,
        next: 'Only the owner of the voice may speak. Record again somewhere quiet with nobody else talking.',
        field: fieldOf(param, context),
      }
    case 'music_detected':
      return {
        what: `Music or other background sound was detected in the ${clip}.`,
        next: 'Turn off music, television and other sound sources, then record again.',
        field: fieldOf(param, context),
      }
    case 'invalid_audio':
    case 'decoder_unavailable':
      // Too little or too noisy speech has its own remedy (what to record instead), in the shared words; a consent
      // recording is the phrase, so "longer" means reading it whole and unhurried, not a length in seconds.
      if (clipProblem(err.code, serviceWords(err)) === 'too_short' && param === 'recording')
        return {
          ...shared(err),
          next: 'Record again for longer: read the whole phrase at an unhurried pace, without long pauses, close to the microphone.',
          field: 'recording',
        }
      // A sample checked against a consent needs as much voice as the consent (the service says how much), so the
      // remedy is more steady talking, not a length in seconds that the sample may already have.
      if (clipProblem(err.code, serviceWords(err)) === 'too_short' && param === 'audio_sample')
        return {
          ...shared(err),
          next: 'Record again for longer: several seconds of the same person talking steadily, without long pauses, close to the microphone.',
          field: 'sample',
        }
      if (clipProblem(err.code, serviceWords(err)) !== 'unreadable')
        return { ...shared(err), field: fieldOf(param, context) }
      return {
        what: `The ${clip} could not be read as audio: it may be empty, damaged or in a format the service does not read.`,
        next: 'Record in the browser, or upload a WAV, MP3, OGG, FLAC, WebM or MP4 file.',
        field: fieldOf(param, context),
      }
    case 'speaker_verification_failed':
      return {
        what: "The sample's speaker does not match the consent's speaker.",
        next: 'Use a sample of the same person who recorded the consent, with only their voice and little background noise (several seconds of clear speech), or choose the consent that this person recorded.',
        field: 'sample',
      }
    case 'consent_not_found':
      return {
        what: 'The chosen consent no longer exists; it may have been revoked.',
        next: 'Choose another consent, or record a new one first.',
        field: 'consent',
      }
    case 'voice_not_found':
      return {
        what: VOICE_GONE_TITLE,
        next: 'The list has been refreshed. Create the voice again if you still need it.',
      }
    case 'recognition_unavailable':
      return {
        what: 'The service cannot check what is said in the recording: speech recognition is not installed there.',
        next: 'Type what is said in the recording into Transcript (for a consent, the phrase itself) and send again, or ask an administrator to install speech recognition.',
        field: 'transcript',
      }
    case 'custom_voice_creation_busy':
      return shared(err)
  }
  if (err.status === 413) {
    return {
      what: `The ${clip} file is too large (more than ${formatBytes(VOICE_SAMPLE_MAX_BYTES)}).`,
      next: 'Use a shorter clip, or a compressed format such as MP3, OGG or WebM.',
      field: fieldOf(param, context),
    }
  }
  if (err.status === 403) {
    return {
      what: `Your role may not ${ACTIONS[context]}.`,
      next: 'Consents and saved voices are managed by consent administrators. Ask an administrator if you need this.',
    }
  }
  if (err.status === 401 || err.status === 429 || err.status === 503) return shared(err)
  if (err.status === 400 || err.status === 422) {
    const field = fieldOf(param, context)
    return {
      what: `The service refused the request: ${serviceWords(err) || `it answered ${err.status}.`}`,
      next: field ? `Correct the ${fieldLabel(field)} and send again.` : 'Correct the form and send again.',
      field,
    }
  }
  return {
    what: `Could not ${ACTIONS[context]}: ${serviceWords(err) || `the service answered ${err.status}.`}`,
    next: 'Try again; if it keeps failing, look in the studio’s log.',
  }
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
