import multipart from '@fastify/multipart'
import type { FastifyInstance } from 'fastify'
import { formatBytes } from '../../../core/bytes.ts'
import { readWav } from '../../../core/wav.ts'
import {
  MAX_TAKE_AUDIO_BYTES,
  MAX_TAKE_BYTES_PER_USER,
  MAX_TAKES_PER_USER,
  newTakeSchema,
  SAMPLE_RATE,
  takeUpdateSchema,
} from '../../../schema/index.ts'
import { readMultipart } from '../../multipart.ts'
import { pcm16WavHeader } from '../../wav.ts'
import { requireAccess, signedInName } from '../auth/routes.ts'
import {
  audioErased,
  conflict,
  invalidBody,
  notFound,
  refuse,
  refuseInvalid,
  scopeErrorHandler,
  tooLarge,
} from '../errors.ts'
import type { VoiceLineage } from './lineage.ts'
import { savedVoiceOf, type TakeStore } from './store.ts'

/**
 * A voice designer's take history, kept by the backend so takes survive a reload and follow the designer to another
 * browser. Owner-scoped like `/api/scripts` (scripts/routes.ts is the model): another user's take or script does not exist
 * for them (404, never 403).
 *
 * - `GET /api/scripts/:id/takes`: the script's takes (metadata), oldest first.
 * - `POST /api/scripts/:id/takes` (multipart: `take`, JSON of `newTakeSchema`; `audio`, 24 kHz mono PCM16 raw or as a
 *   WAV file): 201 with the stored take and the takes dropped to stay within the caps.
 * - `GET /api/takes/:id/audio`: the take as a WAV file (24 kHz mono PCM16).
 * - `PATCH /api/takes/:id` (`{name?, starred?}`): rename, star (un-starring the line's other take) or un-star.
 * - `DELETE /api/takes/:id` (204).
 * - `GET /api/takes/erasable?voice=…|consent=…` (consent administrators and admins): how many kept takes, of how many
 *   designers, deleting that voice or revoking that consent would erase (takes/lineage.ts).
 *
 * A take whose saved voice (or its consent) was revoked keeps its row, marked `erased`; its audio answers 410.
 */

const UPSTREAM_ID = /^[\w-]{1,200}$/

/** The refusal's words: what happened and when, for the page to show beside the take. */
export function erasedMessage(at: number): string {
  return `The audio of this take was erased: its voice was revoked on ${new Date(at).toISOString().slice(0, 10)}.`
}
/** The `take` field: a line's text of up to 40,000 characters is at most 160 KB of UTF-8, plus the settings. */
const MAX_TAKE_FIELD_BYTES = 256 * 1024
const WAV_HEADER_BYTES = 44

/**
 * The samples of an upload: raw PCM16, or a WAV file of 24 kHz mono PCM16 (its `data` chunk; a streaming header's
 * unknown size means "to the end"). A string says what is wrong.
 */
export function pcmOfUpload(bytes: Buffer): Buffer | string {
  if (bytes.length >= 12 && bytes.toString('ascii', 0, 4) === 'RIFF') {
    const wav = readWav(bytes)
    if (!wav) return 'a RIFF file that is not WAV'
    const broken = wav.chunks.some((c) => c.id === 'fmt ' && (c.size < 16 || c.body + 16 > bytes.length))
    if (broken) return 'a WAV file with a broken format chunk'
    const { fmt, data } = wav
    if (!data) return 'a WAV file without audio'
    if (fmt === null) return 'a WAV file without a format chunk before its audio'
    if (
      fmt.formatTag !== 1 ||
      fmt.channels !== 1 ||
      fmt.sampleRate !== SAMPLE_RATE ||
      fmt.bitsPerSample !== 16
    )
      return 'a WAV file that is not 24 kHz mono 16-bit PCM'
    // Only the "still streaming" size runs to the end; a declared 0 is an empty take.
    const end = data.declared === 0xffff_ffff ? bytes.length : data.offset + data.declared
    if (end > bytes.length) return 'a WAV file shorter than its header says'
    return bytes.subarray(data.offset, end - ((end - data.offset) % 2))
  }
  if (bytes.length % 2 !== 0) return 'PCM16 audio of an odd number of bytes'
  return bytes
}

/** A take's form: its details as JSON and its audio (raw PCM16, or WAV with its header). */
const TAKE_FORM = {
  fields: ['take'],
  files: { audio: MAX_TAKE_AUDIO_BYTES + WAV_HEADER_BYTES },
  maxFieldBytes: MAX_TAKE_FIELD_BYTES,
} as const

export function registerTakeRoutes(app: FastifyInstance, store: TakeStore, lineage: VoiceLineage) {
  // For consent administrators, outside the designers' scope below.
  app.get<{ Querystring: { voice?: unknown; consent?: unknown } }>(
    '/api/takes/erasable',
    {
      onRequest: requireAccess('erasable takes', 'Only consent administrators see what a revocation erases.'),
    },
    async (request, reply) => {
      const { voice, consent } = request.query
      const valid = (v: unknown): v is string => typeof v === 'string' && UPSTREAM_ID.test(v)
      if (voice !== undefined && !valid(voice))
        return refuse(reply, invalidBody('voice', 'Invalid voice id.'))
      if (consent !== undefined && !valid(consent))
        return refuse(reply, invalidBody('consent', 'Invalid consent id.'))
      if ((voice === undefined) === (consent === undefined))
        return refuse(reply, invalidBody(null, 'Name one voice or one consent.'))
      let voiceIds = voice === undefined ? [] : [voice]
      if (consent !== undefined) {
        // Its voices as the service lists them: those made outside the studio too.
        const voices = await lineage.savedVoices()
        voiceIds = [...(voices ?? new Map())].filter(([, c]) => c === consent).map(([id]) => id)
      }
      const counts = await store.erasable({
        voiceIds,
        ...(consent !== undefined ? { consentId: consent } : {}),
      })
      return reply.header('cache-control', 'no-store').send(counts)
    },
  )

  app.register(async (scope) => {
    await scope.register(multipart, { throwFileSizeLimit: true })
    scope.addHook('onRequest', requireAccess('takes', 'Only voice designers keep takes.'))
    scope.setErrorHandler(scopeErrorHandler({ internal: 'The take could not be stored.' }))

    scope.get<{ Params: { id: string } }>('/api/scripts/:id/takes', async (request, reply) => {
      const takes = await store.list(signedInName(request), request.params.id)
      if (!takes) return refuse(reply, notFound('No such script.'))
      return reply.header('cache-control', 'no-store').send({ data: takes })
    })

    scope.post<{ Params: { id: string } }>('/api/scripts/:id/takes', async (request, reply) => {
      const upload = await readMultipart(request, TAKE_FORM)
      const takeJson = upload.fields.take
      const audio = upload.files.audio?.bytes
      if (takeJson === undefined)
        return refuse(reply, invalidBody('take', 'Add the take’s details as the form field "take" (JSON).'))
      let json: unknown
      try {
        json = JSON.parse(takeJson)
      } catch {
        return refuse(reply, invalidBody('take', 'The field "take" is not JSON.'))
      }
      const parsed = newTakeSchema.safeParse(json)
      if (!parsed.success) return refuseInvalid(reply, 'take', parsed.error, 'take')
      if (!audio)
        return refuse(reply, invalidBody('audio', 'Add the take’s audio as the form field "audio".'))
      const pcm = pcmOfUpload(audio)
      if (typeof pcm === 'string') return refuse(reply, invalidBody('audio', `The audio is ${pcm}.`))
      if (pcm.length === 0) return refuse(reply, invalidBody('audio', 'The audio is empty.'))
      if (pcm.length > MAX_TAKE_AUDIO_BYTES)
        return refuse(
          reply,
          tooLarge(`A take holds at most ${MAX_TAKE_AUDIO_BYTES} bytes of audio.`, 'audio'),
        )

      const voiceId = savedVoiceOf(parsed.data.settings)
      const known = voiceId ? await lineage.lineageOf(voiceId) : undefined
      const outcome = await store.create(
        signedInName(request),
        request.params.id,
        parsed.data,
        pcm,
        Date.now(),
        {
          voiceId,
          consentId: known?.consentId ?? null,
        },
      )
      if (!outcome) return refuse(reply, notFound('No such script.'))
      // Made with a voice the service no longer has: kept as the record, its audio erased at once.
      if (voiceId && known?.gone && typeof outcome === 'object') {
        await lineage.erase({ voiceIds: [voiceId] }, 'voice_gone', null)
        const take = await store.get(signedInName(request), outcome.take.id)
        if (take) outcome.take = take
      }
      if (outcome === 'full')
        return refuse(
          reply,
          conflict(
            `Starred takes fill your take history (at most ${MAX_TAKES_PER_USER} takes and ${formatBytes(MAX_TAKE_BYTES_PER_USER)}). Un-star or delete some to keep new ones.`,
          ),
        )
      return reply.code(201).header('cache-control', 'no-store').send(outcome)
    })

    scope.get<{ Params: { id: string } }>('/api/takes/:id/audio', async (request, reply) => {
      const owner = signedInName(request)
      let audio = await store.audio(owner, request.params.id)
      if (!audio) return refuse(reply, notFound('No such take.'))
      // The first time the studio touches the voice since it went at the service, its takes go.
      if ('pcm' in audio && audio.voiceId && !(await lineage.stillThere(audio.voiceId)))
        audio = await store.audio(owner, request.params.id)
      if (!audio) return refuse(reply, notFound('No such take.'))
      if ('erased' in audio) return refuse(reply, audioErased(erasedMessage(audio.erased.at)))
      const { pcm } = audio
      const wav = Buffer.concat([pcm16WavHeader(SAMPLE_RATE, pcm.byteLength), pcm])
      return reply.header('cache-control', 'no-store').type('audio/wav').send(wav)
    })

    scope.patch<{ Params: { id: string } }>('/api/takes/:id', async (request, reply) => {
      const parsed = takeUpdateSchema.safeParse(request.body)
      if (!parsed.success) return refuseInvalid(reply, 'take', parsed.error)
      const outcome = await store.update(signedInName(request), request.params.id, parsed.data)
      if (!outcome) return refuse(reply, notFound('No such take.'))
      if (outcome === 'incomplete')
        return refuse(reply, conflict('Only a complete take can be starred.', 'starred'))
      if (outcome === 'erased')
        return refuse(reply, conflict('The audio of this take was erased; it cannot be chosen.', 'starred'))
      return reply.header('cache-control', 'no-store').send(outcome)
    })

    scope.delete<{ Params: { id: string } }>('/api/takes/:id', async (request, reply) => {
      if (!(await store.delete(signedInName(request), request.params.id)))
        return refuse(reply, notFound('No such take.'))
      return reply.code(204).send()
    })
  })
}
