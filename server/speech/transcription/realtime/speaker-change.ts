import { ENGINE_RATE } from './pcm-input.ts'

/**
 * Speaker-change detection while a turn goes on (6.4): with diarization active, a long turn is checked now and then
 * for a change of speaker, which ends it there. The tracker finds the change; this decides when to ask it, which
 * audio to show it, and when its answer is trusted — session samples (16 kHz) throughout.
 */

/**
 * Checks run every this much new speech, once a turn has lasted `CHANGE_MIN_TURN` (a second of each speaker: the
 * segmentation model places a change within a few frames, docs/diarization.md "Online tracker"). A check is one
 * window of the model, about 50 ms: twice a second is a tenth of a core per session.
 */
const CHANGE_CHECK_SAMPLES = 0.5 * ENGINE_RATE
const CHANGE_MIN_TURN_SAMPLES = 2 * ENGINE_RATE
/** Speech of the earlier speaker a check needs before a change it reports. */
const CHANGE_MIN_BEFORE_SAMPLES = 1 * ENGINE_RATE
/** Two checks agree on a change when they place it this close together. */
const CHANGE_AGREEMENT_SAMPLES = 1 * ENGINE_RATE
/** How much of the turn, up to now, a check looks at: one window of the model. */
const CHANGE_WINDOW_SAMPLES = 10 * ENGINE_RATE

/**
 * How far behind now a turn's audio may still be cut by a change: a change found while a turn goes on lies at least
 * 1 s into the latest 10 s, so audio older than 9 s (and a second for two checks to agree) is never cut from the turn.
 * Early recognition stays this far behind, so words sent early never end up in the wrong speaker's item.
 */
export const CHANGE_SETTLED_SAMPLES =
  CHANGE_WINDOW_SAMPLES - CHANGE_MIN_BEFORE_SAMPLES + CHANGE_AGREEMENT_SAMPLES

/** What a check needs of the turn that goes on. */
export interface ChangeWatch {
  /** Session sample at which the turn began. */
  start: number
  /** Session clock at the last check. */
  checkedAt: number
  /** Where the last check placed a change not yet confirmed, or null. */
  candidate: number | null
}

/** The stretch a check examines now, from `from` up to `clock`, or null when no check is due yet. */
export function changeCheckDue(turn: ChangeWatch, clock: number): { from: number } | null {
  if (clock - turn.start < CHANGE_MIN_TURN_SAMPLES || clock - turn.checkedAt < CHANGE_CHECK_SAMPLES)
    return null
  // Only the latest stretch is examined, so a check costs the same however long the turn has run.
  return { from: Math.max(turn.start, clock - CHANGE_WINDOW_SAMPLES) }
}

/**
 * Weighs the tracker's answer for the stretch from `from` to `clock` (`change`: seconds into it, or null): keeps it
 * as the turn's candidate, and returns the session sample at which the turn ends once two checks in a row agree, else
 * null.
 */
export function confirmedChange(
  turn: ChangeWatch,
  from: number,
  clock: number,
  change: number | null,
): number | null {
  // A change in the first second of the examined stretch is not trusted: the tracker needs the earlier speaker's
  // voice to tell a change from that speaker's own onset. A real change is seen again once the
  // examined stretch has moved past it.
  const trusted = change !== null && change * ENGINE_RATE >= CHANGE_MIN_BEFORE_SAMPLES
  const at = trusted ? from + Math.round((change as number) * ENGINE_RATE) : null
  if (at === null || at <= turn.start || at >= clock) {
    turn.candidate = null
    return null
  }
  const confirmed = turn.candidate !== null && Math.abs(turn.candidate - at) <= CHANGE_AGREEMENT_SAMPLES
  turn.candidate = at
  return confirmed ? at : null
}
