/**
 * Who speaks a script line: a line that starts with a cast member's name and a colon ("ALICE: Hello.") is spoken by
 * that member's voice, without the prefix. One reading for the schema (which names a cast may hold), the page's
 * previews and render, and the editor's checks.
 *
 * A speaker-like prefix is one to three words at the start of the line, each beginning with a capital letter (then
 * letters, digits, apostrophes, hyphens or a full stop: "Dr. Smith", "O'Brien", "Jean-Luc", "R2"), at most
 * MAX_CAST_NAME_CHARS long, then a colon and a space (or the line's end). Prose says "Note: this" in the same shape,
 * so the shape alone never decides: only a prefix naming a cast member (letter case and spacing aside) is taken off
 * the line and gives it a voice. Any other speaker-like prefix is spoken as written, and the checks say so.
 */

export const MAX_CAST_NAME_CHARS = 40

const WORD = String.raw`\p{Lu}[\p{L}\p{M}\p{N}'’.\-]*`
/** A whole name, as a cast member's name must be written. */
export const SPEAKER_NAME_PATTERN = new RegExp(`^${WORD}(?: ${WORD}){0,2}$`, 'u')
const PREFIX = new RegExp(`^(\\s*)(${WORD}(?:[ \\t]+${WORD}){0,2})[ \\t]*:(?:[ \\t]+|$)`, 'u')

export interface SpeakerPrefix {
  /** The name as written, its spacing collapsed: "Dr. Smith". */
  name: string
  /** Where the name is in the line. */
  start: number
  end: number
  /** Where the spoken text begins, after the colon and its spaces. */
  textStart: number
}

/** Names compare by their letters and words, not their case or spacing: "ALICE" is "Alice". */
export function speakerKey(name: string): string {
  return name.trim().replace(/\s+/g, ' ').toLocaleLowerCase('en')
}

/** The speaker-like prefix of a line, whether or not the cast has that name; null when the line has none. */
export function speakerPrefix(text: string): SpeakerPrefix | null {
  const m = PREFIX.exec(text)
  if (!m) return null
  const lead = m[1]?.length ?? 0
  const written = m[2] ?? ''
  const name = written.replace(/[ \t]+/g, ' ')
  if (name.length > MAX_CAST_NAME_CHARS) return null
  return { name, start: lead, end: lead + written.length, textStart: m[0].length }
}

/** Whether `name` can be a cast member's name: a speaker-like name a line can start with. */
export function isSpeakerName(name: string): boolean {
  return name.length <= MAX_CAST_NAME_CHARS && SPEAKER_NAME_PATTERN.test(name)
}

export interface SpokenLine<M> {
  /** The cast member who speaks the line, or null: the line is the script's voice's, spoken as written. */
  member: M | null
  /** What is sent to the service: the line without its speaker prefix when a member speaks it. */
  input: string
  /** The speaker-like prefix, known to the cast or not. */
  prefix: SpeakerPrefix | null
}

/** Who speaks `text` and what of it is spoken, given the script's cast. */
export function spokenLine<M extends { name: string }>(text: string, cast: readonly M[] = []): SpokenLine<M> {
  const prefix = speakerPrefix(text)
  if (!prefix) return { member: null, input: text, prefix }
  const key = speakerKey(prefix.name)
  const member = cast.find((m) => speakerKey(m.name) === key) ?? null
  return { member, input: member ? text.slice(prefix.textStart) : text, prefix }
}
