import { CONSENT_LIST_MAX, MAX_REFERENCE_BYTES } from '../../schema/index.ts'

/** OpenAPI paths of saved voices and consents (contract 4.3–4.8); shapes in components, decisions in docs/. */

const json = (ref: string, description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
})
const envelope = (description: string) => json('ErrorEnvelope', description)
const detail = (description: string) => json('DetailError', description)
const multipart = (properties: Record<string, object>, required: string[]) => ({
  required: true,
  content: { 'multipart/form-data': { schema: { type: 'object', properties, required } } },
})
const file = (description: string) => ({ type: 'string', format: 'binary', description })
const text = (description: string) => ({ type: 'string', description })
const idParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } })

const auth = {
  '401': envelope('Missing or invalid key.'),
  '403': envelope(
    '`insufficient_permissions` (needs voices:manage) or `durable_api_key_required` (ek_ credential).',
  ),
}
const upload = `at most ${MAX_REFERENCE_BYTES / 1024 / 1024} MiB; WAV, MP3, OGG, AAC, FLAC, WebM or MP4`

export const voicePaths = {
  '/v1/audio/voices': {
    post: {
      operationId: 'createVoice',
      summary: 'Save a voice from a sample, bound to a consent or in the extension form',
      requestBody: multipart(
        {
          name: text('Name of the voice.'),
          audio_sample: file(`Reference sample, 1–120 s, ${upload}.`),
          consent: text('cons_ id; the sample speaker must match the consent speaker.'),
          reference_transcript: text('Exact words of the sample; skips internal transcription.'),
        },
        ['name', 'audio_sample'],
      ),
      responses: {
        '200': json('SavedVoice', 'The saved voice.'),
        '400': envelope('`invalid_audio` (param audio_sample), or a `detail` error for other fields.'),
        ...auth,
        '404': envelope('`consent_not_found`.'),
        '413': detail('audio_sample larger than the limit.'),
        '415': detail('Not multipart/form-data.'),
        '422': envelope('`speaker_verification_failed` (param audio_sample).'),
        '429': envelope('`custom_voice_creation_busy`: the cloning queue is full. Retry-After.'),
      },
    },
    get: {
      operationId: 'voicesNotListed',
      summary: 'Not a listing route (use GET /v1/voices)',
      responses: { '405': detail('Always; header Allow: POST.') },
    },
  },
  '/v1/audio/voices/{voice_id}': {
    delete: {
      operationId: 'deleteVoice',
      summary: 'Revoke one saved voice and remove its stored audio',
      parameters: [idParam('voice_id')],
      responses: { '200': json('Deletion', 'Deleted.'), ...auth, '404': envelope('`voice_not_found`.') },
    },
  },
  '/v1/audio/voice_consents': {
    post: {
      operationId: 'createVoiceConsent',
      summary: "Record a voice owner's consent",
      requestBody: multipart(
        {
          name: text('Name of the consent.'),
          language: text('Language tag, xx or xx-XX.'),
          recording: file(`The owner saying the consent phrase, 2–30 s, ${upload}.`),
          consent_transcript: text('Exact words of the recording; skips the recognizer.'),
        },
        ['name', 'language', 'recording'],
      ),
      responses: {
        '200': json('VoiceConsent', 'The consent.'),
        '400': envelope(
          '`invalid_audio`, `recording_duration_out_of_range`, `multiple_speakers`, `music_detected`, `consent_phrase_mismatch`; or a `detail` error for other fields.',
        ),
        ...auth,
        '413': detail('recording larger than the limit.'),
        '415': detail('Not multipart/form-data.'),
        '503': envelope('`recognition_unavailable`: no recognizer installed and no consent_transcript sent.'),
      },
    },
    get: {
      operationId: 'listVoiceConsents',
      summary: "The caller's consents, newest first",
      parameters: [
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: CONSENT_LIST_MAX },
        },
        { name: 'after', in: 'query', required: false, schema: { type: 'string' } },
      ],
      responses: {
        '200': json('ConsentList', 'One page.'),
        '400': detail('Invalid limit or after.'),
        ...auth,
        '404': envelope("`consent_not_found`: the cursor is not one of the caller's consents."),
      },
    },
  },
  '/v1/audio/voice_consents/{consent_id}': {
    delete: {
      operationId: 'deleteVoiceConsent',
      summary: 'Delete a consent and revoke every voice bound to it',
      parameters: [idParam('consent_id')],
      responses: { '200': json('Deletion', 'Deleted.'), ...auth, '404': envelope('`consent_not_found`.') },
    },
  },
}

/** One-request cloning (4.2): the accepted multipart fields; any other field is a 400. */
export const cloningFormSchema = {
  type: 'object',
  description:
    'One-request cloning: a voice prepared from reference_audio for this request only, never saved.',
  properties: {
    model: { type: 'string', const: 'svc-tts-2-latest' },
    input: text('Text to speak.'),
    reference_audio: file(`Reference clip, ${upload}.`),
    reference_transcript: text('Exact words of the reference.'),
    response_format: text('As in the JSON form.'),
    stream_format: text('audio or sse.'),
    speed: text('Number, 0.25–4.0.'),
    instructions: text('Accepted and ignored.'),
    mode: text('stable or expressive.'),
    temperature: text('Number.'),
    top_p: text('Number.'),
    top_k: text('Whole number.'),
    min_p: text('Number.'),
    max_new_tokens: text('Whole number.'),
  },
  required: ['model', 'input', 'reference_audio'],
}
