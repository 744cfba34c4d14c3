/** eSpeak NG's accepted speaking rates in words per minute. */
export const MIN_RATE = 80
export const MAX_RATE = 450

/**
 * The wpm eSpeak is asked for. Speeds that would leave eSpeak's range are clamped here; stretching beyond it is the
 * prosody stage's job.
 */
export function espeakRate(baseRate: number, speed: number): number {
  return Math.round(Math.min(MAX_RATE, Math.max(MIN_RATE, baseRate * speed)))
}

/** The engine reads SSML, so literal markup characters in user text must arrive as entities. */
export function escapeForSsml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/**
 * eSpeak NG reads SSML that follows a phoneme span's `]]` at once as words ("slash prosody"), measured; a space between
 * them keeps the tag a tag. Spans come from the phoneme form (text/phonemes.ts).
 */
export function spaceAfterPhonemes(text: string): string {
  return text.includes(']]') ? text.replace(/\]\](?=<)/g, ']] ') : text
}
