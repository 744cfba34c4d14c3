/**
 * NIST RTTM speaker turns (`SPEAKER <file> 1 <start> <duration> <NA> <NA> <speaker> <NA> <NA>`), the usual
 * reference format for diarization.
 */

export interface LabelledTurn {
  start: number
  end: number
  speaker: string
}

/**
 * Turns per recording. Recording ids are folded to plain ASCII letters (a reference may spell `trn00` as `trñ00`);
 * speaker labels are kept as written, since they name people across recordings.
 */
export function parseRttm(text: string): Map<string, LabelledTurn[]> {
  const byFile = new Map<string, LabelledTurn[]>()
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/)
    if (fields[0] !== 'SPEAKER' || fields.length < 8) continue
    const file = foldRecordingId(fields[1] as string)
    const start = Number(fields[3])
    const duration = Number(fields[4])
    if (!Number.isFinite(start) || !Number.isFinite(duration)) throw new SyntaxError(`bad RTTM line: ${line}`)
    const turns = byFile.get(file) ?? []
    turns.push({ start, end: start + duration, speaker: fields[7] as string })
    byFile.set(file, turns)
  }
  return byFile
}

function foldRecordingId(id: string): string {
  return id.normalize('NFD').replace(/\p{M}/gu, '')
}
