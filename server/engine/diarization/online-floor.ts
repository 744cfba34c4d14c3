/**
 * Who holds the floor, frame by frame, in a stretch of live audio the segmentation model has heard (online-segmented.ts):
 * the runs of one speaker, a change of speaker, and the turn's segments. Pure: frames of the model's grid in, runs
 * and seconds out.
 */

/** One chain of local speakers on the stretch's frame grid (reidentify.ts ChainTrack). */
export interface HeardTrack {
  /** Grid frame of `heard[0]`. */
  start: number
  heard: Uint8Array
}

/** Frames [from, to) of one holder's speech, gaps of silence inside it included. */
export interface FloorRun {
  holder: number
  from: number
  to: number
}

/**
 * The holder of each frame (−1: nobody): the one chain heard there, or where several talk at once, the one that held
 * the floor just before (someone talking over the speaker does not take the floor by that alone); chains not
 * `eligible` (too little of their own voice to name them) are not heard at all.
 */
export function floorHolders(
  tracks: readonly HeardTrack[],
  frames: number,
  eligible: readonly boolean[],
): Int32Array {
  const holders = new Int32Array(frames).fill(-1)
  let previous = -1
  for (let g = 0; g < frames; g++) {
    let first = -1
    let keep = false
    tracks.forEach((t, c) => {
      if (!eligible[c] || !t.heard[g - t.start]) return
      if (first < 0) first = c
      if (c === previous) keep = true
    })
    holders[g] = keep ? previous : first
    if ((holders[g] as number) >= 0) previous = holders[g] as number
  }
  return holders
}

/**
 * Consecutive frames of one holder as runs (silence between two stretches of one holder joins them); a run shorter
 * than `minFrames` goes to the run before it (or after it, at the start): the model flickers on a few frames.
 */
export function floorRuns(holders: Int32Array, minFrames: number): FloorRun[] {
  const raw: FloorRun[] = []
  holders.forEach((holder, g) => {
    if (holder < 0) return
    const last = raw.at(-1)
    if (last && last.holder === holder) last.to = g + 1
    else raw.push({ holder, from: g, to: g + 1 })
  })
  const runs: FloorRun[] = []
  for (const run of raw) {
    const last = runs.at(-1)
    if (last && (last.holder === run.holder || run.to - run.from < minFrames)) last.to = run.to
    else if (last && last.to - last.from < minFrames && runs.length === 1)
      runs[0] = { holder: run.holder, from: last.from, to: run.to }
    else runs.push({ ...run })
  }
  return runs
}

/**
 * The frame at which the latest change of holder took place — the new holder has held the floor for at least
 * `minAfter` frames and the one before for at least `minBefore` — cut halfway through the silence between them;
 * null when there is none.
 */
export function latestChange(runs: readonly FloorRun[], minAfter: number, minBefore: number): number | null {
  for (let i = runs.length - 1; i > 0; i--) {
    const [before, after] = [runs[i - 1] as FloorRun, runs[i] as FloorRun]
    if (after.to - after.from >= minAfter && before.to - before.from >= minBefore)
      return Math.round((before.to + after.from) / 2)
  }
  return null
}

/**
 * The runs as segments covering the whole stretch (seconds, `frameSeconds` a frame, `duration` long), each boundary
 * halfway between one holder's last frame and the next one's first; `speakerOf` names each holder.
 */
export function runSegments(
  runs: readonly FloorRun[],
  speakerOf: (holder: number) => number,
  frameSeconds: number,
  duration: number,
): { speaker: number; start: number; end: number }[] {
  return runs.map((run, i) => {
    const previous = runs[i - 1]
    const next = runs[i + 1]
    return {
      speaker: speakerOf(run.holder),
      start: previous ? ((previous.to + run.from) / 2) * frameSeconds : 0,
      end: next ? Math.min(duration, ((run.to + next.from) / 2) * frameSeconds) : duration,
    }
  })
}
