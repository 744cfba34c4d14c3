/** Inline markup of the second-generation model (spec 2.7). Tags are case-insensitive. */

export const EMOTION_TAGS = [
  'joyful',
  'excited',
  'tender',
  'sad',
  'angry',
  'nervous',
  'stern',
  'surprised',
  'contemplative',
  'mundane',
] as const

export const SOUND_TAGS = [
  'laugh',
  'giggle',
  'sigh',
  'gasp',
  'sob',
  'scoff',
  'growl',
  'um',
  'gulp',
  'pause',
] as const

export const MAX_EMPHASIS_CHARS = 80

const emotionRe = new RegExp(`\\[(?:${EMOTION_TAGS.join('|')})\\]`, 'i')
const soundRe = new RegExp(`<(?:${SOUND_TAGS.join('|')})>`, 'i')
const emphasisRe = new RegExp(`(?<!\\()\\(\\(\\(([^()\\n]{1,${MAX_EMPHASIS_CHARS}})\\)\\)\\)(?!\\))`)

/** Whether the text carries any markup the model would act on (it then needs the longer playback buffer). */
export function hasMarkup(text: string): boolean {
  return emotionRe.test(text) || soundRe.test(text) || emphasisRe.test(text)
}
