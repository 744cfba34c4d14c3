import { formatBytes } from '../../core/bytes.ts'
import {
  DECODING_RANGES,
  type DecodingField,
  MAX_REFERENCE_BYTES,
  MAX_TRANSCRIPTION_FILE_BYTES,
  SECOND_GEN_MODEL,
  UPLOAD_FORMATS_IN_WORDS,
  VOICE_SAMPLE_MAX_BYTES,
  VOICE_SAMPLE_MAX_SECONDS,
  VOICE_SAMPLE_MIN_SECONDS,
} from '../../schema/index.ts'
import { ApiRequestError } from './http.ts'
import { IncompleteStreamError } from './speech.ts'

/**
 * Every failure a studio request can meet (contract 7 as it reaches the browser through the backend, the
 * backend's own refusals — their codes in docs/api.md —, the network, a broken stream and the realtime socket's error
 * events), in plain words with what to do next: the one explainer of every code, which every page uses (the voices
 * page adds only which form field to focus, src/pages/voices/failures.ts). Pages show `title` and `action`;
 * `retryable` says whether the same request may succeed later unchanged, after `retryAfterSeconds` when the service
 * said so.
 */
export interface ErrorExplanation {
  /** What went wrong. */
  title: string
  /** What to do next. */
  action: string
  retryable: boolean
  retryAfterSeconds: number | null
}

/** The `error` of a realtime socket's error event (contract 6.2, 6.3; payload in docs/realtime-tts.md). */
export interface SocketError {
  code: string
  message: string
  param?: string | null
}

/** The service's own message as a sentence, or '' when it sent none. */
export function serviceWords(err: { body: unknown; message: string }): string {
  return err.body ? err.message.trim().replace(/\.?$/, '.') : ''
}

/** A failure that trying again cannot fix. */
const fixed = (title: string, action: string): ErrorExplanation => ({
  title,
  action,
  retryable: false,
  retryAfterSeconds: null,
})

/** A failure that may pass: the same request can be sent again, after `retryAfterSeconds` when known. */
const passing = (
  title: string,
  action: string,
  retryAfterSeconds: number | null = null,
): ErrorExplanation => ({
  title,
  action,
  retryable: true,
  retryAfterSeconds,
})

export const BACKEND_DOWN = passing(
  'The studio backend is not answering.',
  'Check that npm start is still running, then try again.',
)

const againIn = (seconds: number | null) =>
  seconds === null ? 'Try again in a moment.' : `Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`

const SIGNED_OUT = fixed('You are signed out: your session has ended.', 'Sign in again, then repeat this.')

export const VOICE_GONE_TITLE =
  'This voice no longer exists: it was deleted, or the consent it depends on was revoked.'

const PICK_ANOTHER_VOICE = 'Pick another voice for this line.'

const REPORT = 'Reload the page and try again; if it happens again, report it with the request id.'

const DECODING_LABELS: Record<DecodingField, string> = {
  temperature: 'Temperature',
  top_p: 'Top-p',
  top_k: 'Top-k',
  min_p: 'Min-p',
  max_new_tokens: 'Max new tokens',
}

function isDecodingField(param: string | null): param is DecodingField {
  return param !== null && param in DECODING_RANGES
}

function outOfRange(field: DecodingField): ErrorExplanation {
  const r: { min: number; max: number; integer?: boolean } = DECODING_RANGES[field]
  return fixed(
    `${DECODING_LABELS[field]} is out of range: it must be ${r.integer ? 'a whole number' : 'a number'} from ${r.min} to ${r.max}.`,
    'Change it, or set it back to the preset.',
  )
}

/** A refusal as read here: from an HTTP answer, or from a socket's error event, which has no status of its own. */
interface Refusal {
  status: number
  code: string | null
  param: string | null
  /** The service's own message as a sentence; '' when the answer had no body. */
  words: string
  retryAfterSeconds: number | null
  /** What the page was doing ("save the consent"), when it says so: "Your role may not save the consent." */
  doing: string | null
}

/** 400s: a field value the service refused (envelope `invalid_request_error`, or the `detail` shape). */
function refusedField(err: Refusal): ErrorExplanation {
  const { param } = err
  const words = err.words || `The service answered ${err.status}.`
  // The envelope's `invalid_request_error` is about a field's value (contract 7.3); a `detail` naming `model` or `voice`
  // is a multipart field outside contract 4.2's list, which the switch below leaves to the fallback.
  if (err.code === 'invalid_request_error') {
    if (isDecodingField(param)) return outOfRange(param)
    if (param === 'model') {
      return fixed(
        `The model cannot serve this request. ${words}`,
        `Choose ${SECOND_GEN_MODEL}: only it takes reference clips, saved voices, markup and decoding settings.`,
      )
    }
    if (param === 'voice') {
      return fixed(
        `The voice does not belong to the chosen model. ${words}`,
        'Pick a voice from the list for this model; each model has its own voices.',
      )
    }
  }
  switch (param) {
    case 'speed':
      return fixed('Speed is out of range: it must be from 0.25 to 4.', 'Change it, or set it back to 1×.')
    case 'input':
      return fixed(`The line's text was refused. ${words}`, 'Write some text, or split a very long line.')
    case 'reference_audio':
      return fixed(
        'The request was sent without a reference clip.',
        'Attach a reference clip (record one or choose a file), then try again.',
      )
    case 'reference_transcript':
      return fixed(`The words of the reference clip were refused. ${words}`, 'Shorten or correct them.')
  }
  // Any other field is one the studio itself put in the request (multipart fields outside contract 4.2's list).
  return fixed(`The service refused the request. ${words}`, param ? REPORT : 'Correct it and try again.')
}

/** What the service's refusal was about: a consent recording, a saved voice's sample or a reference clip. */
function clipName(param: string | null): string {
  return param === 'recording' ? 'consent recording' : param === 'audio_sample' ? 'voice sample' : 'clip'
}

/**
 * Why the service could not use a clip (`invalid_audio`, contract 7 shapes): its message says whether the clip held too
 * little speech, was too noisy to judge, or could not be read at all, and each cause has its own remedy.
 */
export type ClipProblem = 'too_short' | 'too_noisy' | 'unreadable'

export function clipProblem(code: string | null, words: string): ClipProblem {
  if (code !== 'invalid_audio') return 'unreadable'
  if (/too noisy|noise/i.test(words)) return 'too_noisy'
  if (/too little speech|too short|of speech/i.test(words)) return 'too_short'
  return 'unreadable'
}

function unusableClip(code: string | null, words: string, param: string | null): ErrorExplanation {
  switch (clipProblem(code, words)) {
    case 'too_short':
      return fixed(
        `The clip holds too little speech to tell whose voice it is. ${words}`.trim(),
        // A consent recording is the phrase, so "longer" means reading it whole and unhurried; a sample checked
        // against a consent needs as much voice as the consent (the service says how much), not a length in seconds.
        param === 'recording'
          ? 'Record again for longer: read the whole phrase at an unhurried pace, without long pauses, close to the microphone.'
          : param === 'audio_sample'
            ? 'Record again for longer: several seconds of the same person talking steadily, without long pauses, close to the microphone.'
            : `Record again for longer: ${VOICE_SAMPLE_MIN_SECONDS} to ${VOICE_SAMPLE_MAX_SECONDS} seconds of one person talking steadily, with few pauses.`,
      )
    case 'too_noisy':
      return fixed(
        `The clip is too noisy to hear the voice clearly. ${words}`.trim(),
        'Record again closer to the microphone (about a hand’s width away), in a quieter room, with fans, music and other voices off.',
      )
    case 'unreadable':
      return fixed(
        `The clip could not be used as a voice. ${words}`.trim(),
        `Use ${VOICE_SAMPLE_MIN_SECONDS} to ${VOICE_SAMPLE_MAX_SECONDS} seconds of one person speaking clearly, in ${UPLOAD_FORMATS_IN_WORDS}.`,
      )
  }
}

function explainRefusal(err: Refusal): ErrorExplanation {
  const { param, words } = err
  const wait = err.retryAfterSeconds
  switch (err.code) {
    case 'unsupported_audio_format':
      return fixed('The live stream asked for an audio format other than PCM, which it cannot send.', REPORT)
    case 'invalid_audio':
    case 'decoder_unavailable':
      return unusableClip(err.code, words, param)
    case 'multiple_speakers':
      return fixed(
        `More than one voice can be heard in the ${clipName(param)}.`,
        'Record again with only the owner of the voice speaking: somewhere nobody else is talking, and without a television or radio on.',
      )
    case 'music_detected':
      return fixed(
        `Music was heard in the ${clipName(param)}.`,
        'Turn off music, television and radio, then record again.',
      )
    case 'recording_duration_out_of_range':
      return fixed(
        `The consent recording is too short or too long. ${words}`.trim(),
        'Record again: read the phrase once at a steady pace and stop soon after.',
      )
    case 'consent_phrase_mismatch':
      return fixed(
        `The recording does not say the consent phrase. ${words}`.trim(),
        'The owner of the voice reads the phrase exactly as written, in one go, clearly and without other words. Record again, or type the exact words spoken in Transcript.',
      )
    case 'durable_api_key_required':
      return fixed(
        'A saved voice cannot be used with a temporary credential.',
        'Reload the page and start again; the studio then connects with its own key. If it persists, ask an administrator.',
      )
    case 'insufficient_permissions':
      return fixed(
        "The studio's key for the speech service may not generate speech.",
        'Ask an administrator to give the key the tts:generate permission.',
      )
    case 'missing_api_key':
    case 'invalid_api_key':
      return fixed(
        "The speech service refused the studio's key.",
        "Ask an administrator to check the studio's API key for the speech service.",
      )
    case 'voice_not_found':
      return fixed(VOICE_GONE_TITLE, PICK_ANOTHER_VOICE)
    // The studio backend's own refusals (server/studio/errors.ts, docs/api.md).
    case 'not_signed_in':
      return SIGNED_OUT
    case 'wrong_credentials':
      return fixed('Wrong name or password.', 'Check both and sign in again.')
    case 'csrf_refused':
      // Another tab signed in again, so this page's token is stale.
      return fixed('This page’s session token is out of date.', 'Reload the page, then try again.')
    case 'forbidden_for_role':
      return forbidden(err.doing)
    case 'origin_refused':
    case 'host_refused':
      return fixed(
        'The studio refused a page that is not its own address.',
        'Open the studio at the address it is set up for, then try again.',
      )
    case 'audio_erased':
      // The voice's owner withdrew consent (or the voice was deleted): the take stays listed as a record only.
      return fixed(
        err.words || 'The audio of this take was erased: its voice was revoked.',
        'Make the line again with another voice.',
      )
    case 'consent_link_unusable':
      // Used, expired, withdrawn or never made: the studio does not say which, so neither does the page.
      return fixed('This consent link cannot be used.', 'Ask the person who sent it to you for a new link.')
    case 'rate_limited':
      return passing('Too many sign-in attempts.', againIn(wait), wait)
    case 'sign_in_unavailable':
      return passing(`Signing in is not possible right now. ${words}`.trim(), againIn(wait), wait)
    case 'database_unavailable':
      return passing('The studio cannot reach its database.', againIn(wait), wait)
    case 'upstream_unreachable':
      return passing(
        'The speech service is not answering.',
        'Check that the speech service is running, then try again.',
        wait,
      )
    case 'conflict':
      return fixed(
        `This changed meanwhile. ${words}`.trim(),
        'Reload to see what is kept now, then try again.',
      )
    case 'consent_not_found':
      return fixed('The consent no longer exists; it may have been revoked.', 'Choose another consent.')
    case 'speaker_verification_failed':
      return fixed(
        `The ${param === 'audio_sample' ? 'sample' : 'clip'}'s speaker does not match the consent's speaker.`,
        'Use a clip of the same person who recorded the consent, with only their voice: several seconds of steady talking, close to the microphone, in a quiet room. If it is them, record again that way; otherwise choose the consent this person recorded.',
      )
    case 'rate_limit_exceeded':
      return passing(
        'The service is busy: your organization already runs as many requests as it allows at once.',
        'Wait for another preview or session to finish, then try again.',
        wait,
      )
    case 'custom_voice_creation_busy':
      return passing(
        'The voice cloning queue is full: the service is busy preparing other voices.',
        againIn(wait),
        wait,
      )
    case 'voice_preparing':
      return passing(
        'The saved voice is being prepared for the current speech engine.',
        `${againIn(wait)} Preparation happens once per voice and takes up to half a minute.`,
        wait,
      )
    case 'recognition_unavailable':
      return fixed(
        'The service cannot transcribe the clip: speech recognition is not installed there.',
        'Type the exact words spoken in the clip, then try again.',
      )
    case 'diarization_not_enabled':
      return fixed('Speaker labels are not available on this service.', 'Transcribe without speaker labels.')
    case 'invalid_diarization_options':
      return fixed(
        `The speaker counts were refused. ${words}`,
        'Give counts from 1 to 20, an exact count or a range (minimum not above maximum), with speaker labels on.',
      )
    case 'invalid_response_format':
      return fixed(
        'Speaker labels need a JSON transcript.',
        'Choose JSON or verbose JSON, or turn speaker labels off.',
      )
    case 'diarization_not_supported_on_transport':
      return fixed(
        'Speaker labels are not available over WebRTC.',
        'Use the WebSocket session or an upload for speaker labels.',
      )
  }
  switch (err.status) {
    case 400:
      return refusedField(err)
    case 401:
      return SIGNED_OUT
    case 403:
      return forbidden(err.doing)
    case 404:
      return fixed(`The studio could not find this. ${words}`.trim(), REPORT)
    case 405:
      return fixed('The service does not allow this request at this address.', REPORT)
    case 413:
      if (param === 'reference_audio')
        return fixed(
          `The reference clip is larger than ${formatBytes(MAX_REFERENCE_BYTES)}.`,
          'Use a shorter clip, or a compressed format such as MP3, OGG or WebM.',
        )
      if (param === 'recording' || param === 'audio_sample')
        return fixed(
          `The ${clipName(param)} file is larger than ${formatBytes(VOICE_SAMPLE_MAX_BYTES)}.`,
          'Use a shorter clip, or a compressed format such as MP3, OGG or WebM.',
        )
      if (param === 'file')
        return fixed(
          `The recording is larger than ${formatBytes(MAX_TRANSCRIPTION_FILE_BYTES)}.`,
          'Shorten it, or compress it (MP3, Ogg or AAC), then upload it again.',
        )
      return fixed(`The request is too large. ${words}`.trim(), 'Send less at once: split the line.')
    case 415:
      return fixed('The service did not accept the form of the request.', REPORT)
    case 422:
      return fixed(`The service could not use the request. ${words}`.trim(), 'Change it and try again.')
    case 429:
      return passing(`The service is busy. ${words}`.trim(), againIn(wait), wait)
    case 501:
      return fixed(`The service does not offer this. ${words}`.trim(), 'Leave this option off.')
    case 503:
      // Without a body the backend could not reach the service at all; with one, no slot freed in time.
      return words
        ? passing('No generation slot became free in time: the service is busy.', againIn(wait), wait)
        : passing(
            'The speech service is not answering.',
            'Check that the speech service is running, then try again.',
            wait,
          )
  }
  if (err.status >= 500) {
    return passing(
      `The service failed. ${words}`.trim(),
      'Try again; if it keeps failing, look in the studio’s log.',
    )
  }
  return fixed(
    err.doing
      ? `Could not ${err.doing}: ${words || `the service answered ${err.status}.`}`
      : `The request failed: ${words || `the service answered ${err.status}.`}`,
    REPORT,
  )
}

function forbidden(doing: string | null): ErrorExplanation {
  return fixed(
    `Your role may not ${doing ?? 'do this'}.`,
    'Ask an administrator for the role that does (voice designers generate speech, consent administrators manage consents and voices, reviewers transcribe).',
  )
}

const SOCKET_TEXT: Record<string, (e: SocketError) => ErrorExplanation> = {
  rate_limit_exceeded: () =>
    passing(
      'The service is busy: your organization already runs as many requests as it allows at once.',
      'Wait for another preview or live session to finish, then start again.',
    ),
  voice_not_found: () => fixed(VOICE_GONE_TITLE, 'Pick another voice, then start again.'),
  invalid_message: (e) => fixed(`The live session refused a message. ${e.message}`, REPORT),
  input_already_done: () =>
    fixed('The live session had already finished taking text.', 'Start a new session to speak more.'),
  append_too_large: (e) => fixed(`Too much text was sent at once. ${e.message}`, 'Start again.'),
  session_text_limit_exceeded: (e) =>
    fixed(`The live session reached its text limit. ${e.message}`, 'Start a new session to go on.'),
  frame_too_large: (e) =>
    fixed(`The live session refused a message that was too large. ${e.message}`, REPORT),
  idle_timeout: () =>
    fixed('The live session closed after 5 minutes without new text.', 'Start again to go on.'),
  session_duration_exceeded: () =>
    fixed('The live session reached its 2-hour limit.', 'Start a new session to go on.'),
  synthesis_failed: () =>
    passing('The speech engine failed while speaking.', 'Start again; a new session makes a new take.'),
}

function explainSocketError(e: SocketError): ErrorExplanation {
  const known = SOCKET_TEXT[e.code]
  if (known) return known(e)
  // Admission refusals share the HTTP codes (docs/realtime-tts.md); the socket carries no status for them.
  return explainRefusal({
    status: e.code === 'durable_api_key_required' ? 403 : 400,
    code: e.code,
    param: e.param ?? null,
    words: serviceWords({ body: e, message: e.message }),
    retryAfterSeconds: null,
    doing: null,
  })
}

/** A realtime socket's error, as the event `{type: 'error', error: {...}}` or its `{code, message}` alone. */
function socketErrorOf(value: unknown): SocketError | null {
  if (typeof value !== 'object' || value === null) return null
  const inner =
    (value as { type?: unknown; error?: unknown }).type === 'error'
      ? (value as { error: unknown }).error
      : value
  if (typeof inner !== 'object' || inner === null) return null
  const { code, message, param } = inner as Record<string, unknown>
  if (typeof code !== 'string' || typeof message !== 'string') return null
  return { code, message, param: typeof param === 'string' ? param : null }
}

/** `doing`: what the page was doing, in words that follow "Could not" ("save the consent"), when it says so. */
export function explainError(error: unknown, doing: string | null = null): ErrorExplanation {
  if (error instanceof ApiRequestError) {
    return explainRefusal({
      status: error.status,
      code: error.code,
      param: error.param,
      words: serviceWords(error),
      retryAfterSeconds: error.retryAfterSeconds,
      doing,
    })
  }
  if (error instanceof IncompleteStreamError) {
    return passing(
      'The stream broke before the line was complete; the partial audio was discarded.',
      'Retry makes a new take (it may sound slightly different).',
    )
  }
  if ((error as { name?: unknown })?.name === 'AbortError') {
    return fixed('Stopped before it was complete.', 'Start it again when you are ready.')
  }
  // fetch() rejects with a TypeError when the network or the backend is down.
  if (error instanceof TypeError) return BACKEND_DOWN
  const socket = socketErrorOf(error)
  if (socket) return explainSocketError(socket)
  const message = error instanceof Error ? error.message : String(error)
  return passing(
    `${doing ? `Could not ${doing}` : 'Something went wrong'}: ${message.replace(/\.?$/, '.')}`,
    'Try again; if it keeps failing, reload the page.',
  )
}
