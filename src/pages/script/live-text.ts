import {
  lastSentenceEnd,
  MAX_PHRASE_CHARS,
  type PhraseLimits,
  phraseEnd,
} from '../../../core/phrase-buffer.ts'
import { MAX_SESSION_CHARS } from '../../../schema/index.ts'

/**
 * "Hear it as it is written": what of the live box to send on the text-input socket, and when. The spec
 * (4.10) recommends complete phrases of 50 to 500 characters, so the box is cut with the service's own
 * phrase rules at a 50-character minimum. Sent text cannot be taken back: the sent part of the box is locked
 * until the session ends. Every append is one phrase of at most about 500 characters, far below
 * MAX_APPEND_CHARS; the box itself is capped at MAX_SESSION_CHARS.
 */

export const LIVE_PHRASE_LIMITS: PhraseLimits = {
  minSentenceChars: 50,
  minClauseChars: 50,
  maxPhraseChars: MAX_PHRASE_CHARS,
}

/** After a pause in typing this long, a complete sentence shorter than the minimum goes out too. */
export const LIVE_IDLE_MS = 800

export interface LiveText {
  /** The live box. */
  text: string
  /** How much of `text`, from its start, was sent in this session; that part is locked. */
  sent: number
  /** When the text last changed, on the caller's clock. */
  editedAt: number
  /** Why the last edit was refused, in plain words. */
  notice: string | null
}

export const EMPTY_LIVE_TEXT: LiveText = { text: '', sent: 0, editedAt: 0, notice: null }

/** The box after a step, and the appends to send for it, in order. */
export interface LiveStep {
  live: LiveText
  appends: string[]
}

/** The box's new text, unless the edit changes sent text or goes past the session's cap. */
export function editLiveText(live: LiveText, next: string, now: number): LiveText {
  if (!next.startsWith(live.text.slice(0, live.sent))) {
    return {
      ...live,
      notice:
        `The first ${live.sent.toLocaleString('en')} characters are already sent and cannot be changed. ` +
        'Write after them.',
    }
  }
  if (next.length > MAX_SESSION_CHARS) {
    return {
      ...live,
      notice:
        `Live mode takes at most ${MAX_SESSION_CHARS.toLocaleString('en')} characters in one session. ` +
        'Finish this session and start another for more.',
    }
  }
  return { text: next, sent: live.sent, editedAt: now, notice: null }
}

/**
 * The complete phrases ready to send: each of at least 50 characters (sentence end, or clause end) or cut at
 * a space before 500; once the writer has paused for `idleMs`, also any complete sentence that is shorter.
 */
export function takePhrases(live: LiveText, now: number, idleMs = LIVE_IDLE_MS): LiveStep {
  const appends: string[] = []
  let at = live.sent
  for (;;) {
    // A window one past the maximum: a sentence longer than that is cut at a space too, never sent whole.
    const window = live.text.slice(at, at + LIVE_PHRASE_LIMITS.maxPhraseChars + 1)
    const cut = phraseEnd(window, LIVE_PHRASE_LIMITS)
    if (cut === 0) break
    appends.push(window.slice(0, cut))
    at += cut
  }
  if (now - live.editedAt >= idleMs) {
    const end = lastSentenceEnd(live.text.slice(at))
    if (end > 0) {
      appends.push(live.text.slice(at, at + end))
      at += end
    }
  }
  return { live: { ...live, sent: at }, appends }
}

/** "Finish": every phrase still unsent, the unfinished rest included. */
export function takeRest(live: LiveText): LiveStep {
  const { live: cut, appends } = takePhrases(live, Number.POSITIVE_INFINITY, 0)
  const rest = cut.text.slice(cut.sent)
  if (rest.trim()) appends.push(rest)
  return { live: { ...cut, sent: cut.text.length }, appends }
}

/** When `takePhrases` will next have a short sentence to send, or null when none is waiting. */
export function idleDeadline(live: LiveText, idleMs = LIVE_IDLE_MS): number | null {
  return lastSentenceEnd(live.text.slice(live.sent)) > 0 ? live.editedAt + idleMs : null
}

/** The session ended: its text stays in the box, unlocked, to be spoken anew by the next session. */
export function unlockLiveText(live: LiveText): LiveText {
  return { ...live, sent: 0, notice: null }
}
