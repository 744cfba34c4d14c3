/**
 * How saving a consent or a voice is going, as far as the page can know it. A save is one multipart request: the
 * browser sees its bytes go out, then nothing until the answer, while the service decodes, screens and checks the
 * clip (the phrase, or the speaker against the consent) and prepares the voice. For a voice the service first waits
 * for a cloning slot, up to two minutes (`cloningWaitMs`, server/speech/app.ts) behind other creations, before it
 * refuses with 429 busy; the backend cannot retry that (the body was streamed through, server/studio/proxy/retry.ts), so
 * the page waits and tries again itself. So none of it may pass in silence: the step is named, the wait for the
 * answer is timed, a wait longer than usual says why, and a wait past any the service should take ends the save.
 */

/** Past this, the wait for an answer is longer than a check and a preparation take on their own. */
export const SLOW_AFTER_MS = 20_000
/**
 * Past this the page stops waiting: twice the service's longest wait for a cloning slot (two minutes), which is
 * far beyond any check or preparation; an answer that late is not coming.
 */
export const ANSWER_LIMIT_MS = 4 * 60_000

export type SaveState =
  | { step: 'idle' }
  /** The request's bytes going out (`fraction` of them sent). */
  | { step: 'uploading'; attempt: number; fraction: number }
  /** Every byte sent since `since`; the answer has not come. */
  | { step: 'checking'; attempt: number; since: number }
  /** The service was busy; attempt `attempt` starts at `at`. */
  | { step: 'waiting'; attempt: number; at: number }

export type SaveEvent =
  | { type: 'start' }
  /** The wait after a busy answer is over (or cut short): the next attempt starts. */
  | { type: 'retry' }
  | { type: 'progress'; fraction: number; now: number }
  | { type: 'busy'; delayMs: number; now: number }
  /** Saved, failed or cancelled. */
  | { type: 'end' }

export const IDLE: SaveState = { step: 'idle' }

export function nextSave(state: SaveState, event: SaveEvent): SaveState {
  switch (event.type) {
    case 'start':
      return { step: 'uploading', attempt: 1, fraction: 0 }
    case 'retry':
      return state.step === 'waiting' ? { step: 'uploading', attempt: state.attempt, fraction: 0 } : state
    case 'progress':
      if (state.step === 'uploading')
        return event.fraction >= 1
          ? { step: 'checking', attempt: state.attempt, since: event.now }
          : { ...state, fraction: event.fraction }
      return state
    case 'busy':
      return state.step === 'uploading' || state.step === 'checking'
        ? { step: 'waiting', attempt: state.attempt + 1, at: event.now + event.delayMs }
        : state
    case 'end':
      return IDLE
  }
}

/** What the page says about the step, in the form's own words. */
export interface SaveWords {
  /** While the service works on the clip: "Checking the sample…". */
  checking: string
  /** Why a wait may be longer than usual, and that it ends by itself. */
  slow: string
}

export interface SaveStatus {
  /** The step, shown beside the progress bar, with the percentage or the time waited. */
  label: string
  /** The share uploaded, for the bar; null while it waits for the answer (an indeterminate bar). */
  fraction: number | null
  /** A wait longer than usual, explained; null otherwise. */
  slow: string | null
  /**
   * The same for assistive technology: it changes with the step and once a wait turns long, never with every
   * second, so a screen reader is not talked over.
   */
  announcement: string
  /** The answer is later than any the service should give: the page stops waiting for it. */
  overdue: boolean
}

/** Seconds waited as a clock: "0:07", "2:05". */
export function waited(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`
}

/** The status of an upload or a wait for its answer; null when idle or waiting to try again (the form says that). */
export function saveStatus(state: SaveState, now: number, words: SaveWords): SaveStatus | null {
  if (state.step === 'uploading') {
    const percent = Math.round(state.fraction * 100)
    return {
      label: `Uploading… ${percent}%`,
      fraction: state.fraction,
      slow: null,
      announcement: 'Uploading.',
      overdue: false,
    }
  }
  if (state.step === 'checking') {
    const ms = now - state.since
    const slow = ms >= SLOW_AFTER_MS
    return {
      label: `${words.checking} ${waited(ms)}`,
      fraction: null,
      slow: slow ? `This is taking longer than usual. ${words.slow}` : null,
      announcement: slow ? `${words.checking} This is taking longer than usual.` : words.checking,
      overdue: ms >= ANSWER_LIMIT_MS,
    }
  }
  return null
}
