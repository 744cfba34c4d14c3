import { create } from 'zustand'
import {
  DEFAULT_MODEL,
  type ScriptLine,
  SECOND_GEN_MODEL,
  type SpeechRequest,
  spokenLine,
  type VoiceSettings,
} from '../../../schema/index.ts'
import { type CapacityWait, withCapacityRetry } from '../../api/capacity-retry.ts'
import { renderSpeech, streamSpeech, streamSpeechWithReference } from '../../api/speech.ts'
import { sharedTakePlayer } from '../../audio/take-player.ts'
import { prebufferFor, usePlayback } from '../../state/playback.ts'
import { spokenInput } from './pronunciations-store.ts'
import type { Reference } from './ReferencePanel.tsx'
import { useScript } from './script-store.ts'
import { toSpeechRequest } from './settings.ts'
import { isLocked } from './take-currency.ts'
import { saveFinishedTake } from './take-history.ts'
import { useTakes } from './takes-store.ts'

/**
 * Previewing lines: each line is its own request and its own take, streamed one after another into the one worklet
 * stream so a script plays without gaps. Where each line starts in that stream tells the page which line is heard.
 */

export interface LinePlan {
  lineId: string
  /** The line as written, which its take keeps. */
  text: string
  /** What is sent: the text without its speaker prefix when a cast member speaks it (settings.ts resolveLine). */
  input: string
  settings: VoiceSettings
  /** A one-request reference clip: the line is spoken in its voice (second-generation model only). */
  reference: Reference | null
}

interface PreviewState {
  /** The stream frame at which each line's audio begins, in play order. */
  starts: Array<{ lineId: string; frame: number }>
  /** A capacity wait in progress (429/503), counted down for the designer. */
  wait: CapacityWait | null
  /** The lines of the last preview, offered again when it broke. */
  lastPlans: LinePlan[]
  /** Lines the final render could not make, with why. */
  renderNotes: string[]
  rendering: { done: number; total: number } | null
}

export const usePreview = create<PreviewState>(() => ({
  starts: [],
  wait: null,
  lastPlans: [],
  renderNotes: [],
  rendering: null,
}))

/** The line being heard: the last line whose audio began at or before the frame the worklet has played. */
export function lineAt(starts: PreviewState['starts'], framesPlayed: number): string | null {
  let current: string | null = null
  for (const s of starts) if (s.frame <= framesPlayed) current = s.lineId
  return current
}

/** The line being heard while a play is under way, else null (the editor marks it). */
export function useLineBeingHeard(): string | null {
  const starts = usePreview((s) => s.starts)
  return usePlayback((s) =>
    s.status === 'streaming' || s.status === 'playing' ? lineAt(starts, s.stats?.framesPlayed ?? 0) : null,
  )
}

function settingsOf(request: SpeechRequest): Omit<SpeechRequest, 'input'> {
  const { input: _input, ...rest } = request
  return rest
}

/**
 * The play's time to first audio as the Playback panel shows it (Play → first audible sample), once known; null when
 * the play ends first. Called from inside the play's source, after the playback state was reset for it.
 */
function playTimeToFirstAudio(): Promise<number | null> {
  return new Promise((resolve) => {
    const settle = (s: ReturnType<typeof usePlayback.getState>) => {
      const playing = s.status === 'streaming' || s.status === 'playing'
      if (s.timeToFirstAudioMs === null && playing) return false
      resolve(s.timeToFirstAudioMs)
      return true
    }
    if (settle(usePlayback.getState())) return
    const unsubscribe = usePlayback.subscribe((s) => {
      if (settle(s)) unsubscribe()
    })
  })
}

/**
 * Streams one line, recording its audio as a new take and feeding `push`; rejects when the stream breaks. The take
 * is saved to the backend after it finishes, off the play path; `timing` is the play's time to first audio when this
 * line started the play.
 *
 * Audio goes to `push` the moment it is decoded; the take, which the page renders, is updated once per task with
 * everything that came in it. Updated per delta, React rendered the new take between the first delta and the next
 * ones of the same network read, and the player waited for that render before it could start (bench:studio).
 */
async function streamLine(
  plan: LinePlan,
  signal: AbortSignal,
  push: (pcm: Int16Array, first: boolean) => void,
  timing: Promise<number | null> | null,
): Promise<void> {
  const request = toSpeechRequest(plan.settings, spokenInput(plan.input, plan.settings.model))
  const takes = useTakes.getState()
  let takeId: string | null = null
  let heard = false
  const unrecorded: Int16Array[] = []
  let recordTask: ReturnType<typeof setTimeout> | null = null
  const record = () => {
    if (recordTask !== null) clearTimeout(recordTask)
    recordTask = null
    if (unrecorded.length === 0) return
    // A take exists once audio does: a refused request is an error, not an empty take.
    takeId ??= takes.begin(
      plan.lineId,
      plan.text,
      plan.reference ? { ...settingsOf(request), voice: undefined } : settingsOf(request),
    )
    for (const pcm of unrecorded.splice(0)) takes.append(takeId, pcm)
  }
  const onAudio = (pcm: Int16Array) => {
    push(pcm, !heard)
    heard = true
    unrecorded.push(pcm)
    recordTask ??= setTimeout(record, 0)
  }
  const attempt = () =>
    plan.reference
      ? streamSpeechWithReference(request, plan.reference, { signal, onAudio })
      : streamSpeech(request, { signal, onAudio })
  try {
    await withCapacityRetry(attempt, { signal, onWait: (wait) => usePreview.setState({ wait }) })
    record()
    if (takeId) takes.finish(takeId, 'complete')
  } catch (err) {
    record()
    if (takeId) takes.finish(takeId, 'incomplete')
    throw err
  } finally {
    usePreview.setState({ wait: null })
    if (takeId) void saveFinishedTake(takeId, timing)
  }
}

/** Plays lines in order as one stream; each becomes a take of its line. */
export function playLines(plans: LinePlan[], clickedAt = performance.now()): Promise<void> {
  const usable = plans.filter((p) => p.input.trim() !== '')
  if (usable.length === 0) return Promise.resolve()
  sharedTakePlayer().pause()
  usePreview.setState({ starts: [], lastPlans: usable, wait: null })
  // The longest any line needs: marked-up lines want the longer buffer.
  const prebufferMs = Math.max(...usable.map((p) => prebufferFor(p.input)))
  return usePlayback.getState().playSource(
    async (sink, signal) => {
      const timing = playTimeToFirstAudio()
      for (const [i, plan] of usable.entries()) {
        const push = (pcm: Int16Array, first: boolean) => {
          const frame = sink.framesQueued
          sink.push(pcm)
          // After the audio, and in a task of its own (see streamLine): the editor renders the line being heard.
          if (first)
            setTimeout(() =>
              usePreview.setState((s) => ({ starts: [...s.starts, { lineId: plan.lineId, frame }] })),
            )
        }
        await streamLine(plan, signal, push, i === 0 ? timing : null)
      }
    },
    { prebufferMs, clickedAt },
  )
}

/** One line to render whole: its text and the request it is made with. */
interface RenderItem {
  lineId: string
  text: string
  request: Omit<SpeechRequest, 'input'>
}

/**
 * Renders each item as one complete utterance (`stream: false`), one request after another; each becomes the line's
 * chosen take. Only the second-generation model renders whole files, and a reference clip cannot be sent with
 * `stream: false` (4.2 takes no such field): those lines are named in the notes and left as they are. An item keeps
 * its line as written and the voice it was made in (its cast member's); what is sent is the line as the script reads
 * it now: without a cast member's speaker prefix, with the pronunciations applied.
 */
async function renderWhole(
  items: readonly RenderItem[],
  notes: string[],
  signal?: AbortSignal,
): Promise<void> {
  const takes = useTakes.getState()
  const renderable = items.filter((item) => {
    if (item.request.model !== SECOND_GEN_MODEL)
      notes.push(`“${item.text}”: ${item.request.model} has no final render.`)
    else if (item.request.voice === undefined)
      notes.push(`“${item.text}”: made with a reference clip, kept as streamed.`)
    else return true
    return false
  })
  usePreview.setState({ renderNotes: notes, rendering: { done: 0, total: renderable.length } })
  try {
    for (const [i, item] of renderable.entries()) {
      const input = spokenInput(
        spokenLine(item.text, useScript.getState().cast).input,
        item.request.model ?? DEFAULT_MODEL,
      )
      const request = { ...item.request, input, stream: false }
      const pcm = await withCapacityRetry(() => renderSpeech(request, signal), {
        signal,
        onWait: (wait) => usePreview.setState({ wait }),
      })
      const id = takes.begin(item.lineId, item.text, request)
      takes.append(id, pcm)
      takes.finish(id, 'complete')
      takes.star(id)
      // Saved starred: the backend un-stars the line's streamed take.
      void saveFinishedTake(id)
      usePreview.setState({ rendering: { done: i + 1, total: renderable.length } })
    }
  } finally {
    usePreview.setState({ rendering: null, wait: null })
  }
}

/**
 * The final render: every chosen take made again as one complete utterance, from the take's own text and settings.
 * A locked line keeps its chosen take as it is; a chosen take whose line was edited since is rendered as chosen,
 * and the notes say so ("Render changed lines" makes the line from its new text).
 */
export async function finalRender(
  lines: readonly Pick<ScriptLine, 'id' | 'text' | 'locked'>[],
  signal?: AbortSignal,
): Promise<void> {
  const open = lines.filter((l) => !isLocked(l))
  const textOf = new Map(open.map((l) => [l.id, l.text]))
  const chosen = useTakes
    .getState()
    .chosenTakes(open.map((l) => l.id))
    .filter((t) => !t.final)
  const notes: string[] = []
  for (const t of chosen)
    if (textOf.get(t.lineId) !== t.text)
      notes.push(`“${t.text}”: the line was edited since this take; rendered as chosen.`)
  await renderWhole(
    chosen.map((t) => ({ lineId: t.lineId, text: t.text, request: t.request })),
    notes,
    signal,
  )
}

/**
 * "Render changed lines": each line with no take of its current text (take-currency.ts) rendered whole from that
 * text and the line's settings now; it becomes the line's chosen take. Locked lines are never among them.
 */
export async function renderChangedLines(plans: readonly LinePlan[], signal?: AbortSignal): Promise<void> {
  await renderWhole(
    plans.map((p) => {
      const { input: _input, ...request } = toSpeechRequest(p.settings, p.text)
      return {
        lineId: p.lineId,
        text: p.text,
        request: p.reference ? { ...request, voice: undefined } : request,
      }
    }),
    [],
    signal,
  )
}
