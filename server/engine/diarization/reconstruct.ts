/**
 * From labelled local speakers back to the recording: each frame keeps as many speakers as the windows covering it
 * hear on average (speakerCounts), those whose local speakers are active there in most windows (pyannote.audio's
 * reconstruction, Bredin 2023).
 */
import type { SpeakerSpan } from './diarizer.ts'
import { frameMiddle, type LocalSpeakers, RATE } from './local-speakers.ts'
import { node } from './stitch.ts'

/** Per speaker, 0/1 per grid frame (speakers × frames, row-major). */
export interface Activity {
  speakers: number
  frames: number
  active: Uint8Array
}

/**
 * `labels[node]` is the speaker of each local speaker (−1: none). With `everyone`, a speaker the counts leave out of
 * every frame (always outvoted where the windows hear fewer people) is heard wherever one of its local speakers is
 * active: a count asked for then names someone the model heard rather than nobody. (Where most windows hear it,
 * as for everyone else, finds no frame for any of them on the ten excerpts.)
 */
export function reconstruct(
  ls: LocalSpeakers,
  labels: Int32Array,
  speakers: number,
  counts: Uint8Array,
  everyone = false,
): Activity {
  const { frames: perWindow, speakers: local } = ls.segmenter
  const score = new Float32Array(speakers * ls.frames)
  ls.activity.forEach((a, w) => {
    const start = ls.starts[w] as number
    for (let s = 0; s < local; s++) {
      const label = labels[node(ls, w, s)] as number
      if (label < 0) continue
      for (let f = 0; f < perWindow; f++)
        if (a[f * local + s])
          score[label * ls.frames + start + f] = (score[label * ls.frames + start + f] as number) + 1
    }
  })
  const active = new Uint8Array(speakers * ls.frames)
  const order = Array.from({ length: speakers }, (_, i) => i)
  for (let g = 0; g < ls.frames; g++) {
    const wanted = counts[g] as number
    if (wanted === 0) continue
    order.sort((x, y) => (score[y * ls.frames + g] as number) - (score[x * ls.frames + g] as number))
    for (let i = 0; i < Math.min(wanted, speakers); i++) {
      const s = order[i] as number
      if ((score[s * ls.frames + g] as number) > 0) active[s * ls.frames + g] = 1
    }
  }
  for (let s = 0; everyone && s < speakers; s++) {
    const row = active.subarray(s * ls.frames, (s + 1) * ls.frames)
    if (row.some((x) => x > 0)) continue
    for (let g = 0; g < ls.frames; g++) if ((score[s * ls.frames + g] as number) > 0) row[g] = 1
  }
  return { speakers, frames: ls.frames, active }
}

/**
 * Each speaker's runs of active frames as spans in seconds (a frame lasts one step, centred on its receptive field),
 * gaps shorter than `bridgeSeconds` closed, within `[0, duration]`; in time order, speakers renumbered by first
 * appearance. Spans of different speakers may overlap.
 */
export function activitySpans(
  ls: LocalSpeakers,
  activity: Activity,
  duration: number,
  bridgeSeconds: number,
): SpeakerSpan[] {
  const step = ls.segmenter.frameStep
  const spans: SpeakerSpan[] = []
  for (let s = 0; s < activity.speakers; s++) {
    let open: SpeakerSpan | null = null
    for (let g = 0; g < activity.frames; g++) {
      if (!activity.active[s * activity.frames + g]) continue
      const start = frameMiddle(ls.segmenter, g) - step / 2
      const end = Math.min(duration, start + step)
      if (start >= duration) break
      if (open && start - open.end <= bridgeSeconds + 1e-9) open.end = end
      else {
        open = { start: Math.max(0, start), end, speaker: s }
        spans.push(open)
      }
    }
  }
  spans.sort((a, b) => a.start - b.start || a.speaker - b.speaker)
  const numbering = new Map<number, number>()
  for (const span of spans) {
    if (!numbering.has(span.speaker)) numbering.set(span.speaker, numbering.size)
    span.speaker = numbering.get(span.speaker) as number
  }
  return spans
}

/** The sample at the middle of grid frame g. */
export const frameSample = (ls: LocalSpeakers, g: number) => Math.round(frameMiddle(ls.segmenter, g) * RATE)
