/**
 * What the model will make of a script's inline markup (contract 2.7), for the editor's highlighting and its list of
 * issues. What counts as a tag or as emphasis comes from `findMarkup` in schema/markup.ts, the engine's own reading;
 * everything here explains the rest: bracketed text that will be spoken, parentheses that will not stress anything,
 * and emotion tags placed where they colour little or nothing.
 */
import {
  EMOTION_TAGS,
  findMarkup,
  isSecondGen,
  MAX_EMPHASIS_CHARS,
  type MarkupMatch,
  type ModelId,
  SOUND_TAGS,
  speakerKey,
  speakerPrefix,
  spokenLine,
} from '../../../schema/index.ts'

export type SegmentKind = 'text' | 'emotion' | 'sound' | 'emphasis' | 'spoken-tag' | 'bad-emphasis'

export interface Segment {
  text: string
  kind: SegmentKind
}

export type Severity = 'error' | 'warning' | 'info'

export interface MarkupIssue {
  lineId: string
  lineIndex: number
  /** Character range within the line. */
  start: number
  end: number
  severity: Severity
  message: string
  /** A speaker-like name the cast lacks, which the page offers to add to it. */
  speaker?: string
}

type LineIssue = Omit<MarkupIssue, 'lineId' | 'lineIndex'>

interface Mark {
  start: number
  end: number
  kind: SegmentKind
}

/** A maximal run of "(" or ")". */
interface Run {
  start: number
  end: number
  open: boolean
}

interface LineAnalysis {
  marks: Mark[]
  issues: LineIssue[]
  /** Emphasis opened and not closed on the line (second-generation model): a later line may close it. */
  trailingOpen?: Run
  /** Closing parentheses before any opening ones on the line: they may close emphasis opened on an earlier line. */
  leadingClose?: Run
  /** Whether the line holds a run of two or more parentheses outside valid emphasis. */
  hasRuns: boolean
}

const WITHOUT_STRESS = 'so it is read as written, without stress'

const emotionNames: readonly string[] = EMOTION_TAGS
const soundNames: readonly string[] = SOUND_TAGS

/**
 * Bracketed text that is not a tag is spoken. Angle brackets also appear in prose ("a < b and c > d"), so only
 * angle text that hugs its brackets ("<cough>") or is a known tag with spaces ("< laugh >") counts as tag-like.
 */
const squareRe = /\[([^[\]\n]+)\]/g
const angleRe = /<([^<>\n]+)>/g

const terminalRe = /[.!?…。！？]+[)"'”’»]*(?![\p{L}\p{N}.!?…。！？)"'”’»])/gu
const wordRe = /[\p{L}\p{N}]/u

function quote(text: string): string {
  return text.length > 32 ? `${text.slice(0, 30)}…` : text
}

function overlaps(a: { start: number; end: number }, b: { start: number; end: number }): boolean {
  return a.start < b.end && b.start < a.end
}

function spokenTagCandidates(text: string): Mark[] {
  const found: Mark[] = []
  for (const m of text.matchAll(squareRe))
    found.push({ start: m.index, end: m.index + m[0].length, kind: 'spoken-tag' })
  for (const m of text.matchAll(angleRe)) {
    const inner = m[1] ?? ''
    const name = inner.trim().toLowerCase()
    if (inner === inner.trim() || emotionNames.includes(name) || soundNames.includes(name))
      found.push({ start: m.index, end: m.index + m[0].length, kind: 'spoken-tag' })
  }
  return found.sort((a, b) => a.start - b.start)
}

/** Why a bracketed text is not a tag, with the fix when it is a known tag written the wrong way. */
function notATag(written: string): string {
  const spoken = `${quote(written)} is not a tag: it will be spoken as words`
  const name = written.slice(1, -1).trim().toLowerCase()
  const square = written.startsWith('[')
  if (emotionNames.includes(name))
    return square
      ? `${spoken}. Write it without spaces: [${name}]`
      : `${spoken}. Emotion tags use square brackets: [${name}]`
  if (soundNames.includes(name))
    return square
      ? `${spoken}. Sound tags use angle brackets: <${name}>`
      : `${spoken}. Write it without spaces: <${name}>`
  return spoken
}

function parenRuns(text: string): Run[] {
  return [...text.matchAll(/\(+|\)+/g)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    open: m[0].startsWith('('),
  }))
}

const size = (run: Run) => run.end - run.start

function pairProblem(text: string, open: Run, close: Run): LineIssue | undefined {
  const written = text.slice(open.start, close.end)
  const inner = text.slice(open.end, close.start)
  const range = { start: open.start, end: close.end }
  const [opening, closing] = [size(open), size(close)]
  if (opening !== 3 || closing !== 3) {
    // Nested parentheses in prose ("((a) (b))") are not an attempt at emphasis.
    if (inner.includes('(') || inner.includes(')')) return undefined
    const counts =
      opening === closing
        ? `has ${opening} parentheses on each side`
        : `has ${opening} opening and ${closing} closing parentheses`
    return {
      ...range,
      severity: 'error',
      message: `${quote(written)} ${counts}: emphasis needs exactly 3 on each side, ${WITHOUT_STRESS}`,
    }
  }
  if (inner.includes('(') || inner.includes(')'))
    return {
      ...range,
      severity: 'error',
      message: `Emphasis cannot hold parentheses: ${quote(written)} is read as written, without stress`,
    }
  if (inner === '')
    return {
      ...range,
      severity: 'info',
      message: 'Empty emphasis: type the words to stress between the parentheses',
    }
  return {
    ...range,
    severity: 'error',
    message: `Emphasis holds ${inner.length} characters, more than ${MAX_EMPHASIS_CHARS}: ${WITHOUT_STRESS}`,
  }
}

function unclosedIssue(text: string, run: Run): LineIssue {
  return {
    start: run.start,
    end: run.end,
    severity: 'error',
    message: `${text.slice(run.start, run.end)} is never closed: emphasis needs ))) after the words, on the same line, ${WITHOUT_STRESS}`,
  }
}

function strayIssue(text: string, run: Run): LineIssue {
  return {
    start: run.start,
    end: run.end,
    severity: 'error',
    message: `${text.slice(run.start, run.end)} closes no emphasis: emphasis needs ((( before the words, on the same line`,
  }
}

function legacyEmphasis(model: ModelId, written: string): string {
  return `${model} has no emphasis: ${quote(written)} is read as plain words, without stress`
}

/** Parentheses that look like emphasis but are not it, paired as the writer most likely meant them. */
function emphasisAttempts(
  text: string,
  valid: readonly MarkupMatch[],
  model: ModelId,
  analysis: LineAnalysis,
) {
  const legacy = !isSecondGen(model)
  const runs = parenRuns(text).filter((r) => size(r) >= 2 && !valid.some((v) => overlaps(r, v)))
  analysis.hasRuns = runs.length > 0
  // The 0.8 models have no emphasis at all, so what is wrong with the parentheses does not matter there.
  const flag = (issue: LineIssue) => {
    analysis.marks.push({ start: issue.start, end: issue.end, kind: 'bad-emphasis' })
    analysis.issues.push(
      legacy
        ? { ...issue, severity: 'info', message: legacyEmphasis(model, text.slice(issue.start, issue.end)) }
        : issue,
    )
  }
  let pending: Run | undefined
  let seenOpen = false
  for (const run of runs) {
    if (run.open) {
      if (pending && size(pending) >= 3) flag(unclosedIssue(text, pending))
      pending = run
      seenOpen = true
      continue
    }
    if (pending) {
      const problem = pairProblem(text, pending, run)
      if (problem) flag(problem)
      pending = undefined
    } else if (!seenOpen && !legacy && analysis.leadingClose === undefined) analysis.leadingClose = run
    else if (size(run) >= 3) flag(strayIssue(text, run))
  }
  if (pending && size(pending) >= 3) {
    if (legacy) flag(unclosedIssue(text, pending))
    else {
      analysis.trailingOpen = pending
      analysis.marks.push({ start: pending.start, end: pending.end, kind: 'bad-emphasis' })
    }
  }
  // A leading close counts as an attempt only at three or more; lintScript decides what it closes.
  const lead = analysis.leadingClose
  if (lead && size(lead) >= 3) analysis.marks.push({ start: lead.start, end: lead.end, kind: 'bad-emphasis' })
}

/** Where sentences start within a line, by their ending punctuation (a hint only needs the plain cases right). */
function sentenceStarts(text: string): number[] {
  return [0, ...[...text.matchAll(terminalRe)].map((m) => m.index + m[0].length)]
}

function hasWords(text: string, from: number, to: number, tags: readonly MarkupMatch[]): boolean {
  let rest = ''
  let at = from
  for (const tag of tags) {
    if (tag.end <= from || tag.start >= to) continue
    rest += text.slice(at, tag.start)
    at = tag.end
  }
  return wordRe.test(rest + text.slice(at, to))
}

/** An emotion tag colours from where it stands to the end of its sentence, so it belongs before the sentence. */
function emotionHints(text: string, tags: readonly MarkupMatch[]): LineIssue[] {
  const starts = sentenceStarts(text)
  const hints: LineIssue[] = []
  for (const tag of tags) {
    if (tag.kind !== 'emotion') continue
    const range = { start: tag.start, end: tag.end, severity: 'info' as const }
    const sentenceStart = starts.findLast((s) => s <= tag.start) ?? 0
    const sentenceEnd = starts.find((s) => s > tag.start)
    const next = tags.find((t) => t.kind === 'emotion' && t.start >= tag.end)
    const takenOver = next !== undefined && (sentenceEnd === undefined || next.start < sentenceEnd)
    const until = takenOver ? next.start : sentenceEnd
    if (until !== undefined && !hasWords(text, tag.end, until, tags))
      hints.push({
        ...range,
        message: takenOver
          ? `${tag.text} colours no words: ${next.text} takes over right after it`
          : `${tag.text} colours no words: an emotion lasts to the end of its sentence, which ends right after it. Put it before the sentence it colours`,
      })
    else if (hasWords(text, sentenceStart, tag.start, tags))
      hints.push({
        ...range,
        message: `${tag.text} stands mid-sentence: it colours only the words after it, to the end of the sentence. An emotion tag goes before the sentence it colours`,
      })
  }
  return hints
}

function analyzeLine(text: string, model: ModelId): LineAnalysis {
  const legacy = !isSecondGen(model)
  const analysis: LineAnalysis = { marks: [], issues: [], hasRuns: false }
  const found = findMarkup(text)
  const valid = found.filter((m) => m.kind === 'emphasis')
  // Emphasis may hold tags ("(((no <gasp> way)))"), which the engine finds in the emphasized words.
  const tags = found.flatMap((m) =>
    m.kind === 'emphasis'
      ? findMarkup(m.text).map((t) => ({ ...t, start: t.start + m.start + 3, end: t.end + m.start + 3 }))
      : [m],
  )
  for (const m of valid) {
    analysis.marks.push({ start: m.start, end: m.end, kind: legacy ? 'bad-emphasis' : 'emphasis' })
    if (legacy)
      analysis.issues.push({
        start: m.start,
        end: m.end,
        severity: 'info',
        message: legacyEmphasis(model, text.slice(m.start, m.end)),
      })
  }
  emphasisAttempts(text, valid, model, analysis)
  // Tags paint over emphasis: a tag inside it still acts (or is still spoken).
  for (const m of tags) {
    analysis.marks.push({ start: m.start, end: m.end, kind: legacy ? 'spoken-tag' : m.kind })
    if (legacy)
      analysis.issues.push({
        start: m.start,
        end: m.end,
        severity: 'warning',
        message: `${model} reads markup aloud: ${m.text} will be spoken`,
      })
  }
  for (const candidate of spokenTagCandidates(text)) {
    if (tags.some((t) => overlaps(t, candidate))) continue
    const written = text.slice(candidate.start, candidate.end)
    analysis.marks.push(candidate)
    analysis.issues.push({
      start: candidate.start,
      end: candidate.end,
      severity: 'warning',
      message: legacy ? `${model} reads markup aloud: ${quote(written)} will be spoken` : notATag(written),
    })
  }
  if (!legacy) analysis.issues.push(...emotionHints(text, tags))
  return analysis
}

/** The line cut into consecutive segments by what the model will do with each; later marks paint over earlier. */
export function highlightLine(text: string, model: ModelId): Segment[] {
  const { marks } = analyzeLine(text, model)
  const owner = new Int32Array(text.length).fill(-1)
  for (const [i, m] of marks.entries()) owner.fill(i, m.start, m.end)
  const segments: Segment[] = []
  let from = 0
  for (let at = 1; at <= text.length; at++) {
    if (at < text.length && owner[at] === owner[from]) continue
    const mark = marks[owner[from] ?? -1]
    segments.push({ text: text.slice(from, at), kind: mark?.kind ?? 'text' })
    from = at
  }
  return segments
}

/** Written in capitals, as scripts write speakers ("NARRATOR"): two letters or more and none in lower case. */
const inCapitals = (name: string) => /\p{Lu}.*\p{Lu}/u.test(name) && !/\p{Ll}/u.test(name)

/**
 * Speaker prefixes the cast has no one for: those lines are read whole in the script's voice, the name included.
 * With a cast, every such name is said. Without one, prose ("Note: this") must not be flagged, so a name is said
 * only when the script reads as a dialogue: two different speaker-like names, or a name written in capitals.
 */
function unknownSpeakers(
  lines: readonly { text: string }[],
  cast: readonly { name: string }[],
): Array<{ lineIndex: number; issue: LineIssue }> {
  const known = new Set(cast.map((m) => speakerKey(m.name)))
  const prefixes = lines.map((l) => speakerPrefix(l.text))
  const names = new Set(prefixes.flatMap((p) => (p ? [speakerKey(p.name)] : [])))
  const dialogue = known.size > 0 || names.size >= 2
  return prefixes.flatMap((prefix, lineIndex) => {
    if (!prefix || known.has(speakerKey(prefix.name))) return []
    if (!dialogue && !inCapitals(prefix.name)) return []
    const why =
      known.size > 0
        ? `${prefix.name} is not in the cast`
        : `${prefix.name} looks like a speaker, but the script has no cast`
    const message = `${why}: the line is read in the script’s voice, “${prefix.name}:” included. Add ${prefix.name} to the cast to give the line their voice`
    return [
      {
        lineIndex,
        issue: { start: prefix.start, end: prefix.end, severity: 'warning', message, speaker: prefix.name },
      },
    ]
  })
}

/**
 * The line as the model hears it, at the same positions: a cast member's prefix is not sent, so it is blanked out
 * (it holds no markup; an emotion tag right after it starts the line).
 */
function asSpoken(text: string, cast: readonly { name: string }[]): string {
  const { member, prefix } = spokenLine(text, cast)
  return member && prefix ? ' '.repeat(prefix.textStart) + text.slice(prefix.textStart) : text
}

/** The markup checks of every line, and the speaker names the cast lacks (schema/speaker.ts). */
export function lintScript(
  lines: readonly { id: string; text: string }[],
  model: ModelId,
  cast: readonly { name: string }[] = [],
): MarkupIssue[] {
  const issues: MarkupIssue[] = []
  const add = (lineIndex: number, issue: LineIssue) => {
    const line = lines[lineIndex]
    if (line) issues.push({ lineId: line.id, lineIndex, ...issue })
  }
  let pending: { lineIndex: number; run: Run } | undefined
  lines.forEach((line, lineIndex) => {
    const analysis = analyzeLine(asSpoken(line.text, cast), model)
    for (const issue of analysis.issues) add(lineIndex, issue)
    const close = analysis.leadingClose
    if (pending && close) {
      const opened = lines[pending.lineIndex]?.text ?? ''
      const spans = `Emphasis spans lines ${pending.lineIndex + 1} to ${lineIndex + 1}: it must open and close on one line, ${WITHOUT_STRESS}`
      add(pending.lineIndex, {
        start: pending.run.start,
        end: opened.length,
        severity: 'error',
        message: spans,
      })
      add(lineIndex, { start: 0, end: close.end, severity: 'error', message: spans })
      pending = undefined
    } else {
      if (close && size(close) >= 3) add(lineIndex, strayIssue(line.text, close))
      if (pending && analysis.hasRuns) {
        add(pending.lineIndex, unclosedIssue(lines[pending.lineIndex]?.text ?? '', pending.run))
        pending = undefined
      }
    }
    if (analysis.trailingOpen) pending = { lineIndex, run: analysis.trailingOpen }
  })
  if (pending) add(pending.lineIndex, unclosedIssue(lines[pending.lineIndex]?.text ?? '', pending.run))
  for (const { lineIndex, issue } of unknownSpeakers(lines, cast)) add(lineIndex, issue)
  return issues.sort((a, b) => a.lineIndex - b.lineIndex || a.start - b.start)
}
