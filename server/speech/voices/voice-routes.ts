import type { FastifyInstance } from 'fastify'
import {
  consentIdPattern,
  type Deletion,
  NAME_MAX_CHARS,
  type SavedVoice,
  savedVoiceIdPattern,
  VOICE_SAMPLE_MAX_BYTES,
} from '../../../schema/index.ts'
import { authenticate } from '../access/auth.ts'
import type { KeyStore } from '../access/key-store.ts'
import { ApiError, badRequest, consentNotFound, voiceNotFound } from '../errors.ts'
import { requestLease } from '../limits/lease.ts'
import { readForm } from '../multipart-form.ts'
import type { VoiceService } from './voice-service.ts'

const MANAGING = 'Managing saved voices'

export function requiredName(raw: string | undefined): string {
  const name = raw?.trim()
  if (!name) throw badRequest('name is required.', 'name')
  if (name.length > NAME_MAX_CHARS)
    throw badRequest(`name is longer than ${NAME_MAX_CHARS} characters.`, 'name')
  // PostgreSQL's text cannot hold a NUL; refused on either backend, so both give the same answer.
  if (name.includes('\u0000')) throw badRequest('name must not contain a NUL character.', 'name')
  return name
}

/** Saved voices (contract 4.3–4.5): create from a sample (bound to a consent or not), delete; no listing route here. */
export function savedVoiceRoutes(app: FastifyInstance, deps: { keys: KeyStore; voices: VoiceService }) {
  const { keys, voices } = deps

  app.post('/v1/audio/voices', async (request, reply): Promise<SavedVoice> => {
    // Taken before any await: its signal is aborted even if the client left while the sample was being read.
    const lease = requestLease(reply)
    const principal = await authenticate(keys, request, 'voices:manage', MANAGING)
    const form = await readForm(request, {
      fields: ['name', 'consent', 'reference_transcript'],
      files: { audio_sample: VOICE_SAMPLE_MAX_BYTES },
    })
    const name = requiredName(form.fields.name)
    const consent = form.fields.consent?.trim() || null
    if (consent !== null && !consentIdPattern.test(consent)) throw consentNotFound()
    const sample = form.files.audio_sample
    if (!sample)
      throw badRequest('audio_sample is required (the reference sample as a file).', 'audio_sample')
    // A client that gives up leaves the cloning queue (or stops its transcription) at once.
    const voice = await voices.createVoice(
      principal.ownerId,
      { name, consentId: consent, transcript: form.fields.reference_transcript },
      sample,
      lease.signal,
    )
    return { id: voice.id, object: 'audio.voice', name: voice.name, created_at: voice.createdAt }
  })

  app.delete<{ Params: { voice_id: string } }>(
    '/v1/audio/voices/:voice_id',
    async (request): Promise<Deletion> => {
      const principal = await authenticate(keys, request, 'voices:manage', MANAGING)
      const id = request.params.voice_id
      if (!savedVoiceIdPattern.test(id) || !(await voices.store.deleteVoice(principal.ownerId, id)))
        throw voiceNotFound()
      return { id, deleted: true, object: 'audio.voice' }
    },
  )

  app.get('/v1/audio/voices', async () => {
    throw new ApiError(
      405,
      'detail',
      'GET /v1/audio/voices does not list voices; use GET /v1/voices.',
      null,
      null,
      'invalid_request_error',
      {
        allow: 'POST',
      },
    )
  })
}
