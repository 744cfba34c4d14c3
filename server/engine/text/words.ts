/**
 * Runs of characters eSpeak NG would cut short. It reads one word (text between spaces) into at most a couple of
 * hundred phonemes and drops the rest: measured, 25 emoji in a row and 40 spelled letters ("xxxx…") are the most it
 * says, whatever follows. Emoji are therefore words of their own, and a very long run without spaces is cut into
 * pieces it reads whole.
 */

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' })

/** Longer than any real word (German compounds reach about 60 letters), so only IDs, spelled runs and the like. */
const LONG_RUN = 64
/** Piece length in characters a listener hears as they are: eSpeak spells such a piece in full. */
const PIECE = 16

/** An emoji as eSpeak names it: emoji presentation, an emoji variation selector, or a flag. */
const emoji = /\p{Emoji_Presentation}|\uFE0F|\p{Regional_Indicator}/u
/** Scripts written without spaces: a long run there is an ordinary sentence, cut by the segmenter at its punctuation. */
const unspaced =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u

const graphemesOf = (text: string) => Array.from(graphemes.segment(text), (g) => g.segment)

function cutLong(word: string): string {
  const parts = graphemesOf(word)
  if (parts.length <= LONG_RUN || parts.some((g) => unspaced.test(g))) return word
  const cut: string[] = []
  for (let i = 0; i < parts.length; i += PIECE) cut.push(parts.slice(i, i + PIECE).join(''))
  return cut.join(' ')
}

/** Each emoji a word of its own ("😀😀" → "😀 😀"), punctuation after it kept with it. */
function separateEmoji(run: string): string {
  let out = ''
  let previous = ''
  for (const g of graphemesOf(run)) {
    const apart = previous !== '' && (emoji.test(g) || (emoji.test(previous) && !/^\p{P}/u.test(g)))
    out += apart ? ` ${g}` : g
    previous = g
  }
  return out
}

/** Text with every run eSpeak would cut short made into words it reads whole. */
export function speakableWords(text: string): string {
  // Most words hold no emoji and are short: they are left as they are without being cut into graphemes, which costs.
  return text.replace(/\S{2,}/g, (run) =>
    run.length <= LONG_RUN && !emoji.test(run) ? run : separateEmoji(run).split(' ').map(cutLong).join(' '),
  )
}
