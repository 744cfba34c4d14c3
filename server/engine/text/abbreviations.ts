/** Common English abbreviations: titles, street and company suffixes, Latin shorthands, "No." and "#" before numbers. */

const sentenceEnd = /\s*$|\s*\n|\s+\p{Lu}/uy
const textEnd = /\s*$|\s*\n/y

/**
 * Whether the text at `index` starts a new sentence (end of text, a line break, or a space then a capital). When an
 * abbreviation's period doubles as the full stop, the expansion keeps a period so eSpeak still pauses there.
 */
export function endsSentenceAt(text: string, index: number, lineEndOnly = false): boolean {
  const re = lineEndOnly ? textEnd : sentenceEnd
  re.lastIndex = index
  return re.test(text)
}

/** Titles stand before a name and never end a sentence. */
const TITLES: Record<string, string> = {
  Mr: 'Mister',
  Mrs: 'Missus',
  Ms: 'Miz',
  Prof: 'Professor',
  Capt: 'Captain',
  Lt: 'Lieutenant',
  Sgt: 'Sergeant',
  Rev: 'Reverend',
  Gov: 'Governor',
  Mt: 'Mount',
}

/** A title before a capitalized word ("Dr. Smith", "St. Louis"), a street name otherwise ("Elm Dr.", "Main St."). */
const TITLE_OR_STREET: Record<string, readonly [string, string]> = {
  Dr: ['Doctor', 'Drive'],
  St: ['Saint', 'Street'],
}

/** These can close a sentence, so the period is kept when it does. */
const SUFFIXES: Record<string, string> = {
  Jr: 'Junior',
  Sr: 'Senior',
  Inc: 'Incorporated',
  Ltd: 'Limited',
  Corp: 'Corporation',
  Co: 'Company',
  Ave: 'Avenue',
  Rd: 'Road',
  Blvd: 'Boulevard',
  Dept: 'Department',
  approx: 'approximately',
  etc: 'et cetera',
}

const LATIN: Record<string, string> = {
  'e.g.': 'for example',
  'i.e.': 'that is',
  'a.k.a.': 'also known as',
  'vs.': 'versus',
  vs: 'versus',
  'cf.': 'compare',
}

const alternatives = (table: object) => Object.keys(table).join('|')
const titleRe = new RegExp(String.raw`(?<![\p{L}\d])(${alternatives(TITLES)})\.[ \t]*`, 'gu')
const titleOrStreetRe = new RegExp(String.raw`(?<![\p{L}\d])(${alternatives(TITLE_OR_STREET)})\.`, 'gu')
const suffixRe = new RegExp(String.raw`(?<![\p{L}\d])(${alternatives(SUFFIXES)})\.`, 'gu')
const latinRe = /(?<![\p{L}.])(e\.g\.|i\.e\.|a\.k\.a\.|vs\.?|cf\.)(?!\p{L})/giu
const capitalFollows = /[ \t]*\p{Lu}/uy
const numberSign = /(?<![\p{L}\d])(?:[Nn]o\.[ \t]?|#)(?=\d)/gu
const withWithout = /(?<![\p{L}\d])w\/(o(?!\p{L}))?/gu
const dottedInitials = /(?<![\p{L}.])((?:[A-Z]\.){2,})/gu

export function expandAbbreviations(text: string): string {
  return text
    .replace(titleRe, (match, abbr: string) => `${TITLES[abbr] ?? match} `)
    .replace(titleOrStreetRe, (match, abbr: string, offset: number, whole: string) => {
      const [title, street] = TITLE_OR_STREET[abbr] ?? [match, match]
      capitalFollows.lastIndex = offset + match.length
      if (capitalFollows.test(whole)) return title
      return endsSentenceAt(whole, offset + match.length) ? `${street}.` : street
    })
    .replace(suffixRe, (match, abbr: string, offset: number, whole: string) => {
      const word = SUFFIXES[abbr] ?? match
      return endsSentenceAt(whole, offset + match.length) ? `${word}.` : word
    })
    .replace(latinRe, (match) => LATIN[match.toLowerCase()] ?? match)
    .replace(numberSign, 'number ')
    .replace(withWithout, (_, without) => (without ? 'without' : 'with '))
    .replace(dottedInitials, (match: string, _letters: string, offset: number, whole: string) => {
      // "U.S." may or may not end a sentence; only the end of a line says so for sure.
      const letters = match.replace(/\./g, ' ').trim()
      return endsSentenceAt(whole, offset + match.length, true) ? `${letters}.` : letters
    })
}
