import { z } from 'zod'
import type { UpstreamKind } from './health.ts'
import { MODELS, type ModelId } from './voices.ts'

/**
 * The studio backend's `/api/pronunciations` contract: the studio's lexicon, shared by all its voice designers. An
 * entry says how a word or phrase is to be said: a respelling ("Say it as") that every model reads, and optionally
 * its phonemes in IPA, which only an engine that takes phoneme input honours (`PHONEME_INPUT`).
 */

export const MAX_PRONUNCIATION_TEXT_CHARS = 100
export const MAX_SAY_AS_CHARS = 200
export const MAX_PHONEMES_CHARS = 200
/** Entries of one studio; an import holds at most as many. */
export const MAX_PRONUNCIATIONS = 2_000

/**
 * Characters a word, a respelling or phonemes may not hold: the brackets of the inline markup (contract 2.7) and of
 * the local service's phoneme form, so an entry can never make or break a tag; and line breaks, which end a line.
 */
const MARKUP_CHARACTERS = /[[\]<>(){}\n\r\t]/

const field = (max: number, what: string) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((s) => !MARKUP_CHARACTERS.test(s), {
      error: `${what} holds no brackets ([ ] < > ( ) { }), tabs or line breaks`,
    })

export const pronunciationInputSchema = z.strictObject({
  /** The word or phrase as written; matched as whole words, any run of spaces matching any other. */
  text: field(MAX_PRONUNCIATION_TEXT_CHARS, 'a word or phrase').refine((s) => /[\p{L}\p{N}]/u.test(s), {
    error: 'a word or phrase holds a letter or a digit',
  }),
  /** What is sent instead: a respelling any model reads ("Say it as"). */
  say_as: field(MAX_SAY_AS_CHARS, 'a respelling'),
  /** IPA, honoured where the engine takes phonemes; elsewhere the respelling is sent. */
  phonemes: field(MAX_PHONEMES_CHARS, 'phonemes').optional(),
  /** Match the case as written; by default any case matches. */
  case_sensitive: z.boolean().default(false),
})
export type PronunciationInput = z.input<typeof pronunciationInputSchema>
export type PronunciationEntry = z.output<typeof pronunciationInputSchema>

export const PRONUNCIATION_ID_PATTERN = /^pron_[0-9a-f]{32}$/

export const pronunciationSchema = z.object({
  id: z.string().regex(PRONUNCIATION_ID_PATTERN),
  text: z.string(),
  say_as: z.string(),
  phonemes: z.string().nullable(),
  case_sensitive: z.boolean(),
  created_by: z.string(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
})
export type Pronunciation = z.infer<typeof pronunciationSchema>
export const pronunciationListSchema = z.object({ data: z.array(pronunciationSchema) })

/** `POST /api/pronunciations/import`: entries added, or replacing the entry of the same word and case rule. */
export const pronunciationImportSchema = z.strictObject({
  entries: z.array(pronunciationInputSchema).min(1).max(MAX_PRONUNCIATIONS),
})
export const pronunciationImportResultSchema = z.object({
  data: z.array(pronunciationSchema),
  added: z.number().int(),
  replaced: z.number().int(),
})
export type PronunciationImportResult = z.infer<typeof pronunciationImportResultSchema>

/**
 * The one key two entries may not share: the word with its spaces collapsed, lower-cased unless its case is matched.
 * "Kokoro" (any case) and "kokoro" (any case) are the same entry; "Kokoro" (case as written) is another.
 */
export function pronunciationKey(entry: { text: string; case_sensitive: boolean }): string {
  const text = entry.text.trim().replace(/\s+/g, ' ')
  return entry.case_sensitive ? `case:${text}` : `any:${text.toLowerCase()}`
}

/**
 * Which models honour phonemes, by where the speech service runs. The embedded service's eSpeak NG speaks every model
 * and takes the phoneme form `[[IPA]]` (docs/markup.md); a hosted service implements the contract, which has no
 * phoneme input, so there the respelling is sent and the page says so. The one table the studio asks.
 */
export const PHONEME_INPUT: Record<UpstreamKind, Record<ModelId, boolean>> = {
  embedded: Object.fromEntries(MODELS.map((m) => [m, true])) as Record<ModelId, boolean>,
  remote: Object.fromEntries(MODELS.map((m) => [m, false])) as Record<ModelId, boolean>,
}

export function phonemesHonoured(upstream: UpstreamKind | undefined, model: ModelId): boolean {
  return upstream !== undefined && PHONEME_INPUT[upstream][model]
}
