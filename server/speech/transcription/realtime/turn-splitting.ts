/**
 * Turn splitting (6.4): when the session's tracker finds more than one speaker holding the floor in a finished turn,
 * the turn becomes one item per speaker. Pure: seconds within the turn in, groups and sample bounds out.
 */

/** Who spoke in one finished turn: the turn's speaker (null when undetermined) and spans in seconds within the turn. */
export interface TurnSpeakers {
  speaker: number | null
  segments: Array<{ speaker: number; start: number; end: number }>
}

/**
 * A speaker must hold the floor this long inside a turn for the turn to be split there: the tracker places a change
 * within about a window (1.5 s), and on a turn of a few seconds it can see a change that is not there.
 */
const MIN_SPLIT_SECONDS = 1.5

export interface SpeakerGroup {
  speaker: number
  start: number
  end: number
  segments: TurnSpeakers['segments']
}

/**
 * The tracker's segments of one turn (seconds) as consecutive groups, one per speaker holding the floor: a segment
 * shorter than a second stays in the group before it (or after it, at the start), and neighbouring groups of one
 * speaker are joined. Each group's speaker is the one who talks most in it.
 */
export function speakerGroups(result: TurnSpeakers, duration: number): SpeakerGroup[] {
  const segments = result.segments.filter((seg) => seg.end > seg.start)
  if (segments.length === 0) {
    return result.speaker === null
      ? []
      : [
          {
            speaker: result.speaker,
            start: 0,
            end: duration,
            segments: [{ speaker: result.speaker, start: 0, end: duration }],
          },
        ]
  }
  const groups: SpeakerGroup[] = []
  for (const seg of segments) {
    const last = groups.at(-1)
    const long = seg.end - seg.start >= MIN_SPLIT_SECONDS
    if (last && (!long || last.speaker === seg.speaker)) {
      last.end = seg.end
      last.segments.push(seg)
    } else if (last && last.end - last.start < MIN_SPLIT_SECONDS && groups.length === 1) {
      // A short opening stretch joins the first speaker who holds the floor.
      last.end = seg.end
      last.segments.push(seg)
    } else groups.push({ speaker: seg.speaker, start: seg.start, end: seg.end, segments: [seg] })
  }
  for (const group of groups) {
    const talk = new Map<number, number>()
    for (const seg of group.segments)
      talk.set(seg.speaker, (talk.get(seg.speaker) ?? 0) + seg.end - seg.start)
    group.speaker = [...talk].reduce((a, b) => (b[1] > a[1] ? b : a))[0]
  }
  // Groups whose speaker came out the same after the vote are one turn.
  return groups.reduce<SpeakerGroup[]>((out, group) => {
    const last = out.at(-1)
    if (last && last.speaker === group.speaker) {
      last.end = group.end
      last.segments.push(...group.segments)
    } else out.push(group)
    return out
  }, [])
}

/** One item of a split turn: its speaker group and its audio, samples [from, to) of the turn. */
export interface ItemBounds {
  group: SpeakerGroup
  from: number
  to: number
}

/**
 * Where the items of a turn of `length` samples at `rate` begin and end, one per group. The first item holds at least
 * the turn's first `early` samples (recognized while the turn went on: their words were sent as that item's), so a
 * later group that lies wholly inside them is dropped.
 */
export function itemBounds(
  groups: SpeakerGroup[],
  length: number,
  early: number,
  rate: number,
): ItemBounds[] {
  return groups
    .map((group, k) => ({
      group,
      from: k === 0 ? 0 : Math.max(early, Math.round(group.start * rate)),
      to: k === groups.length - 1 ? length : Math.max(early, Math.round(group.end * rate)),
    }))
    .filter((b, k) => k === 0 || b.to > b.from)
}
