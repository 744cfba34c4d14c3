/**
 * How emotions and emphasis sound through eSpeak NG's SSML: each is a <prosody> setting measured against neutral
 * speech by the listening tests (markup.listening.test.ts).
 */
import type { EmotionTag } from './tags.ts'

export interface Prosody {
  /**
   * Signed offset on eSpeak's 0–100 pitch scale. Not a percentage: eSpeak applies percentages to that scale, so
   * "+30%" moves a voice at pitch 15 by a fraction of a semitone and one at 80 by several; an offset moves every
   * voice by a similar interval. A result below 0 is ignored by eSpeak (the voice keeps its pitch), never misread.
   */
  pitch: number
  /** Pitch range, rate and loudness as percentages of the voice's own. */
  range: number
  rate: number
  volume: number
}

/**
 * One distinct point per emotion in (pitch, range, rate, loudness). Loudness stays at or under 135% because eSpeak
 * clips its output beyond that, and every pair differs audibly in at least one dimension (tested).
 */
export const EMOTION_PROSODY: Record<EmotionTag, Prosody> = {
  // Bright and lively: higher, wide melody, a little quicker and louder.
  joyful: { pitch: 12, range: 170, rate: 108, volume: 110 },
  // Joy with more energy: higher still, widest melody, fast.
  excited: { pitch: 20, range: 200, rate: 125, volume: 120 },
  // Gentle: slightly lower, narrow, unhurried and soft.
  tender: { pitch: -4, range: 60, rate: 85, volume: 70 },
  // Low, flat, slow and soft.
  sad: { pitch: -12, range: 50, rate: 78, volume: 65 },
  // Loudest, fast, with a wide melody but little change of level.
  angry: { pitch: 2, range: 190, rate: 118, volume: 135 },
  // Hurried and tense: raised, narrow, fastest, held back in loudness.
  nervous: { pitch: 10, range: 80, rate: 128, volume: 85 },
  // Low, flat and firm.
  stern: { pitch: -10, range: 50, rate: 95, volume: 120 },
  // Highest and with the widest melody at an ordinary pace.
  surprised: { pitch: 24, range: 220, rate: 100, volume: 110 },
  // Slowest, a little low and soft, melody intact.
  contemplative: { pitch: -6, range: 80, rate: 72, volume: 85 },
  // Matter-of-fact: almost monotone, otherwise neutral.
  mundane: { pitch: -2, range: 30, rate: 100, volume: 95 },
}

/**
 * eSpeak's strong emphasis stresses and lengthens the words and sets loudness to an absolute 120%, which would undo a
 * soft emotion and clip a loud one. Inside it, a raised and widened pitch makes the stress heard as well as felt, and
 * loudness is reset to 80% of the emotion's, at most 75% absolute: the stress adds about 5 dB back, and above 75%
 * an emphasized phrase in a loud emotion clips.
 */
const EMPHASIS = { pitch: 14, range: 180, volume: 80, maxVolume: 75 }

const signed = (n: number) => (n >= 0 ? `+${n}` : `${n}`)

export function openProsody(p: Prosody): string {
  return `<prosody pitch="${signed(p.pitch)}" range="${p.range}%" rate="${p.rate}%" volume="${p.volume}%">`
}

export const CLOSE_PROSODY = '</prosody>'

/** Opens emphasis within the given emotion (or neutral speech); the volume is absolute because emphasis set its own. */
export function openEmphasis(emotion: Prosody | undefined): string {
  const volume = Math.min(EMPHASIS.maxVolume, Math.round(((emotion?.volume ?? 100) * EMPHASIS.volume) / 100))
  return `<emphasis level="strong"><prosody pitch="${signed(EMPHASIS.pitch)}" range="${EMPHASIS.range}%" volume="${volume}">`
}

export const CLOSE_EMPHASIS = `${CLOSE_PROSODY}</emphasis>`
