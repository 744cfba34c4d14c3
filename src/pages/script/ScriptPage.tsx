import { useQuery } from '@tanstack/react-query'
import { memo, useEffect, useMemo, useState } from 'react'
import {
  builtinVoiceLanguage,
  MAX_CAST_MEMBERS,
  type ResponseFormat,
  SECOND_GEN_MODEL,
} from '../../../schema/index.ts'
import { explainError } from '../../api/error-text.ts'
import { scriptListQuery } from '../../api/scripts.ts'
import { scriptTakesQuery } from '../../api/takes.ts'
import { voiceCatalogQuery } from '../../api/voices.ts'
import { sharedTakePlayer } from '../../audio/take-player.ts'
import { saveBlob } from '../../components/saveBlob.ts'
import { usePlayback, usePlayerReadyBeforePlay } from '../../state/playback.ts'
import { CastPanel, newCastMember } from './CastPanel.tsx'
import { LineLock } from './LineLock.tsx'
import { LiveBox } from './LiveBox.tsx'
import { LivePlaybackStats, PlaybackStatusLine, StopButton } from './PlaybackStatus.tsx'
import { PronunciationsPanel } from './PronunciationsPanel.tsx'
import {
  finalRender,
  type LinePlan,
  playLines,
  renderChangedLines,
  useLineBeingHeard,
  usePreview,
} from './preview.ts'
import { type Reference, ReferencePanel } from './ReferencePanel.tsx'
import { ScriptEditor, type ScriptEditorProps } from './ScriptEditor.tsx'
import { LineOverrideForm, SettingsForm } from './SettingsForm.tsx'
import { scriptText, useScript } from './script-store.ts'
import { isSavedVoice, resolveLine, toSpeechRequest, voiceFor } from './settings.ts'
import { downloadChosen, FormatSelect, TakeList } from './TakeList.tsx'
import { changedLines, isLocked } from './take-currency.ts'
import { loadStoredTakes } from './take-history.ts'
import { useTakes } from './takes-store.ts'
import './script.css'

const SAVE_TEXT = {
  new: 'Not saved yet',
  saved: 'All changes saved',
  dirty: 'Unsaved changes…',
  saving: 'Saving…',
  conflict: 'Changed in another browser',
  error: 'Not saved',
} as const

/** What a voice sample says, in the voice's own language. */
const SAMPLE_LINES: Record<string, string> = {
  en: 'Hello! This is how I sound when I read your script.',
  de: 'Hallo! So klinge ich, wenn ich Ihr Skript lese.',
  es: '¡Hola! Así sueno cuando leo tu guion.',
  fr: 'Bonjour ! Voici ma voix quand je lis votre script.',
  it: 'Ciao! Ecco come suono quando leggo il tuo copione.',
  pt: 'Olá! É assim que eu soo ao ler o seu roteiro.',
  ru: 'Привет! Вот как я звучу, когда читаю ваш сценарий.',
  zh: '你好！这是我朗读你的剧本时的声音。',
  ar: 'مرحبا! هكذا يبدو صوتي عندما أقرأ نصك.',
  hi: 'नमस्ते! आपकी स्क्रिप्ट पढ़ते समय मेरी आवाज़ ऐसी है।',
}

function sampleLine(voice: string): string {
  const language = builtinVoiceLanguage(voice)?.slice(0, 2) ?? 'en'
  return SAMPLE_LINES[language] ?? (SAMPLE_LINES.en as string)
}

export function ScriptPage() {
  const script = useScript()
  // The page does not follow the play: a render of all of it just after Play took the main thread from the answer's
  // first audio on a two-core machine (bench:studio). What changes during a play subscribes on its own
  // (PlaybackStatus.tsx, the editor's line being heard, the takes).
  const rendering = usePreview((s) => s.rendering)
  const renderNotes = usePreview((s) => s.renderNotes)
  const [caretLineId, setCaretLineId] = useState<string | null>(null)
  const [selection, setSelection] = useState('')
  const [references, setReferences] = useState<Record<string, Reference>>({})
  const [format, setFormat] = useState<ResponseFormat>('wav')
  const [panelError, setPanelError] = useState<string | null>(null)
  const { loadLatest, setSettings } = script

  useEffect(() => {
    void loadLatest()
  }, [loadLatest])
  usePlayerReadyBeforePlay()

  // One sound at a time: replaying a take stops a preview (and a preview pauses the take, in preview.ts).
  useEffect(() => {
    const takePlayer = sharedTakePlayer()
    const onChange = () => {
      if (takePlayer.state.playing) void usePlayback.getState().stop()
    }
    takePlayer.addEventListener('change', onChange)
    return () => takePlayer.removeEventListener('change', onChange)
  }, [])

  // The open script's take history, kept by the backend: it survives a reload and follows the designer to another
  // browser. Loaded again when the script is opened again or the window regains focus.
  const storedTakes = useQuery({
    ...scriptTakesQuery(script.id ?? ''),
    enabled: script.id !== null,
  })
  useEffect(() => {
    if (!storedTakes.data) return
    const controller = new AbortController()
    void loadStoredTakes(storedTakes.data, controller.signal)
    return () => controller.abort()
  }, [storedTakes.data])

  const scripts = useQuery(scriptListQuery({ id: script.id, saved: script.revision !== null }))
  // The organization's saved voices come from the service's catalog; the voices page invalidates VOICES_KEY.
  const catalog = useQuery(voiceCatalogQuery(SECOND_GEN_MODEL))
  const savedVoices = useMemo(
    () => (catalog.data ?? []).filter((v) => v.type === 'saved').map((v) => ({ id: v.id, name: v.name })),
    [catalog.data],
  )
  // A saved voice deleted or revoked meanwhile leaves the script; the model's default takes its place.
  const savedGone =
    isSavedVoice(script.settings.voice) &&
    catalog.isSuccess &&
    !savedVoices.some((v) => v.id === script.settings.voice)
  useEffect(() => {
    const { settings } = useScript.getState()
    if (savedGone) setSettings({ ...settings, voice: voiceFor(settings.model) })
  }, [savedGone, setSettings])

  const lineIndex = new Map(script.lines.map((l, i) => [l.id, i]))
  const caretLine = script.lines.find((l) => l.id === caretLineId) ?? script.lines[0]
  const caretNumber = caretLine ? (lineIndex.get(caretLine.id) ?? 0) + 1 : 1
  // Takes of scripts opened earlier stay in the store; only this script's chosen takes count here.
  const chosenCount = useTakes((s) => s.chosenTakes(script.lines.map((l) => l.id)).length)
  const scriptIsEmpty = script.lines.every((l) => l.text.trim() === '')
  const changedCount = useTakes((s) => changedLines(script.lines, s.takes).length)
  const caretHasChosen = useTakes((s) => caretLine !== undefined && s.chosenTakes([caretLine.id]).length > 0)

  const planFor = (lineId: string, text?: string): LinePlan | null => {
    const line = script.lines.find((l) => l.id === lineId)
    // A locked line keeps its chosen take: nothing makes it again.
    if (!line || isLocked(line)) return null
    const { settings, input } = resolveLine(script, line, text)
    return { lineId, text: text ?? line.text, input, settings, reference: references[lineId] ?? null }
  }
  // What the caret line inherits before its own override: its cast member's settings, else the script's.
  const caretBase = caretLine ? resolveLine(script, { text: caretLine.text }) : null
  const play = (plans: Array<LinePlan | null>) =>
    void playLines(plans.filter((p): p is LinePlan => p !== null))
  const playLine = (lineId: string) => play([planFor(lineId)])
  const changedPlans = () => changedLines(script.lines, useTakes.getState().takes).map((l) => planFor(l.id))
  const playSample = (voice: string, base = caretLine && resolveLine(script, caretLine).settings) => {
    const settings = { ...(base ?? script.settings), voice }
    void usePlayback.getState().play(toSpeechRequest(settings, sampleLine(voice)))
  }

  const exportText = () =>
    saveBlob(
      new Blob([scriptText(script.lines)], { type: 'text/plain;charset=utf-8' }),
      `${script.title.trim() || 'script'}.txt`,
    )
  const importFile = async (file: File) =>
    script.importText(await file.text(), file.name.replace(/\.[^.]+$/, ''))

  const downloadAll = async () => {
    setPanelError(null)
    const chosen = useTakes.getState().chosenTakes(script.lines.map((l) => l.id))
    try {
      await downloadChosen(chosen, format, `${script.title.trim() || 'script'}`)
    } catch (err) {
      setPanelError(explainError(err).title)
    }
  }

  return (
    <section aria-labelledby="script-heading" className="page script-page">
      <header className="script-head">
        <h1 id="script-heading">Script</h1>
        <div className="script-file">
          <label>
            Title
            <input
              value={script.title}
              maxLength={200}
              onChange={(e) => script.setTitle(e.target.value)}
              aria-describedby="save-state"
            />
          </label>
          <span id="save-state" className={`save-state save-${script.save}`} aria-live="polite">
            {SAVE_TEXT[script.save]}
            {script.saveError && `: ${script.saveError}`}
          </span>
          <label>
            Open script
            <select
              value={script.id ?? ''}
              onChange={(e) => e.target.value && void script.open(e.target.value)}
            >
              {script.id === null && <option value="">(this new script)</option>}
              {(scripts.data ?? []).map((s) => (
                <option key={s.id} value={s.id}>
                  {s.title}
                </option>
              ))}
            </select>
          </label>
          <div className="buttons">
            <button type="button" onClick={() => script.newScript()}>
              New script
            </button>
            <button type="button" onClick={exportText}>
              Export text
            </button>
            <label className="file-button">
              Import text
              <input
                type="file"
                accept=".txt,text/plain"
                onChange={(e) => {
                  const file = e.target.files?.[0]
                  if (file) void importFile(file)
                  e.target.value = ''
                }}
              />
            </label>
          </div>
        </div>
        {script.save === 'conflict' && (
          <div role="alert" className="conflict">
            This script was saved in another browser after you opened it. Your edits are kept here, not saved.
            <button type="button" onClick={() => void script.resolveConflict('theirs')}>
              Load the other version
            </button>
            <button type="button" onClick={() => void script.resolveConflict('mine')}>
              Save mine over it
            </button>
          </div>
        )}
      </header>

      {/*
        The studio layout (script.css): on a wide screen the editor, the current line's takes and the settings are
        three panes over a transport bar, all in view at once; on a narrow one they stack. The order here is the
        keyboard order: from the editor, Tab reaches the transport next, then the line's takes, then the settings.
      */}
      <div className="script-layout">
        <div className="script-editor-pane">
          <EditorFollowingPlay
            lines={script.lines}
            onChange={script.setLines}
            model={script.settings.model}
            onCaretLine={setCaretLineId}
            onSelectionChange={setSelection}
            onPlayLine={playLine}
            cast={script.cast}
            // A full cast takes no one more: the flagged names are not offered then.
            onAddToCast={
              script.cast.length < MAX_CAST_MEMBERS
                ? (name) =>
                    script.setCast([...script.cast, newCastMember(name, script.settings, script.cast)])
                : undefined
            }
          />
        </div>

        <div className="script-transport">
          <fieldset className="transport">
            <legend className="visually-hidden">Preview</legend>
            <button
              type="button"
              className="primary"
              onClick={() => caretLine && playLine(caretLine.id)}
              disabled={!caretLine?.text.trim() || isLocked(caretLine)}
              title={
                caretLine && isLocked(caretLine)
                  ? 'The line is locked: unlock it to make new takes'
                  : undefined
              }
            >
              Play line {caretNumber}
            </button>
            <button
              type="button"
              onClick={() => caretLine && play([planFor(caretLine.id, selection)])}
              disabled={!selection.trim()}
            >
              Play selection
            </button>
            <button
              type="button"
              onClick={() => play(script.lines.map((l) => planFor(l.id)))}
              disabled={scriptIsEmpty}
              aria-describedby={scriptIsEmpty ? 'play-script-why' : undefined}
            >
              Play script
            </button>
            <button type="button" onClick={() => play(changedPlans())} disabled={changedCount === 0}>
              Play changed lines
            </button>
            <StopButton />
            {scriptIsEmpty && (
              <p id="play-script-why" className="hint">
                Write a line to play the script.
              </p>
            )}
          </fieldset>
          <PlaybackStatusLine onRetry={(plans) => play(plans)} />
          <LivePlaybackStats />
        </div>

        <div className="script-line-pane">
          {caretLine && (
            <section aria-labelledby="line-heading" className="line-panel">
              <h2 id="line-heading">
                Line {caretNumber}
                <span className="line-preview">{caretLine.text || '(empty)'}</span>
              </h2>
              <LineLock
                line={caretLine}
                hasChosenTake={caretHasChosen}
                onChange={(locked) => script.setLocked(caretLine.id, locked)}
              />
              <TakeList
                lineId={caretLine.id}
                lineLabel={`Line ${caretNumber}`}
                lineText={caretLine.text}
                locked={isLocked(caretLine)}
                onRetry={(take) => play([planFor(take.lineId)])}
              />
              <details>
                <summary>Settings for this line{caretLine.override ? ' (own settings)' : ''}</summary>
                <LineOverrideForm
                  key={`${caretLine.id}:${caretBase?.speaker ?? ''}`}
                  script={caretBase?.settings ?? script.settings}
                  base={caretBase?.speaker ?? 'script'}
                  value={caretLine.override}
                  onChange={(override) => script.setOverride(caretLine.id, override)}
                  savedVoices={savedVoices}
                  onSample={(voice) => playSample(voice)}
                  idPrefix="line"
                />
              </details>
              <details>
                <summary>Reference clip for this line{references[caretLine.id] ? ' (attached)' : ''}</summary>
                <p className="hint">
                  The line is spoken in the clip's voice (second-generation model, English). The clip is sent
                  with each request and never saved.
                </p>
                <ReferencePanel
                  key={caretLine.id}
                  value={references[caretLine.id] ?? null}
                  onChange={(ref) =>
                    setReferences(({ [caretLine.id]: _old, ...rest }) =>
                      ref ? { ...rest, [caretLine.id]: ref } : rest,
                    )
                  }
                />
              </details>
            </section>
          )}

          <section aria-labelledby="render-heading" className="render-panel">
            <h2 id="render-heading">Final render and download</h2>
            <p className="hint">
              Star one take per line. The final render makes each chosen take again as one complete file
              (stream: false), which becomes the line's chosen take. Render changed lines makes only the lines
              with no take of their current text. Locked lines keep their chosen take.
            </p>
            <div className="buttons">
              <button
                type="button"
                disabled={chosenCount === 0 || rendering !== null}
                onClick={() => {
                  setPanelError(null)
                  finalRender(script.lines).catch((err) => setPanelError(explainError(err).title))
                }}
              >
                Final render of chosen takes
              </button>
              <button
                type="button"
                disabled={changedCount === 0 || rendering !== null}
                onClick={() => {
                  setPanelError(null)
                  const plans = changedPlans().filter((p): p is LinePlan => p !== null)
                  renderChangedLines(plans).catch((err) => setPanelError(explainError(err).title))
                }}
              >
                Render changed lines
              </button>
              <FormatSelect label="Format" value={format} onChange={setFormat} />
              <button type="button" disabled={chosenCount === 0} onClick={() => void downloadAll()}>
                Download chosen takes
              </button>
            </div>
            <div aria-live="polite">
              {rendering && (
                <p>
                  Rendering {rendering.done} of {rendering.total}…
                </p>
              )}
              {renderNotes.map((note) => (
                <p key={note} className="hint">
                  {note}
                </p>
              ))}
              {panelError && <p className="problem">{panelError}</p>}
            </div>
          </section>

          <LiveBox settings={script.settings} />
        </div>

        <aside aria-labelledby="settings-heading" className="script-side">
          <h2 id="settings-heading">Voice and settings</h2>
          <SettingsForm
            value={script.settings}
            onChange={setSettings}
            savedVoices={savedVoices}
            onSample={(voice) => playSample(voice, script.settings)}
            idPrefix="script"
          />
          <CastPanel
            cast={script.cast}
            onChange={script.setCast}
            script={script.settings}
            lines={script.lines}
            savedVoices={savedVoices}
            onSample={playSample}
          />
          <PronunciationsPanel model={script.settings.model} />
        </aside>
      </div>
    </section>
  )
}

/**
 * The editor, marking the line being heard: it follows the play on its own, so the page need not, and renders again
 * only when that line changes (not when a play starts).
 */
function EditorFollowingPlay(props: Omit<ScriptEditorProps, 'activeLineId'>) {
  return <MemoEditor {...props} activeLineId={useLineBeingHeard()} />
}
const MemoEditor = memo(ScriptEditor)
