/**
 * The editor is one textarea, but the script is lines with stable ids: takes and per-line overrides belong to a line,
 * so an edit must keep every line's id that it can. After each edit the new text is matched against the lines it
 * came from: the unchanged lines at the start and at the end keep theirs, and in the edited stretch between them a
 * line with the same text keeps its id, then the rest are taken in order (a line typed in, or the first half of a
 * split, keeps its id); only lines beyond that are new.
 */
import type { ScriptLine } from '../../../schema/index.ts'

const ID_CHARS = '0123456789abcdefghijklmnopqrstuvwxyz'
const ID_LENGTH = 12

/** A fresh id matching LINE_ID_PATTERN: 12 random base-36 characters, about 62 bits. */
export function newLineId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(ID_LENGTH))
  return `ln_${Array.from(bytes, (b) => ID_CHARS[b % ID_CHARS.length]).join('')}`
}

export function linesToText(lines: readonly ScriptLine[]): string {
  return lines.map((l) => l.text).join('\n')
}

function withText(line: ScriptLine, text: string): ScriptLine {
  return line.text === text ? line : { ...line, text }
}

export function reconcileLines(previous: readonly ScriptLine[], nextText: string): ScriptLine[] {
  const texts = nextText.split('\n')
  const shorter = Math.min(previous.length, texts.length)
  let head = 0
  while (head < shorter && previous[head]?.text === texts[head]) head++
  let tail = 0
  while (
    tail < shorter - head &&
    previous[previous.length - 1 - tail]?.text === texts[texts.length - 1 - tail]
  )
    tail++

  const before = previous.slice(head, previous.length - tail)
  const after = texts.slice(head, texts.length - tail)
  const byText = new Map<string, ScriptLine[]>()
  for (const line of before) {
    const same = byText.get(line.text)
    if (same) same.push(line)
    else byText.set(line.text, [line])
  }
  const kept = after.map((text) => byText.get(text)?.shift())
  const taken = new Set(kept)
  const rest = before.filter((line) => !taken.has(line))
  let next = 0
  const middle = after.map((text, i) => {
    const line = kept[i] ?? rest[next++]
    return line ? withText(line, text) : { id: newLineId(), text }
  })
  return [...previous.slice(0, head), ...middle, ...previous.slice(previous.length - tail)]
}
