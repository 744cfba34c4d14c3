import { z } from 'zod'
import { LINE_ID_PATTERN, SCRIPT_ID_PATTERN } from './scripts.ts'
import { MAX_INPUT_CHARS, SAMPLE_RATE, savedVoiceRefSchema, speechRequestSchema } from './speech.ts'

/**
 * The studio backend's take history (`/api/scripts/:scriptId/takes`, `/api/takes/:id`): every generation of a script
 * line the designer heard, kept per user with its audio (24 kHz mono PCM16, as the service produced it), the
 * settings it was made with and its timings. Spec-free: the studio's own contract.
 */

export const TAKE_ID_PATTERN = /^tk_[0-9a-f]{32}$/

/** Per user, across all their scripts: beyond either, the oldest unstarred takes are dropped. */
export const MAX_TAKES_PER_USER = 200
export const MAX_TAKE_BYTES_PER_USER = 200 * 1024 * 1024
/** One take's audio: 10 minutes of 24 kHz PCM16 (28.8 MB), far beyond one line of a script. */
export const MAX_TAKE_AUDIO_BYTES = 10 * 60 * SAMPLE_RATE * 2
export const MAX_TAKE_NAME_CHARS = 100

/**
 * The settings a take was made with: the speech request without its input. A reference clip is never kept (its
 * voice is then omitted and `reference` says so), so `voice` is a built-in id or a saved voice.
 */
export const takeSettingsSchema = speechRequestSchema
  .omit({ input: true, voice: true, instructions: true })
  .extend({ voice: z.union([z.string().min(1).max(100), savedVoiceRefSchema]).optional() })
export type TakeSettings = z.infer<typeof takeSettingsSchema>

export const TAKE_STATUSES = ['complete', 'incomplete'] as const

/**
 * Why a take's audio was erased: its voice's consent was revoked, the voice was deleted (both through the studio), or
 * the service no longer has the voice (removed there directly; which of the two is not known).
 */
export const ERASURE_REASONS = ['consent_revoked', 'voice_deleted', 'voice_gone'] as const
export type ErasureReason = (typeof ERASURE_REASONS)[number]

const takeErasedSchema = z.object({
  /** Milliseconds since 1970. */
  at: z.number().int(),
  reason: z.enum(ERASURE_REASONS),
})

/** What the page sends with a take's audio (the multipart field `take`, JSON). */
export const newTakeSchema = z.strictObject({
  line_id: z.string().regex(LINE_ID_PATTERN),
  /** The line's text when the take was made. */
  text: z.string().min(1).max(MAX_INPUT_CHARS),
  settings: takeSettingsSchema,
  /** Made with a one-request reference clip (the clip itself is not kept). */
  reference: z.boolean().default(false),
  /** A broken stream leaves an incomplete take; it is kept as heard and never continued. */
  status: z.enum(TAKE_STATUSES),
  /** Made by the final render (`stream: false`). */
  final: z.boolean().default(false),
  /** Play → first audible sample, as the Playback panel showed it; null when this take did not start the play. */
  time_to_first_audio_ms: z.number().int().min(0).max(3_600_000).nullable().default(null),
})
export type NewTake = z.input<typeof newTakeSchema>

/** A stored take without its audio (`GET /api/takes/:id/audio` serves that as WAV). */
export const storedTakeSchema = z.object({
  id: z.string().regex(TAKE_ID_PATTERN),
  script_id: z.string().regex(SCRIPT_ID_PATTERN),
  line_id: z.string().regex(LINE_ID_PATTERN),
  text: z.string(),
  settings: takeSettingsSchema,
  reference: z.boolean(),
  status: z.enum(TAKE_STATUSES),
  final: z.boolean(),
  starred: z.boolean(),
  /** The designer's own name for it; null shows the take's number. */
  name: z.string().nullable(),
  time_to_first_audio_ms: z.number().int().nullable(),
  /** Samples of 24 kHz audio. */
  samples: z.number().int(),
  /**
   * Integrated loudness (ITU-R BS.1770-4) of its audio in LUFS, measured by the backend as it stored the take. Null:
   * not measurable (silent, or shorter than one 400 ms block) or a take stored before loudness was measured; absent
   * from an older backend.
   */
  loudness_lufs: z.number().nullable().optional(),
  /** When the backend stored it, milliseconds since 1970; the oldest unstarred go first beyond the caps. */
  created_at: z.number().int(),
  /**
   * Set once the saved voice it was made with, or that voice's consent, is gone: the audio is erased (its requests
   * answer 410), the row stays as the record. Absent or null: the audio is kept.
   */
  erased: takeErasedSchema.nullable().optional(),
})
export type StoredTake = z.infer<typeof storedTakeSchema>

export const takeListSchema = z.object({ data: z.array(storedTakeSchema) })

/** 201 to a new take: it, and the takes dropped to stay within the caps (the page tells the designer). */
export const takeCreatedSchema = z.object({
  take: storedTakeSchema,
  dropped: z.array(
    z.object({
      id: z.string().regex(TAKE_ID_PATTERN),
      script_id: z.string(),
      line_id: z.string(),
    }),
  ),
})
export type TakeCreated = z.infer<typeof takeCreatedSchema>

/** PATCH body: rename (null clears the name) and/or star (one starred take per line; starring un-stars the other). */
export const takeUpdateSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(MAX_TAKE_NAME_CHARS).nullable().optional(),
    starred: z.boolean().optional(),
  })
  .refine((u) => u.name !== undefined || u.starred !== undefined, { error: 'name or starred is required' })
export type TakeUpdate = z.infer<typeof takeUpdateSchema>

/**
 * `GET /api/takes/erasable?voice=…` or `?consent=…` (consent administrators): how many kept takes, of how many
 * designers, revoking that consent or deleting that voice would erase.
 */
export const erasableTakesSchema = z.object({ takes: z.number().int(), users: z.number().int() })
export type ErasableTakes = z.infer<typeof erasableTakesSchema>

/** One line of the audit trail's erasures (`GET /api/audit/erasures`): how many of one designer's takes went. */
export const takeErasureSchema = z.object({
  id: z.number().int(),
  /** Unix time in seconds, as the rest of the audit trail. */
  at: z.number().int(),
  /** The designer whose takes' audio was erased. */
  owner: z.string(),
  takes: z.number().int(),
  voice_id: z.string(),
  consent_id: z.string().nullable(),
  reason: z.enum(ERASURE_REASONS),
  /** Who deleted or revoked through the studio; null when the studio found the voice gone at the service. */
  by: z.string().nullable(),
})
export type TakeErasure = z.infer<typeof takeErasureSchema>
export const takeErasuresSchema = z.object({ object: z.literal('list'), data: z.array(takeErasureSchema) })
export type TakeErasures = z.infer<typeof takeErasuresSchema>
