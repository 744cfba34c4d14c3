import { describe, expect, it } from 'vitest'
import { explainError } from './error-text.ts'
import { ApiRequestError } from './http.ts'
import { LiveSpeechError } from './live-speech.ts'
import { IncompleteStreamError } from './speech.ts'

/** An error in the envelope shape (contract 7.1), as the backend passes it through. */
function envelope(
  status: number,
  code: string | null,
  param: string | null = null,
  message = 'The service said no.',
  retryAfterSeconds: number | null = null,
) {
  return new ApiRequestError(
    status,
    { error: { message, type: 'invalid_request_error', param, code }, request_id: 'req_1' },
    'req_1',
    retryAfterSeconds,
  )
}

/** A refusal of the studio backend itself (server/studio/errors.ts): the envelope with the backend's own code. */
function studio(status: number, code: string, message: string, retryAfterSeconds: number | null = null) {
  return new ApiRequestError(
    status,
    { error: { message, type: 'invalid_request_error', param: null, code }, request_id: 'req_3' },
    'req_3',
    retryAfterSeconds,
  )
}

/** An error in the `detail` shape (contract 7.2): the service's other parameter validation, relayed. */
function detail(status: number, text: string, param: string | null = null) {
  return new ApiRequestError(status, { detail: text, param, request_id: 'req_2' }, 'req_2')
}

type Row = [name: string, error: unknown, title: RegExp, action: RegExp, retryable: boolean]

const rows: Row[] = [
  // 400 invalid_request_error: decoding fields name their range and point back at the preset.
  [
    'temperature out of range',
    envelope(400, 'invalid_request_error', 'temperature', 'temperature must be a number from 0.3 to 2'),
    /^Temperature is out of range: it must be a number from 0\.3 to 2\.$/,
    /^Change it, or set it back to the preset\.$/,
    false,
  ],
  [
    'top_p',
    envelope(400, 'invalid_request_error', 'top_p'),
    /^Top-p is out of range: .*0\.5 to 1\./,
    /preset/,
    false,
  ],
  [
    'top_k',
    envelope(400, 'invalid_request_error', 'top_k'),
    /^Top-k .*a whole number from 0 to 200/,
    /preset/,
    false,
  ],
  ['min_p', envelope(400, 'invalid_request_error', 'min_p'), /^Min-p .*from 0 to 0\.5/, /preset/, false],
  [
    'max_new_tokens',
    envelope(400, 'invalid_request_error', 'max_new_tokens'),
    /^Max new tokens .*a whole number from 500 to 12000/,
    /preset/,
    false,
  ],
  [
    'a model that cannot clone (multipart)',
    envelope(400, 'invalid_request_error', 'model', 'One-request cloning needs model svc-tts-2-latest.'),
    /^The model cannot serve this request\. One-request cloning needs model svc-tts-2-latest\.$/,
    /^Choose svc-tts-2-latest/,
    false,
  ],
  [
    'a voice of the other generation',
    envelope(400, 'invalid_request_error', 'voice', 'Unknown voice for this model'),
    /^The voice does not belong to the chosen model\. Unknown voice for this model\.$/,
    /each model has its own voices/,
    false,
  ],
  ['speed (detail shape)', detail(400, 'speed out of range', 'speed'), /^Speed is out of range/, /1×/, false],
  [
    'empty input',
    detail(400, 'input must not be empty', 'input'),
    /text was refused\. input must not be empty\./,
    /Write some text/,
    false,
  ],
  [
    'multipart without reference_audio',
    detail(400, 'A multipart speech request needs reference_audio.', 'reference_audio'),
    /without a reference clip/,
    /^Attach a reference clip/,
    false,
  ],
  [
    'multipart with an unaccepted field',
    detail(400, 'Unknown field voice. Accepted: model, input.', 'voice'),
    /^The service refused the request\. Unknown field voice/,
    /report it/,
    false,
  ],
  [
    '400 without a field',
    detail(400, 'The request body is not valid JSON.'),
    /not valid JSON/,
    /^Correct it/,
    false,
  ],
  [
    'unsupported_audio_format',
    envelope(400, 'unsupported_audio_format', 'response_format'),
    /other than PCM/,
    /Reload the page/,
    false,
  ],
  [
    'invalid_audio (a reference with too little speech)',
    envelope(400, 'invalid_audio', 'reference_audio', 'reference_audio must hold at least 1 s of speech.'),
    /^The clip holds too little speech to tell whose voice it is\. reference_audio must hold at least 1 s of speech\.$/,
    /^Record again for longer: 1 to 120 seconds of one person talking steadily/,
    false,
  ],
  [
    'invalid_audio (a consent recording with too little speech)',
    envelope(400, 'invalid_audio', 'recording', 'The consent recording holds too little speech: 0.8 s.'),
    /too little speech/,
    /Record again for longer/,
    false,
  ],
  [
    'invalid_audio (too noisy to judge)',
    envelope(
      400,
      'invalid_audio',
      'recording',
      'The consent recording is too noisy to tell how many people speak.',
    ),
    /^The clip is too noisy to hear the voice clearly\./,
    /closer to the microphone.*quieter room/,
    false,
  ],
  [
    'invalid_audio (not audio at all)',
    envelope(400, 'invalid_audio', 'recording', 'recording is empty.'),
    /^The clip could not be used as a voice\. recording is empty\.$/,
    /1 to 120 seconds .* WAV, MP3, OGG, AAC, FLAC, WebM or MP4\.$/,
    false,
  ],
  [
    'multiple_speakers',
    envelope(400, 'multiple_speakers', 'recording', 'More than one person speaks in the consent recording.'),
    /^More than one voice can be heard in the consent recording\.$/,
    /only the owner of the voice speaking/,
    false,
  ],
  [
    'music_detected',
    envelope(400, 'music_detected', 'audio_sample', 'The sample contains music.'),
    /^Music was heard in the voice sample\.$/,
    /Turn off music/,
    false,
  ],
  [
    'consent_phrase_mismatch',
    envelope(400, 'consent_phrase_mismatch', 'recording', 'Heard: "i am the owner".'),
    /^The recording does not say the consent phrase\. Heard: "i am the owner"\.$/,
    /exactly as written/,
    false,
  ],
  [
    'recording_duration_out_of_range',
    envelope(400, 'recording_duration_out_of_range', 'recording', 'The consent recording lasts 1.2 s.'),
    /too short or too long\. The consent recording lasts 1\.2 s\./,
    /read the phrase once/,
    false,
  ],
  [
    'decoder_unavailable',
    envelope(400, 'decoder_unavailable', 'reference_audio'),
    /could not be used/,
    /WAV/,
    false,
  ],
  [
    'invalid_diarization_options',
    envelope(400, 'invalid_diarization_options', 'min_speakers'),
    /speaker counts were refused/,
    /1 to 20/,
    false,
  ],
  [
    'invalid_response_format',
    envelope(400, 'invalid_response_format'),
    /need a JSON transcript/,
    /verbose JSON/,
    false,
  ],
  [
    'diarization_not_supported_on_transport',
    envelope(400, 'diarization_not_supported_on_transport'),
    /WebRTC/,
    /WebSocket/,
    false,
  ],
  [
    '401 from the backend: signed out',
    studio(401, 'not_signed_in', 'Not signed in.'),
    /signed out/,
    /^Sign in again/,
    false,
  ],
  ['401 without a body', new ApiRequestError(401, null, null), /signed out/, /^Sign in again/, false],
  [
    '401 invalid_api_key from the service',
    envelope(401, 'invalid_api_key'),
    /refused the studio's key/,
    /administrator/,
    false,
  ],
  [
    '401 missing_api_key',
    envelope(401, 'missing_api_key'),
    /refused the studio's key/,
    /administrator/,
    false,
  ],
  [
    '403 role',
    studio(403, 'forbidden_for_role', 'Your role may not use POST /v1/audio/speech.'),
    /^Your role may not do this\.$/,
    /administrator/,
    false,
  ],
  [
    '403 stale CSRF token',
    studio(403, 'csrf_refused', 'Missing or invalid CSRF token.'),
    /session token is out of date/,
    /^Reload/,
    false,
  ],
  [
    '403 durable_api_key_required',
    envelope(403, 'durable_api_key_required', 'voice'),
    /temporary credential/,
    /Reload the page/,
    false,
  ],
  [
    '403 insufficient_permissions',
    envelope(403, 'insufficient_permissions'),
    /may not generate speech/,
    /tts:generate/,
    false,
  ],
  [
    '404 voice_not_found',
    envelope(404, 'voice_not_found', 'voice'),
    /^This voice no longer exists: it was deleted, or the consent it depends on was revoked\.$/,
    /^Pick another voice/,
    false,
  ],
  [
    '404 consent_not_found',
    envelope(404, 'consent_not_found', 'consent'),
    /consent no longer exists/,
    /another consent/,
    false,
  ],
  [
    '404 unknown route',
    studio(404, 'not_forwarded', 'The studio does not forward GET /v1/x.'),
    /could not find this/,
    /report it/,
    false,
  ],
  ['405', detail(405, 'Method not allowed.'), /does not allow this request/, /Reload/, false],
  [
    '413 reference too large',
    detail(413, 'reference_audio is larger than 10 MiB.', 'reference_audio'),
    /^The reference clip is larger than 10 MiB\.$/,
    /shorter clip/,
    false,
  ],
  [
    '413 recording too large',
    detail(413, 'file is larger than 25 MiB.', 'file'),
    /^The recording is larger than 25 MiB\.$/,
    /Shorten it, or compress it/,
    false,
  ],
  [
    '413 JSON body too large',
    detail(413, 'The request body is larger than the limit.'),
    /too large/,
    /split the line/,
    false,
  ],
  ['415', detail(415, 'Unsupported content type.'), /did not accept the form/, /Reload/, false],
  [
    '422 speaker_verification_failed',
    envelope(422, 'speaker_verification_failed', 'audio_sample'),
    /speaker does not match the consent's speaker/,
    /same person who recorded the consent.*close to the microphone, in a quiet room/,
    false,
  ],
  [
    '422 other',
    detail(422, 'Unprocessable.'),
    /could not use the request\. Unprocessable\./,
    /Change it/,
    false,
  ],
  [
    '429 rate_limit_exceeded',
    envelope(429, 'rate_limit_exceeded', null, 'Too many.', 1),
    /^The service is busy: your organization already runs as many requests as it allows at once\.$/,
    /Wait for another preview/,
    true,
  ],
  [
    '429 custom_voice_creation_busy',
    envelope(429, 'custom_voice_creation_busy', null, 'Queue full.', 5),
    /cloning queue is full/,
    /^Try again in 5 seconds\.$/,
    true,
  ],
  ['429 other', detail(429, 'Too many requests.'), /busy\. Too many requests\./, /Try again/, true],
  [
    '429 rate_limited (sign-in attempts)',
    studio(429, 'rate_limited', 'Too many attempts. Wait a minute, then try again.', 60),
    /^Too many sign-in attempts\.$/,
    /^Try again in 60 seconds\.$/,
    true,
  ],
  [
    '503 database_unavailable from the studio',
    studio(503, 'database_unavailable', 'The studio cannot reach its database. Try again shortly.', 5),
    /^The studio cannot reach its database\.$/,
    /^Try again in 5 seconds\.$/,
    true,
  ],
  [
    '503 sign_in_unavailable',
    studio(503, 'sign_in_unavailable', 'Many people are signing in at once. Try again in a moment.', 1),
    /^Signing in is not possible right now\. Many people/,
    /^Try again in 1 second\.$/,
    true,
  ],
  [
    '502 upstream_unreachable',
    studio(502, 'upstream_unreachable', 'The speech service could not be reached.'),
    /^The speech service is not answering\.$/,
    /speech service is running/,
    true,
  ],
  [
    '410 audio_erased',
    studio(410, 'audio_erased', 'The audio of this take was erased: its voice was revoked on 2026-12-02.'),
    /^The audio of this take was erased: its voice was revoked on 2026-12-02\.$/,
    /another voice/,
    false,
  ],
  [
    '410 consent_link_unusable',
    studio(410, 'consent_link_unusable', 'This consent link cannot be used.'),
    /^This consent link cannot be used\.$/,
    /new link/,
    false,
  ],
  [
    '409 conflict',
    studio(409, 'conflict', 'Only a complete take can be starred.'),
    /^This changed meanwhile\. Only a complete take can be starred\.$/,
    /^Reload/,
    false,
  ],
  [
    '503 no generation slot',
    envelope(503, 'service_unavailable', null, 'No slot.', 1),
    /^No generation slot became free in time/,
    /^Try again in 1 second\.$/,
    true,
  ],
  [
    '503 voice_preparing',
    envelope(503, 'voice_preparing', 'voice', 'Preparing.', 5),
    /being prepared/,
    /half a minute/,
    true,
  ],
  [
    '503 recognition_unavailable',
    envelope(503, 'recognition_unavailable'),
    /speech recognition is not installed/,
    /exact words/,
    false,
  ],
  [
    '503 with no body: service unreachable',
    new ApiRequestError(503, null, null),
    /speech service is not answering/,
    /running/,
    true,
  ],
  [
    '501 diarization_not_enabled',
    envelope(501, 'diarization_not_enabled'),
    /Speaker labels are not available/,
    /without speaker labels/,
    false,
  ],
  [
    '501 other',
    detail(501, 'Calls are not supported.'),
    /does not offer this\. Calls are not supported\./,
    /Leave this option off/,
    false,
  ],
  [
    '500',
    envelope(500, 'internal_error', null, 'Internal error.'),
    /^The service failed\. Internal error\.$/,
    /studio’s log/,
    true,
  ],
  [
    'network failure',
    new TypeError('Failed to fetch'),
    /^The studio backend is not answering\.$/,
    /npm start/,
    true,
  ],
  [
    'a broken stream',
    new IncompleteStreamError(),
    /^The stream broke before the line was complete/,
    /^Retry makes a new take/,
    true,
  ],
  ['a cancelled request', new DOMException('Aborted', 'AbortError'), /^Stopped/, /again/, false],
  ['anything else', new Error('odd'), /^Something went wrong: odd\.$/, /reload the page/, true],
]

/** The realtime socket's `error` events (contract 6.2, 6.3; docs/realtime-tts.md), alone or as the whole event. */
const socketRows: Row[] = [
  [
    'socket rate_limit_exceeded (as the whole event)',
    {
      type: 'error',
      error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'Busy.', param: null },
    },
    /^The service is busy/,
    /start again/,
    true,
  ],
  [
    'socket voice_not_found',
    { code: 'voice_not_found', message: 'Gone.' },
    /no longer exists/,
    /Pick another voice/,
    false,
  ],
  [
    'socket invalid_message',
    { code: 'invalid_message', message: 'Not JSON.' },
    /refused a message\. Not JSON\./,
    /report it/,
    false,
  ],
  [
    'socket input_already_done',
    { code: 'input_already_done', message: 'Done.' },
    /already finished taking text/,
    /new session/,
    false,
  ],
  [
    'socket append_too_large',
    { code: 'append_too_large', message: 'At most 8192.' },
    /Too much text .* At most 8192\./,
    /Start again/,
    false,
  ],
  [
    'socket session_text_limit_exceeded',
    { code: 'session_text_limit_exceeded', message: 'Limit.' },
    /text limit/,
    /new session/,
    false,
  ],
  [
    'socket frame_too_large',
    { code: 'frame_too_large', message: '64 KiB.' },
    /too large/,
    /report it/,
    false,
  ],
  [
    'socket idle_timeout',
    { code: 'idle_timeout', message: 'Idle.' },
    /5 minutes without new text/,
    /Start again/,
    false,
  ],
  [
    'socket session_duration_exceeded',
    { code: 'session_duration_exceeded', message: 'Long.' },
    /2-hour limit/,
    /new session/,
    false,
  ],
  [
    'socket synthesis_failed',
    { code: 'synthesis_failed', message: 'Engine.' },
    /engine failed/,
    /new take/,
    true,
  ],
  [
    'a LiveSpeechError from connectLiveSpeech',
    new LiveSpeechError('idle_timeout', 'No input for 5 minutes; the session was closed.'),
    /5 minutes without new text/,
    /Start again/,
    false,
  ],
  [
    'socket durable_api_key_required (admission code)',
    { code: 'durable_api_key_required', message: 'Needs a durable key.' },
    /temporary credential/,
    /Reload/,
    false,
  ],
  [
    'socket decoding refusal (admission code)',
    { code: 'invalid_request_error', message: 'top_k must be…', param: 'top_k' },
    /^Top-k is out of range/,
    /preset/,
    false,
  ],
]

describe('explainError', () => {
  it.each([...rows, ...socketRows])('%s', (_, error, title, action, retryable) => {
    const explained = explainError(error)
    expect(explained.title).toMatch(title)
    expect(explained.action).toMatch(action)
    expect(explained.retryable).toBe(retryable)
  })

  it('passes Retry-After on for the capacity refusals, and nothing otherwise', () => {
    expect(explainError(envelope(429, 'rate_limit_exceeded', null, 'Busy.', 1)).retryAfterSeconds).toBe(1)
    expect(explainError(envelope(503, 'voice_preparing', 'voice', 'Wait.', 5)).retryAfterSeconds).toBe(5)
    expect(explainError(envelope(429, 'rate_limit_exceeded')).retryAfterSeconds).toBeNull()
    expect(explainError(envelope(400, 'invalid_request_error', 'temperature')).retryAfterSeconds).toBeNull()
    expect(explainError(new IncompleteStreamError()).retryAfterSeconds).toBeNull()
  })

  it('covers every row of contract 7 that has a code', () => {
    const codes = rows.flatMap(([, e]) => (e instanceof ApiRequestError && e.code ? [e.code] : []))
    for (const code of [
      'invalid_request_error',
      'unsupported_audio_format',
      'durable_api_key_required',
      'voice_not_found',
      'speaker_verification_failed',
      'custom_voice_creation_busy',
      'rate_limit_exceeded',
      'diarization_not_enabled',
      'invalid_diarization_options',
      'invalid_response_format',
      'diarization_not_supported_on_transport',
    ]) {
      expect(codes).toContain(code)
    }
  })
})
