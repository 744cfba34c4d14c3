import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react'
import type { LabelEdits } from '../../api/transcripts.ts'
import { saveBlob } from '../../components/saveBlob.ts'
import { countMatches, type FindOptions, replaceAll } from './corrections.ts'
import { EXPORT_TYPES, type ExportFormat, exportAs, subtitleCuesOf } from './exporters.ts'
import {
  canSplit,
  chosenTarget,
  colorOf,
  currentSpeakers,
  hasEdits,
  merge,
  nameOf,
  rename,
  resolveSpeaker,
  speakerOf,
  splitTargets,
} from './labels.ts'
import { type OpenTranscript, PLAYBACK_RATES, useReview } from './review-store.ts'
import { SubtitlesPanel } from './SubtitlesPanel.tsx'
import { TurnList, UNSURE_NOTE_ID } from './TurnList.tsx'
import { clock } from './turns.ts'
import { Waveform } from './Waveform.tsx'

const WARNING_TEXT: Record<string, string> = {
  diarization_failed:
    'Speaker labels could not be made for this recording (diarization_failed). The transcript is complete without them.',
  diarization_text_unavailable:
    'Speaker spans were found, but no transcript text could be matched to them (diarization_text_unavailable), so there are no speaker turns. The transcript is shown by segment.',
}

/** What the page says about where the rows came from and anything the service warned about. */
function notices(open: OpenTranscript): string[] {
  const { result } = open.transcript
  const out: string[] = []
  for (const w of result.warnings)
    out.push(WARNING_TEXT[w.code] ?? `${w.message ?? 'The service warned'} (${w.code}).`)
  const status = result.diarization?.status
  if (status && status !== 'completed') out.push(`Diarization status: ${status}.`)
  if (result.diarization && !result.diarization.turns && open.source !== 'turns' && out.length === 0)
    out.push('The service sent no speaker turns; the transcript is shown by segment without speakers.')
  if (!result.diarization) out.push('Speaker labels were not asked for; the transcript is shown by segment.')
  const trailing = open.entries.filter(
    (e) => e.start === null && e.speaker === null && open.source === 'turns',
  )
  if (trailing.length > 0)
    out.push(
      'The last entry holds text the service could not place in any speaker turn; it is shown as Unattributed.',
    )
  if (open.entries.length === 0) out.push('No speech was recognized in this recording.')
  return out
}

const EXPORT_LABELS: Record<ExportFormat, string> = { srt: 'SRT', vtt: 'WebVTT', json: 'JSON', txt: 'Text' }

function download(name: string, format: ExportFormat, text: string) {
  const blob = new Blob([text], { type: `${EXPORT_TYPES[format]};charset=utf-8` })
  saveBlob(blob, `${name.replace(/\.[a-z0-9]+$/i, '')}.${format}`)
}

/** Keys the review answers to: the first anywhere on it, even while typing; the rest when focus is not in a field. */
const SHORTCUTS = [
  'Ctrl+Space: play/pause, also while typing',
  'Space or K: play/pause',
  'J / L or ← / →: back / forward 5 s',
  '[ / ]: slower / faster',
  'P / N: previous / next turn',
  'S: split at the playhead',
  'Ctrl+Z: undo',
  'on a word: ← / → the word before / after, Enter moves the playhead to it',
  'in a turn’s text: Ctrl+Enter saves, Escape cancels',
]

/** The playback speed one step slower (-1) or faster (+1) than `rate`. */
function stepRate(rate: number, step: -1 | 1): number {
  const at = PLAYBACK_RATES.findIndex((r) => r >= rate)
  const i = Math.min(PLAYBACK_RATES.length - 1, Math.max(0, (at < 0 ? PLAYBACK_RATES.length - 1 : at) + step))
  return PLAYBACK_RATES[i] as number
}

/** 1.25 → "1.25×". */
const rateLabel = (rate: number) => `${rate}×`

function isTyping(target: EventTarget): boolean {
  const el = target as HTMLElement
  return el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName)
}

export function Review({ open }: { open: OpenTranscript }) {
  const { transcript } = open
  const headingRef = useRef<HTMLHeadingElement>(null)
  const store = useReview

  useEffect(() => {
    headingRef.current?.focus()
  }, [])

  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.defaultPrevented || e.altKey || e.metaKey) return
    // Ctrl+Space works in a textbox too, so a reviewer correcting words never has to leave it to pause.
    if (e.ctrlKey && (e.key === ' ' || e.code === 'Space')) {
      e.preventDefault()
      store.getState().togglePlay()
      return
    }
    if (isTyping(e.target)) return
    const onButton = (e.target as HTMLElement).tagName === 'BUTTON'
    const s = store.getState()
    if (e.ctrlKey) {
      if (e.key === 'z') {
        e.preventDefault()
        s.undo()
      }
      return
    }
    const actions: Record<string, () => void> = {
      k: s.togglePlay,
      j: () => s.skip(-5),
      l: () => s.skip(5),
      ArrowLeft: () => s.skip(-5),
      ArrowRight: () => s.skip(5),
      n: s.nextTurn,
      p: s.previousTurn,
      s: () => void s.splitAtPlayhead(),
      '[': () => s.setRate(stepRate(s.rate, -1)),
      ']': () => s.setRate(stepRate(s.rate, 1)),
    }
    if (e.key === ' ' && !onButton) actions[' '] = s.togglePlay
    const action = actions[e.key] ?? actions[e.key.toLowerCase()]
    if (!action) return
    e.preventDefault()
    action()
  }

  return (
    <section aria-labelledby="review-heading" className="panel review" onKeyDown={onKeyDown}>
      <div className="review-head">
        <h2 id="review-heading" ref={headingRef} tabIndex={-1}>
          {transcript.name}
        </h2>
        <button type="button" onClick={() => store.getState().close()}>
          Close
        </button>
      </div>
      <p className="muted">
        {transcript.source === 'live' ? 'Live session' : 'Uploaded'} by {transcript.created_by},{' '}
        {new Date(transcript.created_at).toLocaleString()} · {clock(transcript.duration, false)} ·{' '}
        {open.original.length} speaker{open.original.length === 1 ? '' : 's'} · {open.entries.length} entr
        {open.entries.length === 1 ? 'y' : 'ies'}
      </p>
      <Notices open={open} />
      <div className="review-grid">
        <div className="review-side">
          <Waveform open={open} />
          <PlayerControls />
          <SplitControls open={open} />
          <section aria-labelledby="keys-heading" className="shortcuts" id="review-shortcuts">
            <h3 id="keys-heading">Keys</h3>
            <ul>
              {SHORTCUTS.map((k) => (
                <li key={k}>{k}</li>
              ))}
            </ul>
            <p id={UNSURE_NOTE_ID}>Dotted underline: a word the recognizer was unsure of.</p>
          </section>
          {open.speakers.length === 0 && <EditState />}
          <FindReplace open={open} />
          <Speakers open={open} />
          <Exports open={open} />
          <Subtitles open={open} />
        </div>
        <div className="review-turns">
          <TurnList open={open} />
        </div>
      </div>
    </section>
  )
}

function Notices({ open }: { open: OpenTranscript }) {
  const list = notices(open)
  if (list.length === 0) return null
  return (
    <div className="notice" data-testid="transcript-notices">
      {list.map((n) => (
        <p key={n}>{n}</p>
      ))}
    </div>
  )
}

function PlayerControls() {
  const playing = useReview((s) => s.playing)
  const time = useReview((s) => s.time)
  const duration = useReview((s) => s.open?.transcript.duration ?? s.peaks?.duration ?? null)
  const s = useReview.getState()
  return (
    <div className="player-controls">
      <button type="button" onClick={s.previousTurn} aria-keyshortcuts="P">
        Previous turn
      </button>
      <button type="button" onClick={() => s.skip(-5)} aria-keyshortcuts="J">
        Back 5 s
      </button>
      <button type="button" className="primary" onClick={s.togglePlay} aria-keyshortcuts="K">
        {playing ? 'Pause' : 'Play'}
      </button>
      <button type="button" onClick={() => s.skip(5)} aria-keyshortcuts="L">
        Forward 5 s
      </button>
      <button type="button" onClick={s.nextTurn} aria-keyshortcuts="N">
        Next turn
      </button>
      <p className="clock" data-testid="playhead" data-seconds={time.toFixed(2)}>
        <span className="visually-hidden">Position </span>
        {clock(time)} / {clock(duration)}
      </p>
      <TypingPlayback />
    </div>
  )
}

/** Playback speed, and pausing while a turn's text is typed in (resumed a little after, 2 s back). */
function TypingPlayback() {
  const rate = useReview((s) => s.rate)
  const pauseWhileTyping = useReview((s) => s.pauseWhileTyping)
  const { setRate, setPauseWhileTyping } = useReview.getState()
  return (
    <div className="typing-playback">
      <label htmlFor="playback-rate">Playback speed</label>
      <select
        id="playback-rate"
        value={String(rate)}
        aria-keyshortcuts="[ ]"
        onChange={(e) => setRate(Number(e.target.value))}
      >
        {PLAYBACK_RATES.map((r) => (
          <option key={r} value={String(r)}>
            {rateLabel(r)}
          </option>
        ))}
      </select>
      <label className="check">
        <input
          type="checkbox"
          checked={pauseWhileTyping}
          onChange={(e) => setPauseWhileTyping(e.target.checked)}
        />
        Pause while typing (resume 2 s back)
      </label>
    </div>
  )
}

/**
 * Undo for every edit (speakers and words alike) and whether the edits are saved: under the speakers when there are
 * any, on its own otherwise.
 */
function EditState() {
  const edits = useReview((s) => s.edits)
  const history = useReview((s) => s.history)
  const save = useReview((s) => s.save)
  const saveError = useReview((s) => s.saveError)
  const mergeNote = useReview((s) => s.mergeNote)
  const aligning = useReview((s) => s.aligning)
  const timingNote = useReview((s) => s.timingNote)
  const { undo, reloadLabels, retrySave } = useReview.getState()
  return (
    <div className="edit-state">
      <div className="buttons">
        <button type="button" onClick={undo} disabled={history.length === 0} aria-keyshortcuts="Control+Z">
          Undo
        </button>
      </div>
      <p className={`save-state save-${save}`} role="status">
        {save === 'saving' && 'Saving label edits…'}
        {save === 'saved' &&
          (hasEdits(edits) ? 'Label edits saved. The original transcript is unchanged.' : '')}
        {save === 'error' && `Could not save the label edits: ${saveError}`}
        {save === 'conflict' && saveError}
        {save !== 'conflict' && mergeNote && ` ${mergeNote}`}
        {aligning > 0
          ? ` Placing the corrected words in the audio (${aligning} ${aligning === 1 ? 'turn' : 'turns'})…`
          : timingNote && ` ${timingNote}`}
      </p>
      {save === 'conflict' && (
        <button type="button" onClick={() => void reloadLabels()}>
          Load their edits
        </button>
      )}
      {save === 'error' && (
        <button type="button" onClick={retrySave}>
          Try saving again
        </button>
      )}
    </div>
  )
}

/** Find and replace over the turns' texts as corrected; Replace all is one edit, so one undo. */
function FindReplace({ open }: { open: OpenTranscript }) {
  const id = useId()
  const edit = useReview((s) => s.edit)
  const [find, setFind] = useState('')
  const [replacement, setReplacement] = useState('')
  const [opts, setOpts] = useState<FindOptions>({ wholeWord: false, matchCase: false })
  const [note, setNote] = useState('')
  const count = countMatches(open.rows, find, opts)
  const replace = () => {
    let replaced = 0
    edit((e) => {
      const outcome = replaceAll(e, open.entries, open.rows, find, replacement, opts)
      replaced = outcome.replaced
      return outcome.edits
    })
    setNote(`Replaced ${replaced} match${replaced === 1 ? '' : 'es'}. Undo takes it back.`)
  }
  return (
    <section aria-labelledby={`${id}-heading`} className="find-replace">
      <h3 id={`${id}-heading`}>Find and replace</h3>
      <div className="find-fields">
        <label htmlFor={`${id}-find`}>Find</label>
        <input
          id={`${id}-find`}
          type="search"
          value={find}
          onChange={(e) => {
            setFind(e.target.value)
            setNote('')
          }}
        />
        <label htmlFor={`${id}-replace`}>Replace with</label>
        <input id={`${id}-replace`} value={replacement} onChange={(e) => setReplacement(e.target.value)} />
      </div>
      <div className="find-options">
        <label className="check">
          <input
            type="checkbox"
            checked={opts.wholeWord}
            onChange={(e) => setOpts({ ...opts, wholeWord: e.target.checked })}
          />
          Whole words only
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={opts.matchCase}
            onChange={(e) => setOpts({ ...opts, matchCase: e.target.checked })}
          />
          Match case
        </label>
      </div>
      <p className="find-count" role="status" data-testid="find-count">
        {find === '' ? '' : `${count} match${count === 1 ? '' : 'es'}`}
        {note && find !== '' ? ` · ${note}` : note}
      </p>
      <button type="button" disabled={count === 0} onClick={replace}>
        Replace all
      </button>
    </section>
  )
}

/**
 * Split the turn at the playhead: the part after it goes to the speaker chosen here (the other speaker first). The
 * row under the playhead and the time are said beside the button, which the S key also presses.
 */
function SplitControls({ open }: { open: OpenTranscript }) {
  const current = useReview((s) => s.current)
  const time = useReview((s) => s.time)
  const edits = useReview((s) => s.edits)
  const splitTo = useReview((s) => s.splitTo)
  const note = useReview((s) => s.splitNote)
  const { setSplitTo, splitAtPlayhead } = useReview.getState()
  const row = current === null ? undefined : open.rows[current]
  if (open.source !== 'turns' || open.speakers.length === 0) return null
  // Away from any turn the choices are still shown (disabled), as they would be for a turn without a speaker.
  const targets = splitTargets(open.speakers, edits, row ?? { index: -1, speaker: null })
  const choice = chosenTarget(targets, splitTo)
  const possible = row !== undefined && canSplit(edits, row, time)
  return (
    <section aria-labelledby="split-heading" className="split">
      <h3 id="split-heading">Split a turn</h3>
      <p className="muted split-where" id="split-where">
        {row && current !== null
          ? `At ${clock(time)}, in turn ${current + 1} (${nameOf(edits, speakerOf(edits, row))}).`
          : 'Move the playhead into a turn to split it there.'}
      </p>
      <div className="split-row">
        <label htmlFor="split-to">Give the part after the playhead to</label>
        <select id="split-to" value={choice} disabled={!row} onChange={(e) => setSplitTo(e.target.value)}>
          {targets.map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </select>
        <button
          type="button"
          disabled={!possible}
          aria-keyshortcuts="S"
          aria-describedby="split-where"
          onClick={() => void splitAtPlayhead()}
        >
          Split at playhead
        </button>
      </div>
      <p className="split-note" role="status">
        {note}
      </p>
    </section>
  )
}

function Speakers({ open }: { open: OpenTranscript }) {
  const edits = useReview((s) => s.edits)
  const standing = currentSpeakers(open.speakers, edits)
  const talk = talkTime(open, edits)
  if (open.speakers.length === 0) return null
  return (
    <section aria-labelledby="speakers-heading" className="speakers">
      <h3 id="speakers-heading">Speakers</h3>
      <ul className="speaker-list">
        {standing.map((id) => (
          <SpeakerRow
            key={id}
            id={id}
            open={open}
            edits={edits}
            standing={standing}
            seconds={talk.get(id) ?? 0}
          />
        ))}
      </ul>
      {open.speakers.length > standing.length && (
        <p className="muted">
          Merged:{' '}
          {open.speakers
            .filter((id) => !standing.includes(id))
            .map((id) => `${id} → ${nameOf(edits, resolveSpeaker(edits, id))}`)
            .join(', ')}
        </p>
      )}
      <EditState />
    </section>
  )
}

function talkTime(open: OpenTranscript, edits: LabelEdits): Map<string, number> {
  const seconds = new Map<string, number>()
  for (const e of open.rows) {
    if (e.start === null || e.end === null) continue
    const who = speakerOf(edits, e)
    if (who !== null) seconds.set(who, (seconds.get(who) ?? 0) + (e.end - e.start))
  }
  return seconds
}

function SpeakerRow({
  id,
  open,
  edits,
  standing,
  seconds,
}: {
  id: string
  open: OpenTranscript
  edits: LabelEdits
  standing: string[]
  seconds: number
}) {
  const edit = useReview((s) => s.edit)
  const [name, setName] = useState(nameOf(edits, id))
  const [into, setInto] = useState('')
  useEffect(() => setName(nameOf(edits, id)), [edits, id])
  const others = standing.filter((o) => o !== id)
  const commitName = () => {
    if (name.trim() !== nameOf(edits, id)) edit((e) => rename(e, id, name))
  }
  return (
    <li className="speaker-row">
      <span className="swatch" style={{ background: colorOf(open.speakers, id) }} aria-hidden="true" />
      <div className="speaker-fields">
        <label htmlFor={`name-${id}`}>
          Name for {id} <span className="muted">({clock(seconds, false)} spoken)</span>
        </label>
        <input
          id={`name-${id}`}
          value={name}
          maxLength={80}
          onChange={(e) => setName(e.target.value)}
          onBlur={commitName}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commitName()
            if (e.key === 'Escape') setName(nameOf(edits, id))
          }}
        />
        {others.length > 0 && (
          <div className="merge">
            <label htmlFor={`merge-${id}`}>Merge {nameOf(edits, id)} into</label>
            <select id={`merge-${id}`} value={into} onChange={(e) => setInto(e.target.value)}>
              <option value="">Choose a speaker</option>
              {others.map((o) => (
                <option key={o} value={o}>
                  {nameOf(edits, o)}
                </option>
              ))}
            </select>
            <button
              type="button"
              disabled={!into}
              onClick={() => {
                edit((e) => merge(e, id, into))
                setInto('')
              }}
            >
              Merge
            </button>
          </div>
        )}
      </div>
    </li>
  )
}

/** The cues the SRT export writes from the corrected transcript, with the rules each breaks. */
function Subtitles({ open }: { open: OpenTranscript }) {
  const edits = useReview((s) => s.edits)
  const seek = useReview((s) => s.seek)
  const cues = useMemo(
    () =>
      subtitleCuesOf(
        { result: open.transcript.result, entries: open.entries, edits, duration: open.transcript.duration },
        'srt',
      ),
    [open, edits],
  )
  return <SubtitlesPanel cues={cues} onSeek={seek} />
}

function Exports({ open }: { open: OpenTranscript }) {
  const edits = useReview((s) => s.edits)
  const formats: ExportFormat[] = ['srt', 'vtt', 'json', 'txt']
  return (
    <section aria-labelledby="export-heading" className="exports">
      <h3 id="export-heading">Export</h3>
      <div className="buttons">
        {formats.map((f) => (
          <button
            key={f}
            type="button"
            onClick={() =>
              download(
                open.transcript.name,
                f,
                exportAs(
                  f,
                  {
                    result: open.transcript.result,
                    entries: open.entries,
                    edits,
                    duration: open.transcript.duration,
                  },
                  open.speakers,
                ),
              )
            }
          >
            {EXPORT_LABELS[f]}
          </button>
        ))}
      </div>
    </section>
  )
}
