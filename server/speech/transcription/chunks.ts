/**
 * Where to cut an upload for recognition (docs/transcription.md, "Recognition").
 *
 * - **Pieces** of at most `maxSeconds` (10 s): the recognizer ends an utterance at every piece boundary and the
 *   transcript segments never cross one, so a segment rarely straddles a speaker change and stays readable. A span
 *   that is too long is cut in its longest pause (a gap between the voice-activity detector's speech regions), at the
 *   quietest 100 ms of that pause; the two sides are cut again the same way until every piece fits. A span with no
 *   pause at all is cut at its quietest 100 ms between half the maximum and the maximum.
 * - **Chunks**: consecutive pieces of about `targetSeconds` (20 s), each recognized by one decoder run, so that text
 *   streams out chunk by chunk (`stream=true`) and the recognizer's input stays small. Chunks are planned one at a
 *   time, so the detector only has to have run about 30 s ahead of recognition.
 *
 * Pieces and chunks are contiguous `[start, end)` sample ranges covering the whole audio: nothing is left out of
 * recognition because the detector missed quiet speech; it only decides where the cuts go.
 */

export interface SampleRange {
  start: number
  end: number
}

/** A stretch without speech, in seconds. */
export interface Pause {
  start: number
  end: number
}

export interface PieceOptions {
  /** No piece is longer than this (seconds). */
  maxSeconds: number
  /** A pause is only cut when both sides keep at least this much (seconds). */
  minSeconds: number
}

export const DEFAULT_PIECES: PieceOptions = { maxSeconds: 10, minSeconds: 1 }

/** The pauses around and between speech regions (sorted, in seconds) of a recording of `duration` seconds. */
export function pausesBetween(
  regions: ReadonlyArray<{ start: number; end: number }>,
  duration: number,
): Pause[] {
  const pauses: Pause[] = []
  let cursor = 0
  for (const r of regions) {
    if (r.start > cursor) pauses.push({ start: cursor, end: Math.min(r.start, duration) })
    cursor = Math.max(cursor, r.end)
  }
  if (duration > cursor) pauses.push({ start: cursor, end: duration })
  return pauses.filter((p) => p.end > p.start)
}

/** 10 ms frames: the resolution of every cut. */
const FRAME_SECONDS = 0.01
/** The quiet stretch a cut is placed in the middle of. */
const QUIET_FRAMES = 10

/** Contiguous pieces covering `samples`, each at most `maxSeconds` long, cut in `pauses` where there are any. */
export function planPieces(
  samples: Float32Array,
  rate: number,
  pauses: readonly Pause[],
  opts: PieceOptions = DEFAULT_PIECES,
): SampleRange[] {
  const frame = Math.max(1, Math.round(rate * FRAME_SECONDS))
  const energy = frameEnergies(samples, frame)
  const maxSamples = Math.max(frame, Math.floor(opts.maxSeconds * rate))
  const minSamples = Math.min(Math.round(opts.minSeconds * rate), Math.floor(maxSamples / 2))
  /** Each pause's cut (a sample) and length, longest first; ties keep time order. */
  const cuts = pauses
    .map((p) => {
      const from = Math.max(0, Math.floor((p.start * rate) / frame))
      const to = Math.min(energy.length, Math.ceil((p.end * rate) / frame))
      return { at: quietest(energy, from, to) * frame, length: p.end - p.start }
    })
    .filter((c) => c.at > 0 && c.at < samples.length)
    .sort((a, b) => b.length - a.length || a.at - b.at)

  const pieces: SampleRange[] = []
  // An explicit stack (right side pushed first) keeps the pieces in time order without recursion.
  const stack: SampleRange[] = [{ start: 0, end: samples.length }]
  while (stack.length > 0) {
    const span = stack.pop() as SampleRange
    if (span.end - span.start <= maxSamples) {
      pieces.push(span)
      continue
    }
    const inside = cuts.find((c) => c.at >= span.start + minSamples && c.at <= span.end - minSamples)
    let at: number
    if (inside) at = inside.at
    else {
      // No pause: the quietest stretch between half the maximum and the maximum from the start.
      const from = Math.ceil((span.start + maxSamples / 2) / frame)
      const to = Math.floor((span.start + maxSamples) / frame)
      at = Math.min(span.start + maxSamples, Math.max(span.start + 1, quietest(energy, from, to) * frame))
    }
    stack.push({ start: at, end: span.end }, { start: span.start, end: at })
  }
  return pieces
}

/** Where the pauses are, found as far as asked (a voice-activity detector run progressively). */
export interface PauseSource {
  /** The pauses known from the start to at least `seconds` (or the end); a pause still open ends where knowledge does. */
  pausesUntil(seconds: number): Promise<Pause[]>
}

export interface ChunkOptions {
  /** Preferred chunk length (seconds): a chunk ends at the piece boundary nearest to it. */
  targetSeconds: number
  /** The stretch planned at a time (seconds); the rest of it is planned again with the next chunk. */
  windowSeconds: number
  pieces: PieceOptions
}

export const DEFAULT_CHUNKS: ChunkOptions = { targetSeconds: 20, windowSeconds: 30, pieces: DEFAULT_PIECES }

export interface Chunk extends SampleRange {
  /** Contiguous pieces covering the chunk. */
  pieces: SampleRange[]
}

/**
 * Chunks one after another, each asking `pauses` only as far as it needs (30 s ahead, and a second more so a pause at
 * the edge is seen whole): recognition of the first chunk starts without waiting for the detector to run over the
 * whole file. Each window is cut into pieces; the chunk takes the pieces up to the boundary nearest `targetSeconds`.
 */
export async function* planChunks(
  samples: Float32Array,
  rate: number,
  pauses: PauseSource,
  opts: ChunkOptions = DEFAULT_CHUNKS,
): AsyncGenerator<Chunk> {
  const target = opts.targetSeconds * rate
  let cursor = 0
  while (cursor < samples.length) {
    const windowEnd = Math.min(samples.length, cursor + Math.round(opts.windowSeconds * rate))
    const from = cursor / rate
    const to = windowEnd / rate
    const local = (await pauses.pausesUntil(to + 1))
      .map((p) => ({ start: Math.max(p.start, from) - from, end: Math.min(p.end, to) - from }))
      .filter((p) => p.end > p.start)
    const pieces = planPieces(samples.subarray(cursor, windowEnd), rate, local, opts.pieces).map((p) => ({
      start: p.start + cursor,
      end: p.end + cursor,
    }))
    let take = pieces.length
    if (windowEnd < samples.length && pieces.length > 1) {
      take = 1
      for (let k = 2; k < pieces.length; k++) {
        const off = Math.abs((pieces[k] as SampleRange).start - cursor - target)
        if (off < Math.abs((pieces[take] as SampleRange).start - cursor - target)) take = k
      }
    }
    const chunk = pieces.slice(0, take)
    const end = (chunk.at(-1) as SampleRange).end
    yield { start: cursor, end, pieces: chunk }
    cursor = end
  }
}

/** The sample in the middle of the quietest 100 ms of `samples` (the middle of a silent stretch). */
export function quietestCut(samples: Float32Array, rate: number): number {
  const frame = Math.max(1, Math.round(rate * FRAME_SECONDS))
  const energy = frameEnergies(samples, frame)
  return Math.min(samples.length, quietest(energy, 0, energy.length) * frame)
}

function frameEnergies(samples: Float32Array, frame: number): Float64Array {
  const energy = new Float64Array(Math.ceil(samples.length / frame))
  for (let f = 0; f < energy.length; f++) {
    let sum = 0
    const end = Math.min(samples.length, (f + 1) * frame)
    for (let i = f * frame; i < end; i++) sum += (samples[i] as number) ** 2
    energy[f] = sum
  }
  return energy
}

/**
 * The frame in the middle of the quietest `QUIET_FRAMES` within frames `[from, to)` (of the first run of equally quiet
 * windows, so a silent stretch is cut in its middle); the middle of the range when it is shorter than that.
 */
function quietest(energy: Float64Array, from: number, to: number): number {
  const window = QUIET_FRAMES
  if (to - from <= window) return Math.floor((from + to) / 2)
  const sums = new Float64Array(to - from - window + 1)
  let sum = 0
  for (let f = from; f < from + window; f++) sum += energy[f] as number
  sums[0] = sum
  for (let k = 1; k < sums.length; k++) {
    sum += (energy[from + k + window - 1] as number) - (energy[from + k - 1] as number)
    sums[k] = sum
  }
  let min = Number.POSITIVE_INFINITY
  for (const v of sums) min = Math.min(min, v)
  const tolerance = Math.max(1e-9, min * 1e-6)
  const first = sums.findIndex((v) => v <= min + tolerance)
  let last = first
  while (last + 1 < sums.length && (sums[last + 1] as number) <= min + tolerance) last++
  return from + Math.round((first + last + window) / 2)
}
