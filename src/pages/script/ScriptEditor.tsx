import {
  type KeyboardEvent,
  memo,
  type RefObject,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react'
import {
  EMOTION_TAGS,
  isSecondGen,
  MAX_SCRIPT_CHARS,
  type ModelId,
  RECOMMENDED_SCRIPT_CHARS,
  type ScriptLine,
  SECOND_GEN_MODEL,
  SOUND_TAGS,
  scriptCharacters,
  speakerKey,
} from '../../../schema/index.ts'
import { linesToText, reconcileLines } from './line-ids.ts'
import { insertTag, type TextEdit, toggleEmphasis } from './markup-insert.ts'
import { highlightLine, lintScript, type MarkupIssue, type Severity } from './markup-lint.ts'
import {
  type LineMarks,
  NO_MARKS,
  PronunciationNotes,
  usePronunciationMarks,
} from './pronunciation-marks.tsx'
import { lockedLineEdited } from './take-currency.ts'
import './editor.css'

export interface ScriptEditorProps {
  lines: ScriptLine[]
  onChange(lines: ScriptLine[]): void
  model: ModelId
  activeLineId: string | null
  /** The line holding the caret, whenever that changes. */
  onCaretLine?(lineId: string): void
  /** The selected text, '' when nothing is selected. */
  onSelectionChange?(selected: string): void
  /** Keyboard shortcut: play the caret's line. */
  onPlayLine?(lineId: string): void
  /** The script's cast: speaker names it lacks are flagged, with a button that adds them (onAddToCast). */
  cast?: readonly { name: string }[]
  onAddToCast?(name: string): void
}

const SEVERITY_WORD: Record<Severity, string> = { error: 'Problem', warning: 'Warning', info: 'Hint' }
const SEVERITY_RANK: Record<Severity, number> = { info: 1, warning: 2, error: 3 }
/** The list stays readable (and cheap to announce) however broken a pasted script is. */
const MAX_LISTED_ISSUES = 50
const NO_ISSUES: readonly MarkupIssue[] = []
const PALETTE_TAGS = [...EMOTION_TAGS.map((t) => `[${t}]`), ...SOUND_TAGS.map((t) => `<${t}>`)]

const count = (n: number) => n.toLocaleString('en')

function lineIndexAt(text: string, offset: number): number {
  let index = 0
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) index++
  return index
}

function lineStart(lines: readonly ScriptLine[], index: number): number {
  let offset = 0
  for (let i = 0; i < index; i++) offset += (lines[i]?.text.length ?? 0) + 1
  return offset
}

function lengthNote(characters: number): string {
  const { min, max } = RECOMMENDED_SCRIPT_CHARS
  const range = `the recommended ${count(min)} to ${count(max)} characters`
  if (characters >= MAX_SCRIPT_CHARS)
    return `The script is at its limit of ${count(MAX_SCRIPT_CHARS)} characters: nothing more can be added.`
  if (characters > max)
    return `Longer than ${range}. It still plays, up to ${count(MAX_SCRIPT_CHARS)} characters.`
  if (characters > 0 && characters < min) return `Shorter than ${range}.`
  return ''
}

export function ScriptEditor({
  lines,
  onChange,
  model,
  activeLineId,
  onCaretLine,
  onSelectionChange,
  onPlayLine,
  cast,
  onAddToCast,
}: ScriptEditorProps) {
  const id = useId()
  const textareaRef = useRef<HTMLTextAreaElement>(null)
  const mirrorRef = useRef<HTMLDivElement>(null)
  const paletteRef = useRef<HTMLDivElement>(null)
  const text = useMemo(() => linesToText(lines), [lines])
  const issues = useMemo(() => lintScript(lines, model, cast), [lines, model, cast])
  const issuesByLine = useMemo(() => {
    const byLine = new Map<string, MarkupIssue[]>()
    for (const issue of issues) {
      const line = byLine.get(issue.lineId)
      if (line) line.push(issue)
      else byLine.set(issue.lineId, [issue])
    }
    return byLine
  }, [issues])
  const marks = usePronunciationMarks(lines)
  const characters = scriptCharacters(lines)
  const [caretLine, setCaretLine] = useState<number | null>(null)
  const [refused, setRefused] = useState(false)
  /** The number of the locked line an edit would have changed, while the note says so. */
  const [lockedRefusal, setLockedRefusal] = useState<number | null>(null)
  const pendingSelection = useRef<TextEdit | null>(null)
  const reported = useRef({ lineId: '', selected: '' })

  const syncCaret = () => {
    const ta = textareaRef.current
    if (!ta) return
    setCaretLine(lineIndexAt(ta.value, ta.selectionStart))
    const selected = ta.value.slice(ta.selectionStart, ta.selectionEnd)
    if (selected !== reported.current.selected) {
      reported.current.selected = selected
      onSelectionChange?.(selected)
    }
  }

  const caretLineId = caretLine === null ? null : (lines[Math.min(caretLine, lines.length - 1)]?.id ?? null)
  useEffect(() => {
    if (caretLineId === null || caretLineId === reported.current.lineId) return
    reported.current.lineId = caretLineId
    onCaretLine?.(caretLineId)
  }, [caretLineId, onCaretLine])

  const syncScroll = () => {
    const ta = textareaRef.current
    const mirror = mirrorRef.current
    if (!ta || !mirror) return
    mirror.scrollTop = ta.scrollTop
    mirror.scrollLeft = ta.scrollLeft
  }

  /** Scrolls the textarea to a line that is out of view; the mirror knows where each line is drawn. */
  const revealLine = (lineId: string) => {
    const ta = textareaRef.current
    const row = mirrorRef.current?.querySelector<HTMLElement>(`[data-line-id="${lineId}"]`)
    if (!ta || !row) return
    if (row.offsetTop < ta.scrollTop || row.offsetTop + row.offsetHeight > ta.scrollTop + ta.clientHeight)
      ta.scrollTop = Math.max(0, row.offsetTop - ta.clientHeight / 3)
    syncScroll()
  }

  // Every edit re-renders the mirror, and a programmatic edit then puts the selection where it belongs.
  useLayoutEffect(() => {
    const ta = textareaRef.current
    const pending = pendingSelection.current
    if (ta && pending && ta.value === pending.text) {
      pendingSelection.current = null
      ta.focus()
      ta.setSelectionRange(pending.selectionStart, pending.selectionEnd)
      syncCaret()
    }
    syncScroll()
  })

  // While the designer types, the view stays where they are; otherwise it follows the spoken line.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs only when the spoken line changes
  useEffect(() => {
    if (activeLineId && document.activeElement !== textareaRef.current) revealLine(activeLineId)
  }, [activeLineId])

  const applyEdit = (edit: TextEdit) => {
    if (edit.text.length > MAX_SCRIPT_CHARS) {
      setRefused(true)
      return
    }
    setRefused(false)
    pendingSelection.current = edit
    changeLines(reconcileLines(lines, edit.text))
  }

  /** A locked line's text is read-only: an edit that would change or remove it is not made, and the note says why. */
  const changeLines = (next: ScriptLine[], typedInto?: HTMLTextAreaElement) => {
    const locked = lockedLineEdited(lines, next)
    setLockedRefusal(locked ? locked.number : null)
    if (!locked) return onChange(next)
    pendingSelection.current = null
    // The textarea already shows the refused keystroke: the text goes back, and the caret to where it was (left at
    // the end, the next keystrokes would land in the last line).
    if (typedInto) {
      const caret = Math.max(0, typedInto.selectionStart - (typedInto.value.length - text.length))
      typedInto.value = text
      typedInto.setSelectionRange(caret, caret)
    }
  }

  const selection = () => {
    const ta = textareaRef.current
    return { start: ta?.selectionStart ?? text.length, end: ta?.selectionEnd ?? text.length }
  }

  const insert = (tag: string) => applyEdit(insertTag(text, selection().start, tag))
  const emphasize = () => {
    const { start, end } = selection()
    applyEdit(toggleEmphasis(text, start, end))
  }

  const focusPalette = () =>
    paletteRef.current?.querySelector<HTMLButtonElement>('button[tabindex="0"]')?.focus()

  const onEditorKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const mod = e.ctrlKey || e.metaKey
    if (e.altKey && e.shiftKey && !mod && (e.code === 'KeyM' || e.key.toLowerCase() === 'm')) {
      e.preventDefault()
      focusPalette()
    }
  }

  const onTextareaKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    const mod = e.ctrlKey || e.metaKey
    if (mod && !e.shiftKey && !e.altKey && e.key === 'Enter') {
      e.preventDefault()
      const line = lines[lineIndexAt(text, e.currentTarget.selectionStart)]
      if (line) onPlayLine?.(line.id)
    } else if (mod && e.shiftKey && !e.altKey && (e.code === 'KeyE' || e.key.toLowerCase() === 'e')) {
      e.preventDefault()
      emphasize()
    }
  }

  const showIssue = (issue: MarkupIssue) => {
    const ta = textareaRef.current
    if (!ta) return
    const offset = lineStart(lines, issue.lineIndex)
    ta.focus()
    ta.setSelectionRange(offset + issue.start, offset + issue.end)
    syncCaret()
    revealLine(issue.lineId)
  }

  const note =
    lockedRefusal !== null
      ? `Line ${lockedRefusal} is locked: unlock it to edit its text.`
      : refused
        ? `That would take the script past its limit of ${count(MAX_SCRIPT_CHARS)} characters, so nothing was added.`
        : lengthNote(characters)
  const legacy = !isSecondGen(model)
  const taId = `${id}-script`
  const helpId = `${id}-help`
  const countId = `${id}-count`

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: catches Alt+Shift+M anywhere in the editor; the key is declared on the toolbar
    <div className="script-editor" onKeyDown={onEditorKeyDown}>
      <MarkupPalette
        paletteRef={paletteRef}
        controls={taId}
        onTag={insert}
        onEmphasis={emphasize}
        onLeave={() => textareaRef.current?.focus()}
      />
      {legacy && (
        <p className="script-editor-legacy">
          {model} reads markup aloud: tags and emphasis act only with {SECOND_GEN_MODEL}.
        </p>
      )}
      <label htmlFor={taId} className="script-editor-label">
        Script
      </label>
      <div className="script-editor-field">
        <div className="script-editor-mirror" ref={mirrorRef} aria-hidden="true">
          {lines.map((line, index) => (
            <MirrorLine
              key={line.id}
              id={line.id}
              text={line.text}
              model={model}
              issues={issuesByLine.get(line.id) ?? NO_ISSUES}
              marks={marks.get(line.id) ?? NO_MARKS}
              active={line.id === activeLineId}
              caret={index === caretLine}
              locked={line.locked === true}
            />
          ))}
        </div>
        <textarea
          id={taId}
          ref={textareaRef}
          value={text}
          maxLength={MAX_SCRIPT_CHARS}
          rows={16}
          aria-describedby={`${helpId} ${countId}`}
          aria-keyshortcuts="Control+Enter Meta+Enter Control+Shift+E Alt+Shift+M"
          onChange={(e) => {
            if (e.target.value.length > MAX_SCRIPT_CHARS) return
            setRefused(false)
            changeLines(reconcileLines(lines, e.target.value), e.target)
            syncCaret()
          }}
          onSelect={syncCaret}
          onFocus={syncCaret}
          onScroll={syncScroll}
          onKeyDown={onTextareaKeyDown}
        />
      </div>
      <div className="script-editor-under">
        <p id={countId} className="script-editor-count">
          {count(characters)} / {count(MAX_SCRIPT_CHARS)} characters
        </p>
        <p className="script-editor-note" role="status">
          {note}
        </p>
      </div>
      <p id={helpId} className="script-editor-help">
        Keys: Ctrl+Enter plays the line with the caret. Ctrl+Shift+E stresses the selected words (emphasis),
        or removes it again. Alt+Shift+M moves to the markup buttons; arrow keys move between them, Escape
        returns to the script.
      </p>
      <IssueList issues={issues} onShow={showIssue} onAddToCast={onAddToCast} />
      <PronunciationNotes lines={lines} marks={marks} model={model} />
    </div>
  )
}

interface MarkupPaletteProps {
  paletteRef: RefObject<HTMLDivElement | null>
  controls: string
  onTag(tag: string): void
  onEmphasis(): void
  onLeave(): void
}

/** One tab stop for all the buttons; arrow keys move within (the ARIA toolbar pattern). */
function MarkupPalette({ paletteRef, controls, onTag, onEmphasis, onLeave }: MarkupPaletteProps) {
  const [current, setCurrent] = useState(0)
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const buttons = [...(paletteRef.current?.querySelectorAll('button') ?? [])]
    const at = buttons.indexOf(e.target as HTMLButtonElement)
    const moves: Record<string, number> = {
      ArrowRight: (at + 1) % buttons.length,
      ArrowLeft: (at - 1 + buttons.length) % buttons.length,
      Home: 0,
      End: buttons.length - 1,
    }
    if (e.key === 'Escape') {
      e.preventDefault()
      onLeave()
      return
    }
    const next = moves[e.key]
    if (at === -1 || next === undefined) return
    e.preventDefault()
    buttons[next]?.focus()
  }
  const button = (index: number, label: string, onClick: () => void, shortcut?: string) => (
    <button
      key={label}
      type="button"
      tabIndex={index === current ? 0 : -1}
      aria-keyshortcuts={shortcut}
      onFocus={() => setCurrent(index)}
      onClick={onClick}
    >
      {label}
    </button>
  )
  return (
    <div
      className="script-editor-palette"
      role="toolbar"
      aria-label="Insert markup"
      aria-controls={controls}
      aria-keyshortcuts="Alt+Shift+M"
      ref={paletteRef}
      onKeyDown={onKeyDown}
    >
      <fieldset className="script-editor-emotions">
        <legend>Emotions, before the sentence they colour</legend>
        {PALETTE_TAGS.slice(0, EMOTION_TAGS.length).map((tag, i) => button(i, tag, () => onTag(tag)))}
      </fieldset>
      <fieldset className="script-editor-sounds">
        <legend>Sounds, where they occur</legend>
        {PALETTE_TAGS.slice(EMOTION_TAGS.length).map((tag, i) =>
          button(EMOTION_TAGS.length + i, tag, () => onTag(tag)),
        )}
      </fieldset>
      {button(PALETTE_TAGS.length, 'Emphasis', onEmphasis, 'Control+Shift+E')}
    </div>
  )
}

interface MirrorLineProps {
  id: string
  text: string
  model: ModelId
  issues: readonly MarkupIssue[]
  marks: LineMarks
  active: boolean
  caret: boolean
  /** Read-only until unlocked (drawn with a bar at its left). */
  locked: boolean
}

const sameMarks = (a: LineMarks, b: LineMarks) =>
  a.length === b.length &&
  a.every((x, i) => x.start === b[i]?.start && x.end === b[i]?.end && x.entry === b[i]?.entry)

const sameIssues = (a: readonly MarkupIssue[], b: readonly MarkupIssue[]) =>
  a.length === b.length &&
  a.every((x, i) => x.start === b[i]?.start && x.end === b[i]?.end && x.severity === b[i]?.severity)

/** One line of the highlight layer: the segments' colours, with each issue's range underlined. */
const MirrorLine = memo(
  function MirrorLine({ id, text, model, issues, marks, active, caret, locked }: MirrorLineProps) {
    const pieces: { text: string; className: string }[] = []
    let offset = 0
    for (const segment of highlightLine(text, model)) {
      const end = offset + segment.text.length
      const cuts = new Set([offset, end])
      for (const issue of issues)
        for (const at of [issue.start, issue.end]) if (at > offset && at < end) cuts.add(at)
      for (const mark of marks)
        for (const at of [mark.start, mark.end]) if (at > offset && at < end) cuts.add(at)
      const points = [...cuts].sort((a, b) => a - b)
      for (let i = 0; i + 1 < points.length; i++) {
        const [from = 0, to = 0] = [points[i], points[i + 1]]
        const worst = issues
          .filter((issue) => issue.start < to && issue.end > from)
          .reduce<Severity | null>(
            (w, issue) => (w && SEVERITY_RANK[w] >= SEVERITY_RANK[issue.severity] ? w : issue.severity),
            null,
          )
        const said = marks.some((m) => m.start < to && m.end > from)
        const classes = [
          segment.kind === 'text' ? '' : `mk-${segment.kind}`,
          worst ? `issue-${worst}` : '',
          said ? 'pron-match' : '',
        ]
        pieces.push({ text: text.slice(from, to), className: classes.filter(Boolean).join(' ') })
      }
      offset = end
    }
    const className = ['line', active && 'is-active', caret && 'is-caret', locked && 'is-locked']
      .filter(Boolean)
      .join(' ')
    return (
      <div className={className} data-line-id={id}>
        {pieces.length === 0 ? (
          <br />
        ) : (
          pieces.map((piece, i) =>
            piece.className ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: pieces are positional and rebuilt with their line
              <span key={i} className={piece.className}>
                {piece.text}
              </span>
            ) : (
              piece.text
            ),
          )
        )}
      </div>
    )
  },
  (a, b) =>
    a.id === b.id &&
    a.text === b.text &&
    a.model === b.model &&
    a.active === b.active &&
    a.caret === b.caret &&
    sameMarks(a.marks, b.marks) &&
    a.locked === b.locked &&
    sameIssues(a.issues, b.issues),
)

const counted = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** "Markup: 1 problem, 1 warning." — each severity counted apart, in the words the list uses. */
export function summarizeIssues(issues: readonly MarkupIssue[]): string {
  if (issues.length === 0) return 'Markup looks right.'
  const of = (severity: MarkupIssue['severity']) => issues.filter((i) => i.severity === severity).length
  const parts = [
    of('error') > 0 && counted(of('error'), 'problem', 'problems'),
    of('warning') > 0 && counted(of('warning'), 'warning', 'warnings'),
    of('info') > 0 && counted(of('info'), 'hint', 'hints'),
  ].filter((p) => p !== false)
  return `Markup: ${parts.join(', ')}.`
}

interface IssueListProps {
  issues: readonly MarkupIssue[]
  onShow(issue: MarkupIssue): void
  onAddToCast?(name: string): void
}

function IssueList({ issues, onShow, onAddToCast }: IssueListProps) {
  const listed = issues.slice(0, MAX_LISTED_ISSUES)
  // One button per missing name, on its first line: the same name flagged on ten lines is added once.
  const offers = new Set(
    listed.filter(
      (issue, i) =>
        issue.speaker !== undefined &&
        listed.findIndex((o) => o.speaker && speakerKey(o.speaker) === speakerKey(issue.speaker ?? '')) === i,
    ),
  )
  // The button goes once its name is in the cast; focus stays in the checks, on their summary, rather than being lost.
  const summaryRef = useRef<HTMLParagraphElement>(null)
  const addToCast = (name: string) => {
    onAddToCast?.(name)
    summaryRef.current?.focus()
  }
  return (
    <div className="script-editor-issues" aria-live="polite">
      <p className="script-editor-issues-summary" ref={summaryRef} tabIndex={-1}>
        {summarizeIssues(issues)}
      </p>
      {listed.length > 0 && (
        <ul>
          {listed.map((issue) => (
            <li key={`${issue.lineId}:${issue.start}:${issue.end}:${issue.message}`}>
              <button type="button" className={`issue-${issue.severity}`} onClick={() => onShow(issue)}>
                <span className="script-editor-issue-where">
                  Line {issue.lineIndex + 1} · {SEVERITY_WORD[issue.severity]}:
                </span>{' '}
                {issue.message}
              </button>
              {issue.speaker && onAddToCast && offers.has(issue) && (
                <button type="button" onClick={() => addToCast(issue.speaker as string)}>
                  Add {issue.speaker} to the cast
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {issues.length > listed.length && <p>…and {issues.length - listed.length} more.</p>}
    </div>
  )
}
