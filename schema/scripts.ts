import { z } from 'zod'
import { isSpeakerName, MAX_CAST_NAME_CHARS, speakerKey } from './speaker.ts'
import { decodingField, MAX_INPUT_CHARS, MODES } from './speech.ts'
import { MODELS } from './voices.ts'

/**
 * The studio backend's `/api/scripts` contract: a voice designer's script, one line per take unit, with the script's
 * voice settings and per-line overrides. Omitted decoding fields mean "from the mode's preset" (contract 2.8 rule 1), so
 * they are never filled in with the preset's values.
 */

export const MAX_SCRIPT_TITLE_CHARS = 200
/** The whole script, all lines and their line breaks; the same as one speech request's input limit. */
export const MAX_SCRIPT_CHARS = MAX_INPUT_CHARS
export const MAX_SCRIPT_LINES = 2_000
/** The range the contract recommends for one request's input (8. Limits). */
export const RECOMMENDED_SCRIPT_CHARS = { min: 400, max: 5_000 } as const

/** Voice and synthesis settings. A built-in voice id, or a saved voice's `voice_<id>`. */
export const voiceSettingsSchema = z.strictObject({
  model: z.enum(MODELS),
  voice: z.string().min(1).max(100),
  speed: z.number().min(0.25).max(4.0).optional(),
  mode: z.enum(MODES).optional(),
  temperature: decodingField('temperature')
    .transform((v) => v ?? undefined)
    .optional(),
  top_p: decodingField('top_p')
    .transform((v) => v ?? undefined)
    .optional(),
  top_k: decodingField('top_k')
    .transform((v) => v ?? undefined)
    .optional(),
  min_p: decodingField('min_p')
    .transform((v) => v ?? undefined)
    .optional(),
  max_new_tokens: decodingField('max_new_tokens')
    .transform((v) => v ?? undefined)
    .optional(),
})
export type VoiceSettings = z.infer<typeof voiceSettingsSchema>

/** A line's own settings: any field given replaces the script's. */
export const lineOverrideSchema = voiceSettingsSchema.partial()
export type LineOverride = z.infer<typeof lineOverrideSchema>

export const LINE_ID_PATTERN = /^ln_[0-9a-z]{6,32}$/

export const scriptLineSchema = z.strictObject({
  /** Stable across edits of the text, so takes and overrides stay with their line. */
  id: z.string().regex(LINE_ID_PATTERN),
  text: z.string().refine((t) => !t.includes('\n'), { error: 'a line holds no line break' }),
  override: lineOverrideSchema.optional(),
  /**
   * Locked: the line's chosen (starred) take is kept as it is, the line is never generated again (not by a play, the
   * changed lines or the final render) and its text cannot be edited until it is unlocked. Absent: not locked.
   */
  locked: z.boolean().optional(),
})
export type ScriptLine = z.infer<typeof scriptLineSchema>

/** A dialogue's speakers; more would not fit a cast list anyone can read. */
export const MAX_CAST_MEMBERS = 50

/**
 * A cast member: lines starting with `NAME:` are theirs (schema/speaker.ts). Their settings are a partial override
 * like a line's: each field given replaces the script's, and a line's own override replaces theirs.
 */
export const castMemberSchema = z.strictObject({
  name: z
    .string()
    .max(MAX_CAST_NAME_CHARS)
    .refine(isSpeakerName, {
      error: `a cast name is 1 to 3 words, each starting with a capital letter, at most ${MAX_CAST_NAME_CHARS} characters (as a line starts with it: "ALICE: Hello")`,
    }),
  settings: lineOverrideSchema,
})
export type CastMember = z.infer<typeof castMemberSchema>

export const castSchema = z
  .array(castMemberSchema)
  .max(MAX_CAST_MEMBERS)
  .superRefine((cast, ctx) => {
    const seen = new Set<string>()
    for (const [i, member] of cast.entries()) {
      const key = speakerKey(member.name)
      if (seen.has(key))
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `${member.name} is in the cast twice` })
      seen.add(key)
    }
  })

export const scriptDocumentSchema = z
  .strictObject({
    title: z.string().trim().min(1).max(MAX_SCRIPT_TITLE_CHARS),
    settings: voiceSettingsSchema,
    lines: z.array(scriptLineSchema).min(1).max(MAX_SCRIPT_LINES),
    /** Absent in scripts saved before casts, and in those without one. */
    cast: castSchema.optional(),
  })
  .superRefine((doc, ctx) => {
    if (scriptCharacters(doc.lines) > MAX_SCRIPT_CHARS)
      ctx.addIssue({
        code: 'custom',
        path: ['lines'],
        message: `a script holds at most ${MAX_SCRIPT_CHARS} characters`,
      })
    const ids = new Set(doc.lines.map((l) => l.id))
    if (ids.size !== doc.lines.length)
      ctx.addIssue({ code: 'custom', path: ['lines'], message: 'line ids must be unique' })
  })
export type ScriptDocument = z.infer<typeof scriptDocumentSchema>

/** Characters of the script as the editor shows it: the lines joined by line breaks. */
export function scriptCharacters(lines: readonly { text: string }[]): number {
  return lines.reduce((n, l) => n + l.text.length, 0) + Math.max(0, lines.length - 1)
}

export const SCRIPT_ID_PATTERN = /^scr_[0-9a-f]{32}$/

export const savedScriptSchema = z.object({
  id: z.string().regex(SCRIPT_ID_PATTERN),
  title: z.string(),
  settings: voiceSettingsSchema,
  lines: z.array(scriptLineSchema),
  cast: z.array(castMemberSchema).default([]),
  /** Increases with every save; a save names the revision it was made on (409 when another save came between). */
  revision: z.number().int().min(1),
  created_at: z.number().int(),
  updated_at: z.number().int(),
})
export type SavedScript = z.infer<typeof savedScriptSchema>

export const scriptSummarySchema = z.object({
  id: z.string().regex(SCRIPT_ID_PATTERN),
  title: z.string(),
  characters: z.number().int(),
  lines: z.number().int(),
  revision: z.number().int(),
  updated_at: z.number().int(),
})
export type ScriptSummary = z.infer<typeof scriptSummarySchema>
export const scriptListSchema = z.object({ data: z.array(scriptSummarySchema) })

/** PUT body: the document and the revision it was edited from. */
export const scriptUpdateSchema = z.strictObject({
  script: scriptDocumentSchema,
  revision: z.number().int().min(1),
})
