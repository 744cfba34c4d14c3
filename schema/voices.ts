import { z } from 'zod'

/**
 * The built-in voice catalog of the contract (2.2). The spec names only the default, the 0.8 counterparts and the
 * language voices; the remaining character (01-09) and descriptive (18-37) ids are this service's own choice
 * (docs/api.md, "The voice catalog"). Ids are case-sensitive.
 */

export const SECOND_GEN_MODEL = 'svc-tts-2-latest'
export const LEGACY_MODELS = ['svc-tts-nano-0.8', 'svc-tts-micro-0.8', 'svc-tts-mini-0.8'] as const
export const MODELS = [SECOND_GEN_MODEL, ...LEGACY_MODELS] as const
export type ModelId = (typeof MODELS)[number]
export const DEFAULT_MODEL: ModelId = 'svc-tts-mini-0.8'

export type VoiceGroup = 'character' | 'counterpart' | 'descriptive' | 'language' | 'legacy'

/** Language tags are BCP 47 primary tags with region where it matters for the engine. */
export interface BuiltinVoice {
  id: string
  group: VoiceGroup
  language: string
  gender: 'female' | 'male' | 'neutral'
  description: string
}

export const LEGACY_VOICE_IDS = ['Bella', 'Jasper', 'Luna', 'Bruno', 'Rosie', 'Hugo', 'Kiki', 'Leo'] as const

const legacyGender: Record<(typeof LEGACY_VOICE_IDS)[number], 'female' | 'male'> = {
  Bella: 'female',
  Jasper: 'male',
  Luna: 'female',
  Bruno: 'male',
  Rosie: 'female',
  Hugo: 'male',
  Kiki: 'female',
  Leo: 'male',
}

const character: Array<[string, BuiltinVoice['gender'], string]> = [
  ['captain_01', 'male', 'gruff sea captain'],
  ['narrator_02', 'male', 'warm storybook narrator'],
  ['robot_03', 'neutral', 'clipped robotic assistant'],
  ['witch_04', 'female', 'crackling old witch'],
  ['knight_05', 'male', 'proud knight'],
  ['pixie_06', 'female', 'bright, quick pixie'],
  ['giant_07', 'male', 'slow, deep giant'],
  ['detective_08', 'male', 'dry noir detective'],
  ['announcer_09', 'female', 'stadium announcer'],
]

const descriptive: Array<[string, BuiltinVoice['gender'], string]> = [
  ['amber_warm_female_18', 'female', 'warm, friendly'],
  ['owen_calm_male_19', 'male', 'calm, even'],
  ['iris_bright_female_20', 'female', 'bright, upbeat'],
  ['marcus_deep_male_21', 'male', 'deep, resonant'],
  ['nora_soft_female_22', 'female', 'soft, gentle'],
  ['felix_energetic_male_23', 'male', 'energetic'],
  ['clara_crisp_female_24', 'female', 'crisp, precise'],
  ['silas_gravelly_male_25', 'male', 'gravelly'],
  ['mia_young_female_26', 'female', 'young, light'],
  ['victor_authoritative_male_27', 'male', 'authoritative'],
  ['hazel_breathy_female_28', 'female', 'breathy'],
  ['theo_relaxed_male_29', 'male', 'relaxed'],
  ['june_cheerful_female_30', 'female', 'cheerful'],
  ['arthur_elderly_male_31', 'male', 'elderly'],
  ['eleanor_somber_female_32', 'female', 'somber, measured'],
  ['dex_fast_male_33', 'male', 'fast-talking'],
  ['lily_whisper_female_34', 'female', 'whispery'],
  ['reed_nasal_male_35', 'male', 'nasal'],
  ['sage_neutral_female_36', 'female', 'neutral newsreader'],
  ['gus_hoarse_male_37', 'male', 'hoarse'],
]

const languages: Array<[string, string, BuiltinVoice['gender']]> = [
  ['arabic_38', 'ar', 'male'],
  ['german_39', 'de', 'female'],
  ['english_40', 'en-US', 'male'],
  ['spanish_41', 'es', 'female'],
  ['french_42', 'fr', 'male'],
  ['italian_43', 'it', 'female'],
  ['portuguese_44', 'pt', 'male'],
  ['russian_45', 'ru', 'female'],
  ['chinese_46', 'zh-CN', 'male'],
  ['hindi_47', 'hi', 'female'],
]

export const SECOND_GEN_VOICES: readonly BuiltinVoice[] = [
  ...character.map(([id, gender, description]) => ({
    id,
    group: 'character' as const,
    language: 'en-US',
    gender,
    description,
  })),
  ...LEGACY_VOICE_IDS.map((name, i) => ({
    id: `${name.toLowerCase()}_${10 + i}`,
    group: 'counterpart' as const,
    language: 'en-US',
    gender: legacyGender[name],
    description: `second-generation counterpart of ${name}`,
  })),
  ...descriptive.map(([id, gender, description]) => ({
    id,
    group: 'descriptive' as const,
    language: 'en-US',
    gender,
    description,
  })),
  ...languages.map(([id, language, gender]) => ({
    id,
    group: 'language' as const,
    language,
    gender,
    description: `${id.split('_')[0]} speaker`,
  })),
]

export const LEGACY_VOICES: readonly BuiltinVoice[] = LEGACY_VOICE_IDS.map((id) => ({
  id,
  group: 'legacy' as const,
  language: 'en-US',
  gender: legacyGender[id],
  description: `0.8 speaker ${id}`,
}))

export const DEFAULT_SECOND_GEN_VOICE = 'eleanor_somber_female_32'
export const DEFAULT_LEGACY_VOICE = 'Bella'

export function isSecondGen(model: ModelId): boolean {
  return model === SECOND_GEN_MODEL
}

export function builtinVoicesFor(model: ModelId): readonly BuiltinVoice[] {
  return isSecondGen(model) ? SECOND_GEN_VOICES : LEGACY_VOICES
}

export function defaultVoiceFor(model: ModelId): string {
  return isSecondGen(model) ? DEFAULT_SECOND_GEN_VOICE : DEFAULT_LEGACY_VOICE
}

/** The language tag of a built-in voice, or undefined for an id the catalog does not hold. */
export function builtinVoiceLanguage(id: string): string | undefined {
  return [...SECOND_GEN_VOICES, ...LEGACY_VOICES].find((v) => v.id === id)?.language
}

/** One entry of `GET /v1/voices` (4.9; shape decided in docs/api.md). */
export const catalogVoiceSchema = z.object({
  id: z.string(),
  object: z.literal('voice'),
  type: z.enum(['builtin', 'saved']),
  name: z.string(),
  group: z.string(),
  language: z.string(),
  gender: z.string(),
  description: z.string(),
  /** Saved voices only: the consent the voice is bound to (null in the extension form) and when it was made. */
  consent: z.string().nullable().optional(),
  created_at: z.number().int().optional(),
})
export type CatalogVoice = z.infer<typeof catalogVoiceSchema>

export const voiceListSchema = z.object({
  object: z.literal('list'),
  model: z.enum(MODELS),
  data: z.array(catalogVoiceSchema),
})
