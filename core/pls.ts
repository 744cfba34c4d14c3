/**
 * W3C Pronunciation Lexicon Specification 1.0 files (`<lexicon>`, `<lexeme>`, `<grapheme>`, `<phoneme>`, `<alias>`),
 * read and written without a DOM so the browser and tests share one reader. The reader is strict about XML (a file
 * another tool could not read either is refused, naming the line) and lenient about PLS where tools differ: IPA
 * between slashes, spaces around a grapheme, elements it does not use (`<meta>`, `<example>`). Entity declarations
 * are never read: a DOCTYPE is refused.
 */

export interface PlsEntry {
  /** One grapheme; a lexeme of several becomes several entries. */
  text: string
  /** The first `<alias>`; the grapheme itself when the lexeme gives only phonemes. */
  sayAs: string
  /** The first `<phoneme>` in IPA, else null (other alphabets are reported in `skipped`). */
  phonemes: string | null
  /** From this studio's own attribute (`studio:case="as-written"`); other tools' files match any case. */
  caseSensitive: boolean
}

export interface PlsLexicon {
  language: string
  entries: PlsEntry[]
  /** What was read but not taken, in words, with its line: phonemes in another alphabet. */
  skipped: string[]
}

export class PlsError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`Line ${line}: ${message}`)
  }
}

export const PLS_NAMESPACE = 'http://www.w3.org/2005/01/pronunciation-lexicon'
/** This studio's attribute for the case rule, which PLS has no word for. */
export const STUDIO_NAMESPACE = 'urn:speech-studio:pronunciations'
/** Larger files are refused before they are read. */
export const MAX_PLS_BYTES = 2 * 1024 * 1024

interface XmlElement {
  name: string
  attrs: Record<string, string>
  children: XmlElement[]
  text: string
  line: number
}

const NAME = /^[A-Za-z_][\w.:-]*/
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }

/** A small XML reader: elements, attributes, text, CDATA, comments, processing instructions; line numbers kept. */
function parseXml(source: string): XmlElement {
  let at = source.charCodeAt(0) === 0xfeff ? 1 : 0
  let line = 1
  const lineAt = (index: number) => {
    for (let i = at; i < index; i++) if (source.charCodeAt(i) === 10) line++
    at = index
    return line
  }
  const fail = (index: number, message: string): never => {
    throw new PlsError(lineAt(index), message)
  }
  const decode = (raw: string, index: number) =>
    raw.replace(/&([^;&\s]*);?/g, (whole, name: string) => {
      if (!whole.endsWith(';')) fail(index, `“&” begins no entity (write &amp;).`)
      if (name.startsWith('#x') && /^#x[0-9a-f]+$/i.test(name))
        return String.fromCodePoint(Number.parseInt(name.slice(2), 16))
      if (/^#\d+$/.test(name)) return String.fromCodePoint(Number(name.slice(1)))
      const known = ENTITIES[name]
      return known ?? fail(index, `unknown entity &${name};.`)
    })

  const stack: XmlElement[] = []
  let root: XmlElement | null = null
  let i = at
  while (i < source.length) {
    const lt = source.indexOf('<', i)
    const textEnd = lt === -1 ? source.length : lt
    if (textEnd > i) {
      const raw = source.slice(i, textEnd)
      const parent = stack.at(-1)
      if (parent) parent.text += decode(raw, i)
      else if (raw.trim() !== '') fail(i, 'text outside the <lexicon> element.')
      if (raw.includes('>') && !parent) fail(i, '“>” outside any element.')
    }
    if (lt === -1) break
    i = lt
    if (source.startsWith('<!--', i)) {
      const end = source.indexOf('-->', i + 4)
      if (end === -1) fail(i, 'a comment is never closed (-->).')
      i = end + 3
    } else if (source.startsWith('<![CDATA[', i)) {
      const end = source.indexOf(']]>', i)
      if (end === -1) fail(i, 'a CDATA section is never closed (]]>).')
      const parent = stack.at(-1) ?? fail(i, 'CDATA outside the <lexicon> element.')
      parent.text += source.slice(i + 9, end)
      i = end + 3
    } else if (source.startsWith('<?', i)) {
      const end = source.indexOf('?>', i)
      if (end === -1) fail(i, 'a processing instruction is never closed (?>).')
      i = end + 2
    } else if (source.startsWith('<!', i)) {
      fail(i, 'a DOCTYPE or declaration is not read in a pronunciation lexicon.')
    } else if (source.startsWith('</', i)) {
      const name = NAME.exec(source.slice(i + 2))?.[0] ?? fail(i, 'a closing tag without a name.')
      const end = source.indexOf('>', i)
      if (end === -1 || source.slice(i + 2 + name.length, end).trim() !== '')
        fail(i, `</${name}> is malformed.`)
      const open = stack.pop() ?? fail(i, `</${name}> closes nothing.`)
      if (open.name !== name) fail(i, `</${name}> closes <${open.name}> (opened on line ${open.line}).`)
      i = end + 1
    } else {
      const elementLine = lineAt(i)
      const name = NAME.exec(source.slice(i + 1))?.[0] ?? fail(i, '“<” begins no element (write &lt;).')
      let j = i + 1 + name.length
      const attrs: Record<string, string> = {}
      for (;;) {
        const space = /^\s*/.exec(source.slice(j))?.[0] ?? ''
        j += space.length
        if (source.startsWith('/>', j) || source[j] === '>') break
        if (j >= source.length) fail(i, `<${name}> is never closed (>).`)
        if (space === '') fail(j, `attributes of <${name}> need spaces between them.`)
        const attr = NAME.exec(source.slice(j))?.[0] ?? fail(j, `a malformed attribute in <${name}>.`)
        j += attr.length
        const eq =
          /^\s*=\s*(["'])/.exec(source.slice(j)) ?? fail(j, `attribute ${attr} of <${name}> needs ="…".`)
        j += eq[0].length
        const close = source.indexOf(eq[1] as string, j)
        if (close === -1) fail(j, `attribute ${attr} of <${name}> is never closed.`)
        const value = source.slice(j, close)
        if (value.includes('<')) fail(j, `attribute ${attr} of <${name}> holds “<”.`)
        if (attr in attrs) fail(j, `attribute ${attr} is given twice in <${name}>.`)
        attrs[attr] = decode(value, j)
        j = close + 1
      }
      const element: XmlElement = { name, attrs, children: [], text: '', line: elementLine }
      const parent = stack.at(-1)
      if (parent) parent.children.push(element)
      else if (root) fail(i, `a second root element <${name}>; a file holds one <lexicon>.`)
      else root = element
      const selfClosing = source.startsWith('/>', j)
      if (!selfClosing) stack.push(element)
      i = j + (selfClosing ? 2 : 1)
    }
  }
  const open = stack.at(-1)
  if (open) throw new PlsError(open.line, `<${open.name}> is never closed.`)
  return root ?? fail(source.length, 'no <lexicon> element.')
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1)
const childrenNamed = (el: XmlElement, name: string) => el.children.filter((c) => localName(c.name) === name)

/** IPA as tools write it: some between slashes or brackets, with spaces between syllables. */
function cleanIpa(ipa: string): string {
  return ipa
    .trim()
    .replace(/^[/[]\s*|\s*[/\]]$/g, '')
    .replace(/\s+/g, ' ')
}

export function readPls(source: string): PlsLexicon {
  if (source.length > MAX_PLS_BYTES) throw new PlsError(1, `a lexicon holds at most ${MAX_PLS_BYTES} bytes.`)
  const root = parseXml(source)
  if (localName(root.name) !== 'lexicon')
    throw new PlsError(root.line, `the root element is <${root.name}>, not <lexicon>.`)
  const xmlns = root.attrs.xmlns
  if (xmlns !== undefined && xmlns !== PLS_NAMESPACE)
    throw new PlsError(root.line, `<lexicon> is in the namespace ${xmlns}, not ${PLS_NAMESPACE}.`)
  if (root.attrs.version !== undefined && root.attrs.version !== '1.0')
    throw new PlsError(root.line, `PLS version ${root.attrs.version} is not read; version 1.0 is.`)
  const studioPrefix = Object.entries(root.attrs).find(
    ([k, v]) => k.startsWith('xmlns:') && v === STUDIO_NAMESPACE,
  )?.[0]
  const caseAttr = studioPrefix ? `${studioPrefix.slice(6)}:case` : null
  const alphabet = root.attrs.alphabet ?? 'ipa'
  const entries: PlsEntry[] = []
  const skipped: string[] = []
  for (const lexeme of root.children) {
    if (localName(lexeme.name) !== 'lexeme') continue
    const graphemes = childrenNamed(lexeme, 'grapheme').map((g) => ({ text: g.text.trim(), line: g.line }))
    if (graphemes.length === 0) throw new PlsError(lexeme.line, '<lexeme> holds no <grapheme>.')
    for (const g of graphemes) if (g.text === '') throw new PlsError(g.line, '<grapheme> is empty.')
    const aliases = childrenNamed(lexeme, 'alias').map((a) => a.text.trim().replace(/\s+/g, ' '))
    if (aliases.some((a) => a === '')) throw new PlsError(lexeme.line, '<alias> is empty.')
    let phonemes: string | null = null
    let otherAlphabet = false
    for (const p of childrenNamed(lexeme, 'phoneme')) {
      const pAlphabet = p.attrs.alphabet ?? alphabet
      const ipa = cleanIpa(p.text)
      if (ipa === '') throw new PlsError(p.line, '<phoneme> is empty.')
      if (pAlphabet.toLowerCase() !== 'ipa') {
        skipped.push(`Line ${p.line}: phonemes in the “${pAlphabet}” alphabet (only IPA is read).`)
        otherAlphabet = true
        continue
      }
      phonemes ??= ipa
    }
    if (aliases.length === 0 && phonemes === null && !otherAlphabet)
      throw new PlsError(lexeme.line, '<lexeme> holds neither <alias> nor <phoneme>.')
    const caseSensitive = caseAttr !== null && lexeme.attrs[caseAttr] === 'as-written'
    for (const g of graphemes)
      entries.push({ text: g.text, sayAs: aliases[0] ?? g.text, phonemes, caseSensitive })
  }
  return { language: root.attrs['xml:lang'] ?? 'en-US', entries, skipped }
}

const escapeXml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

/** A PLS 1.0 file of the entries, in IPA; the case rule in this studio's attribute, which other tools ignore. */
export function writePls(entries: readonly PlsEntry[], language = 'en-US'): string {
  const lexemes = entries.map((e) => {
    const attr = e.caseSensitive ? ' studio:case="as-written"' : ''
    const phoneme = e.phonemes ? `\n    <phoneme>${escapeXml(e.phonemes)}</phoneme>` : ''
    return `  <lexeme${attr}>\n    <grapheme>${escapeXml(e.text)}</grapheme>${phoneme}\n    <alias>${escapeXml(e.sayAs)}</alias>\n  </lexeme>\n`
  })
  return `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0"
    xmlns="${PLS_NAMESPACE}"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
    xsi:schemaLocation="${PLS_NAMESPACE} http://www.w3.org/TR/2008/REC-pronunciation-lexicon-20081014/pls.xsd"
    xmlns:studio="${STUDIO_NAMESPACE}"
    alphabet="ipa" xml:lang="${escapeXml(language)}">
${lexemes.join('')}</lexicon>
`
}
