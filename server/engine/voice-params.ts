import type { VoiceParams } from './synthesizer.ts'

/**
 * How each built-in voice id is rendered by eSpeak NG: a language voice, a variant for timbre, and pitch, range and
 * rate for character. Every id maps to a distinct combination (checked by test); docs/api.md ("The voice catalog") explains the choices.
 */
const v = (espeakVoice: string, pitch: number, range: number, rate: number): VoiceParams => ({
  espeakVoice,
  pitch,
  range,
  rate,
})

const BUILTIN: Record<string, VoiceParams> = {
  // Characters.
  captain_01: v('en-us+m3', 32, 45, 160),
  narrator_02: v('en-us+m1', 44, 60, 155),
  robot_03: v('en-us+klatt', 50, 5, 170),
  witch_04: v('en-us+croak', 70, 85, 150),
  knight_05: v('en-gb-x-rp+m2', 40, 55, 165),
  pixie_06: v('en-us+f4', 85, 80, 200),
  giant_07: v('en-us+m7', 15, 30, 120),
  detective_08: v('en-us+m6', 36, 25, 150),
  announcer_09: v('en-us+f2', 62, 90, 190),
  // Second-generation counterparts of the 0.8 voices (same timbre, a livelier range).
  bella_10: v('en-us+f1', 58, 65, 175),
  jasper_11: v('en-us+m1', 40, 55, 175),
  luna_12: v('en-us+f3', 64, 62, 170),
  bruno_13: v('en-us+m4', 30, 50, 165),
  rosie_14: v('en-us+f5', 70, 70, 180),
  hugo_15: v('en-gb-x-rp+m5', 38, 50, 170),
  kiki_16: v('en-us+f4', 78, 75, 190),
  leo_17: v('en-us+m2', 46, 58, 180),
  // Descriptive voices.
  amber_warm_female_18: v('en-us+f1', 55, 55, 165),
  owen_calm_male_19: v('en-us+m1', 38, 35, 150),
  iris_bright_female_20: v('en-us+f2', 72, 75, 185),
  marcus_deep_male_21: v('en-us+m7', 22, 40, 155),
  nora_soft_female_22: v('en-us+f5', 58, 40, 150),
  felix_energetic_male_23: v('en-us+m2', 52, 85, 210),
  clara_crisp_female_24: v('en-gb-x-rp+f3', 62, 55, 180),
  silas_gravelly_male_25: v('en-us+croak', 28, 35, 150),
  mia_young_female_26: v('en-us+f4', 80, 70, 185),
  victor_authoritative_male_27: v('en-us+m3', 34, 45, 160),
  hazel_breathy_female_28: v('en-us+whisper', 60, 50, 155),
  theo_relaxed_male_29: v('en-us+m5', 42, 40, 145),
  june_cheerful_female_30: v('en-us+f3', 70, 80, 190),
  arthur_elderly_male_31: v('en-gb-x-rp+m6', 35, 30, 130),
  eleanor_somber_female_32: v('en-us+f2', 48, 30, 150),
  dex_fast_male_33: v('en-us+m4', 48, 60, 260),
  lily_whisper_female_34: v('en-us+whisper', 66, 40, 145),
  reed_nasal_male_35: v('en-us+m6', 55, 45, 170),
  sage_neutral_female_36: v('en-us+f1', 52, 45, 170),
  gus_hoarse_male_37: v('en-us+croak', 38, 40, 160),
  // Language voices.
  arabic_38: v('ar+m1', 42, 50, 160),
  german_39: v('de+f2', 58, 55, 165),
  english_40: v('en-us+m2', 45, 50, 175),
  spanish_41: v('es+f3', 62, 60, 175),
  french_42: v('fr+m1', 44, 55, 170),
  italian_43: v('it+f1', 60, 65, 175),
  portuguese_44: v('pt+m3', 40, 50, 170),
  russian_45: v('ru+f2', 58, 50, 165),
  chinese_46: v('cmn+m1', 45, 50, 160),
  hindi_47: v('hi+f3', 60, 55, 165),
  // 0.8 voices.
  Bella: v('en-us+f1', 58, 50, 175),
  Jasper: v('en-us+m1', 40, 45, 175),
  Luna: v('en-us+f3', 64, 50, 170),
  Bruno: v('en-us+m4', 30, 40, 165),
  Rosie: v('en-us+f5', 70, 55, 180),
  Hugo: v('en-gb-x-rp+m5', 38, 40, 170),
  Kiki: v('en-us+f4', 78, 60, 190),
  Leo: v('en-us+m2', 46, 45, 180),
}

/** The rendering of a built-in voice, or undefined for an id the catalog does not hold. */
export function voiceParamsFor(voiceId: string): VoiceParams | undefined {
  return Object.hasOwn(BUILTIN, voiceId) ? BUILTIN[voiceId] : undefined
}
