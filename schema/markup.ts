/** Inline markup of the second-generation model (contract 2.7). Tags are case-insensitive. */

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

export interface MarkupMatch {
  kind: 'emotion' | 'sound' | 'emphasis'
  start: number
  end: number
  /** A tag as written ("[Sad]"); for emphasis, the words between the parentheses (tags among them still act). */
  text: string
}

/**
 * What the model acts on, and nothing else: known tags, and emphasis with exactly three parentheses on each side
 * around 1-80 characters without parentheses or line breaks. The engine and the studio's editor both read text
 * through it, so they agree on what is markup.
 */
const markupSource = [
  `\\[(?:${EMOTION_TAGS.join('|')})\\]`,
  `<(?:${SOUND_TAGS.join('|')})>`,
  `(?<!\\()\\(\\(\\(([^()\\n]{1,${MAX_EMPHASIS_CHARS}})\\)\\)\\)(?!\\))`,
].join('|')
const markupTest = new RegExp(markupSource, 'i')
const markupAll = new RegExp(markupSource, 'gi')

/** The markup in the text, in text order. */
export function findMarkup(text: string): MarkupMatch[] {
  return [...text.matchAll(markupAll)].map((m) => {
    const start = m.index
    const end = start + m[0].length
    if (m[1] !== undefined) return { kind: 'emphasis', start, end, text: m[1] }
    return { kind: m[0].startsWith('[') ? 'emotion' : 'sound', start, end, text: m[0] }
  })
}

/** Whether the text carries any markup the model would act on (it then needs the longer playback buffer). */
export function hasMarkup(text: string): boolean {
  return markupTest.test(text)
}

/**
 * Wraps words in emphasis again after they were rewritten (the engine's expansion, "(((1,234,567)))"; the studio's
 * pronunciations): past the 80-character limit the model would read the parentheses aloud, so a long phrase becomes
 * consecutive emphasized runs.
 */
export function emphasize(words: string): string {
  if (words.length <= MAX_EMPHASIS_CHARS) return `(((${words})))`
  const runs: string[] = []
  let run = ''
  for (const word of words.trim().split(/\s+/)) {
    if (run && run.length + 1 + word.length > MAX_EMPHASIS_CHARS) {
      runs.push(run)
      run = word
    } else run = run ? `${run} ${word}` : word
  }
  runs.push(run)
  return runs.map((r) => `(((${r})))`).join(' ')
}
