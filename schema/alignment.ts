import { z } from 'zod'

/**
 * Forced alignment (`POST /v1/audio/alignments`), an extension of the local service beyond the contract
 * (docs/api.md): where in a stretch of a recording each of the given words was said. The review page asks it for the
 * words a reviewer corrected; a service without it answers 404 and the page times them by proportion instead.
 */
export const MAX_ALIGNMENT_WORDS = 400
/** About a long speaker turn; grammar decoding grows with the audio, so a meeting is aligned turn by turn. */
export const MAX_ALIGNMENT_SECONDS = 120

export const alignedWordSchema = z.object({
  word: z.string(),
  /** Seconds from the start of the file, not of the span. */
  start: z.number(),
  end: z.number(),
})

export const alignmentSchema = z.object({
  object: z.literal('audio.alignment'),
  words: z.array(alignedWordSchema),
})
export type Alignment = z.infer<typeof alignmentSchema>

/** The studio's `POST /api/transcripts/:id/alignments`: the words of one stretch of a saved transcript's recording. */
export const alignmentRequestSchema = z.strictObject({
  start: z.number().min(0),
  end: z.number().positive(),
  words: z.array(z.string().max(100)).min(1).max(MAX_ALIGNMENT_WORDS),
})
export type AlignmentRequest = z.infer<typeof alignmentRequestSchema>
