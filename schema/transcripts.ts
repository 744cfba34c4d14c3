import { z } from 'zod'
import { diarizationBlockSchema, diarizationTurnSchema, transcriptSegmentSchema } from './transcription.ts'

/**
 * The studio backend's own `/api/transcripts` contract: saved transcripts (the service's result kept exactly as it
 * came, contract 4.12), reviewers' label edits kept apart from it, and waveform peaks. The service's shapes are in
 * transcription.ts.
 */

/** File extensions the upload accepts (the service's decoders: WAV, MP3, Ogg Vorbis/Opus, AAC, FLAC, WebM, MP4). */
export const TRANSCRIPTION_EXTENSIONS = [
  'wav',
  'mp3',
  'ogg',
  'oga',
  'opus',
  'aac',
  'flac',
  'webm',
  'mp4',
  'm4a',
  'mpga',
  'mpeg',
] as const

/**
 * A stored result: what the service's `transcript.text.done` carried, less its `type` (verbose_json, or json from an
 * older save). Read leniently so a field the service adds later never makes a saved transcript unreadable.
 */
export const storedResultSchema = z.looseObject({
  text: z.string(),
  warnings: z.array(z.looseObject({ code: z.string(), message: z.string().optional() })).default([]),
  language: z.string().optional(),
  duration: z.number().optional(),
  segments: z.array(transcriptSegmentSchema.loose()).optional(),
  diarization: diarizationBlockSchema
    .extend({ status: z.string(), turns: z.array(diarizationTurnSchema.loose()).optional() })
    .loose()
    .optional(),
})
export type StoredResult = z.infer<typeof storedResultSchema>

// --- The studio backend: /api/transcripts ---

const speakerId = z.string().min(1).max(64)

const turnKey = z.string().regex(/^\d{1,6}$/)

/** Where a reviewer split a turn (seconds in the recording), and who speaks the part after it (null: unattributed). */
export const turnSplitSchema = z.strictObject({
  at: z.number().finite().min(0),
  speaker: speakerId.nullable(),
})
export type TurnSplit = z.infer<typeof turnSplitSchema>

/** Split points one turn may hold. */
export const MAX_SPLITS_PER_TURN = 50

/** Characters of a turn's corrected text. */
export const MAX_TURN_TEXT = 10_000

/**
 * Where a corrected turn's words were said, found by forced alignment (`POST /api/transcripts/:id/alignments`): one
 * [start, end] per word of `text`, used while `text` is still the turn's corrected text.
 */
export const turnTimingSchema = z.strictObject({
  text: z.string().max(MAX_TURN_TEXT),
  spans: z.array(z.tuple([z.number().min(0), z.number().min(0)])).max(MAX_TURN_TEXT),
})
export type TurnTiming = z.infer<typeof turnTimingSchema>

/**
 * A reviewer's edits, kept apart from the service's result: display names, merges (speaker → the speaker it was
 * merged into), turns reassigned by their index in the result's turn list (null: unattributed), and turns split at
 * points in time (by the same index; each part after a point goes to that point's speaker, the part before the first
 * point stays the turn's own). A speaker id the result never had is one the reviewer added. `texts` holds a turn's
 * words as the reviewer corrected them (by the same index; the words' times are worked out from the result's, see
 * core/word-alignment.ts; `timings` where forced alignment placed them). `splits`, `texts` and `timings` are left
 * out when there are none, so edits saved before they existed read the same.
 */
export const labelEditsSchema = z.strictObject({
  names: z.record(speakerId, z.string().trim().min(1).max(80)).default({}),
  merges: z.record(speakerId, speakerId).default({}),
  turns: z.record(turnKey, speakerId.nullable()).default({}),
  splits: z.record(turnKey, z.array(turnSplitSchema).min(1).max(MAX_SPLITS_PER_TURN)).optional(),
  texts: z.record(turnKey, z.string().max(MAX_TURN_TEXT)).optional(),
  timings: z.record(turnKey, turnTimingSchema).optional(),
})
export type LabelEdits = z.infer<typeof labelEditsSchema>

export const EMPTY_EDITS: LabelEdits = { names: {}, merges: {}, turns: {} }

/**
 * PUT /api/transcripts/:id/labels (speaker edits and text corrections alike). `revision` is the one the edits were
 * based on; a stale one gets 409.
 */
export const saveLabelsRequestSchema = z.strictObject({
  edits: labelEditsSchema,
  revision: z.number().int().min(0),
})

export const savedLabelsSchema = z.object({
  edits: labelEditsSchema,
  revision: z.number().int().min(0),
  updated_at: z.number().nullable(),
  updated_by: z.string().nullable(),
})
export type SavedLabels = z.infer<typeof savedLabelsSchema>

/** Waveform peaks: the largest absolute sample in each of `data.length` equal slices of the recording, 0…1. */
export const MAX_PEAKS = 200_000
export const peaksSchema = z.strictObject({
  data: z.array(z.number().min(0).max(1)).min(1).max(MAX_PEAKS),
  duration: z.number().positive(),
})
export type Peaks = z.infer<typeof peaksSchema>

export const TRANSCRIPT_SOURCES = ['upload', 'live'] as const

export const transcriptSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  source: z.enum(TRANSCRIPT_SOURCES),
  created_at: z.number(),
  created_by: z.string(),
  duration: z.number().nullable(),
  audio_type: z.string(),
  audio_bytes: z.number(),
  /** The diarization status the service reported, or null when it was not asked for. */
  diarization_status: z.string().nullable(),
  speakers: z.number().int(),
  turns: z.number().int(),
  edited: z.boolean(),
})
export type TranscriptSummary = z.infer<typeof transcriptSummarySchema>

export const transcriptListSchema = z.object({ data: z.array(transcriptSummarySchema) })

export const savedTranscriptSchema = transcriptSummarySchema.extend({
  /** The service's result exactly as it came; never changed by edits. */
  result: storedResultSchema,
  labels: savedLabelsSchema,
  peaks: peaksSchema.nullable(),
  audio_url: z.string(),
})
export type SavedTranscript = z.infer<typeof savedTranscriptSchema>
