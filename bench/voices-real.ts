/**
 * The real-speech section of `npm run bench:voices` (alone: `VOICES_BENCH=real npm run bench:voices`): the consent
 * screen and speaker verification measured on real people only (bench/real-speech.ts).
 *
 * - Screen: owner acceptance of one-person clips (2–6 s), two-voice detection on two-person clips of 2–5 s a
 *   person, and refusal of synthetic music, before (diarizer clusters alone) and after the speaker-model check.
 * - Verification: equal error rates and, at the shipped threshold, owner acceptance and false acceptance of
 *   same-room and different-room impostors, on the held-out fold (fold 1: no speaker or room the shipped speaker
 *   model was fitted on), and the threshold a held-out choice would give (fitted on fold 0, measured on fold 1).
 * - Net speech: the same figures by the voiced speech of a trial's shorter clip, the minimum the fold-0 rule gives
 *   (MIN_VERIFIED_SPEECH_SECONDS, the screen's `too_short`) and the figures among trials long enough.
 */

import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { decodeAudio } from '../server/engine/codecs/decode.ts'
import { componentsOf, trainUbm } from '../server/engine/speaker/gmm.ts'
import { createGmmEmbedder, gmmUbmV2 } from '../server/engine/speaker/gmm-embedder.ts'
import {
  cosineSimilarity,
  createSpeakerEmbedder,
  DEFAULT_VERIFICATION_THRESHOLD,
  MIN_VERIFIED_SPEECH_SECONDS,
  type SpeakerEmbedder,
  screenRecording,
  verificationScore,
} from '../server/engine/speaker/index.ts'
import { createMfccEmbedder } from '../server/engine/speaker/mfcc-embedder.ts'
import {
  CHANGE_WITHIN_WEIGHT,
  CHANGED_VOICE_SCORE,
  DIFFERENT_PITCH_SEMITONES,
  foregroundRegions,
  MUSIC_TONAL_SHARE,
  type RecordingScreen,
  SAME_VOICE_SCORE,
  VOICE_WITHIN_WEIGHT,
} from '../server/engine/speaker/screen.ts'
import { SPEAKER_MODEL } from '../server/engine/speaker/speaker-model.ts'
import { analyzeSpeech } from '../server/engine/speaker/statistics.ts'
import { beatStrength, sustainedToneShare } from '../server/engine/speaker/tonality.ts'
import { clusterWindows, DEFAULT_CLUSTER_THRESHOLD, slideWindows } from '../server/engine/speaker/windows.ts'
import type { Meeting } from './eval-diarization.ts'
import {
  amiClips,
  type Clip,
  fitNapOnFold,
  fsddClips,
  joinedMeetingClips,
  loadRealSpeech,
  loadTakes,
  trainingFrames,
  twoPersonClips,
  verificationTrials,
  wholeTakeClips,
} from './real-speech.ts'

export interface Scored {
  score: number
  same: boolean
  sameRoom: boolean
  fold: number
  /** Seconds of voiced speech (the screen's measure) in the trial's two clips. */
  voiced?: [number, number]
  /** The two clips' speakers, in order: how many people the trials rest on. */
  speakers?: string
}

/** gmm-ubm-v1's threshold when it shipped (fold-0 rule, docs/voices-and-consents.md), for the comparison. */
const V1_THRESHOLD = 0.12

const pct = (x: number) => `${(100 * x).toFixed(1)}%`.padStart(6)

/** Share of trials at or above `threshold`. */
const acceptance = (trials: Scored[], threshold: number) =>
  trials.length === 0 ? Number.NaN : trials.filter((t) => t.score >= threshold).length / trials.length

/** Equal error rate of owners against the given impostors: where refusals of owners equal acceptances of impostors. */
export function eer(owners: Scored[], impostors: Scored[]): { eer: number; threshold: number } {
  const candidates = [...owners, ...impostors].map((t) => t.score).sort((a, b) => a - b)
  let best = { gap: Number.POSITIVE_INFINITY, eer: 1, threshold: 0 }
  for (const threshold of candidates) {
    const refused = 1 - acceptance(owners, threshold)
    const accepted = acceptance(impostors, threshold)
    const gap = Math.abs(refused - accepted)
    if (gap < best.gap) best = { gap, eer: (refused + accepted) / 2, threshold }
  }
  return best
}

/** The lowest threshold at which at most `share` of the same-room impostors get through. */
export function thresholdFor(impostors: Scored[], share: number): number {
  const scores = impostors.map((t) => t.score).sort((a, b) => b - a)
  const allowed = Math.floor(share * scores.length)
  const above = scores[allowed] ?? Number.NEGATIVE_INFINITY
  return above + 1e-6
}

/** Seconds of voiced speech in `audio`, as the screen counts them (`RecordingScreen.voicedSeconds`). */
function voicedSeconds(audio: Float32Array): number {
  const track = analyzeSpeech(audio)
  let voiced = 0
  for (let f = 0; f < track.features.count; f++) voiced += track.voiced[f] as number
  return voiced / 100
}

export async function scoreTrials(embedder: SpeakerEmbedder, clips: Clip[]): Promise<Scored[]> {
  const embeddings = clips.map((c) => embedder.embed(c.audio))
  const voiced = clips.map((c) => voicedSeconds(c.audio))
  return verificationTrials(clips).flatMap((t) => {
    const a = embeddings[t.enrol]
    const b = embeddings[t.test]
    // A clip the embedder cannot use is refused: an owner's counts as refused, an impostor's as stopped.
    const score = a && b ? verificationScore(embedder, a, b) : Number.NEGATIVE_INFINITY
    const seconds: [number, number] = [voiced[t.enrol] as number, voiced[t.test] as number]
    const speakers = [clips[t.enrol]?.speaker, clips[t.test]?.speaker].sort().join(' – ')
    return [{ score, same: t.same, sameRoom: t.sameRoom, fold: t.fold, voiced: seconds, speakers }]
  })
}

/** The shorter clip's voiced speech in a trial. */
const netSpeech = (t: Scored) => Math.min(...(t.voiced ?? [0, 0]))

/**
 * The minimum voiced speech for a verification, by the rule fixed before measuring: the shortest, in 0.25 s steps
 * from 1 s, at which fold 0's owner trials whose two clips both hold that much are accepted at least 90% of the
 * time at the shipped threshold (and at least 30 such trials remain). Checked on fold 1.
 */
export function minimumNetSpeech(scored: Scored[], threshold: number): number {
  const owners = scored.filter((t) => t.fold === 0 && t.same)
  for (let seconds = 1; seconds <= 4; seconds += 0.25) {
    const kept = owners.filter((t) => netSpeech(t) >= seconds)
    if (kept.length >= 30 && acceptance(kept, threshold) >= 0.9) return seconds
  }
  return Number.NaN
}

/**
 * Verification as a function of net speech (voiced seconds of the shorter clip) at `threshold`: a table by band,
 * the minimum the fold-0 rule gives, and the figures among trials long enough — both clips at least `minimum`
 * (the rule), and as the service applies it (the consent recording screened at `minimum`, the sample only needing
 * the embedder's second; each trial taken both ways round, either clip as the consent).
 */
export function printNetSpeech(
  name: string,
  sets: { label: string; scored: Scored[] }[],
  threshold: number,
): void {
  const row = (label: string, trials: Scored[]) => {
    const owners = trials.filter((t) => t.same)
    const sameRoom = trials.filter((t) => !t.same && t.sameRoom)
    const otherRoom = trials.filter((t) => !t.same && !t.sameRoom)
    const cell = (xs: Scored[]) =>
      xs.length ? `${pct(acceptance(xs, threshold))} of ${String(xs.length).padEnd(4)}` : '     – of 0   '
    console.log(
      `    ${label.padEnd(34)} owners accepted ${cell(owners)} same-room FA ${cell(sameRoom)} different-room FA ${cell(otherRoom)}`,
    )
  }
  console.log(`  ${name}: by net speech (voiced seconds of the shorter clip of a trial), at ${threshold}`)
  const bands = [0, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 4, Number.POSITIVE_INFINITY]
  for (const { label, scored } of sets) {
    console.log(`   ${label}:`)
    for (let i = 0; i + 1 < bands.length; i++) {
      const [from, to] = [bands[i] as number, bands[i + 1] as number]
      const band = scored.filter((t) => netSpeech(t) >= from && netSpeech(t) < to)
      if (band.length) row(`${from}–${to === Number.POSITIVE_INFINITY ? '' : to} s`, band)
    }
  }
  const main = sets[0]?.scored ?? []
  const minimum = minimumNetSpeech(main, threshold)
  console.log(
    `   fold-0 rule (shortest net speech with fold-0 owners ≥ 90%): ${minimum} s; shipped MIN_VERIFIED_SPEECH_SECONDS ${MIN_VERIFIED_SPEECH_SECONDS} s`,
  )
  const shortClips = main.filter((t) => t.same).flatMap((t) => t.voiced ?? [])
  console.log(
    `   owner trials with a clip under ${MIN_VERIFIED_SPEECH_SECONDS} s (refused as too short): ${pct(main.filter((t) => t.same && netSpeech(t) < MIN_VERIFIED_SPEECH_SECONDS).length / Math.max(1, main.filter((t) => t.same).length))}; owner clips of those trials under it: ${pct(shortClips.filter((s) => s < MIN_VERIFIED_SPEECH_SECONDS).length / Math.max(1, shortClips.length))}`,
  )
  const both = main.filter((t) => netSpeech(t) >= MIN_VERIFIED_SPEECH_SECONDS)
  const consentSide = main.flatMap((t) => {
    const [a, b] = t.voiced ?? [0, 0]
    return [a, b].filter((consent) => consent >= MIN_VERIFIED_SPEECH_SECONDS).map(() => t)
  })
  for (const [label, trials] of [
    [`both clips ≥ ${MIN_VERIFIED_SPEECH_SECONDS} s`, both],
    [`consent ≥ ${MIN_VERIFIED_SPEECH_SECONDS} s, any sample`, consentSide],
  ] as const) {
    console.log(`   ${label}:`)
    row(
      'fold 0',
      trials.filter((t) => t.fold === 0),
    )
    row(
      'held-out fold 1',
      trials.filter((t) => t.fold === 1),
    )
    row('both folds', trials)
  }
  for (const { label, scored } of sets.slice(1)) {
    console.log(`   ${label}, both clips ≥ ${MIN_VERIFIED_SPEECH_SECONDS} s:`)
    const long = scored.filter((t) => netSpeech(t) >= MIN_VERIFIED_SPEECH_SECONDS)
    row(
      'fold 0',
      long.filter((t) => t.fold === 0),
    )
    row(
      'held-out fold 1',
      long.filter((t) => t.fold === 1),
    )
  }
}

/**
 * One-person clips of the meeting excerpts holding at least `voiced` seconds of voiced speech (the screen's count):
 * one speaker's one-person stretches of one excerpt (the RTTM turns; stretches over 4 s cut first), joined in order
 * with short pauses until they hold that much, each stretch used once. So same-room trials as long as the service
 * now verifies (both clips at MIN_VERIFIED_SPEECH_SECONDS), which the fixed-length clips above almost never give.
 */
export function meetingClipsByVoice(meetings: Meeting[], voiced: number): Clip[] {
  return joinedMeetingClips(meetings, { shortest: 0.3, longest: 4, enough: voiced, measure: voicedSeconds })
}

/** The highest threshold accepting at least `share` of the owners among `trials`. */
export function ownerThreshold(trials: Scored[], share: number): number {
  const scores = trials
    .filter((t) => t.same)
    .map((t) => t.score)
    .sort((a, b) => a - b)
  return scores[Math.floor((1 - share) * scores.length)] ?? Number.NaN
}

/**
 * Same-room impostors at the length the service verifies (issue 19): trials whose two clips both hold
 * MIN_VERIFIED_SPEECH_SECONDS of voiced speech — FSDD clips of 4 s and meeting clips joined by voiced speech
 * (`meetingClipsByVoice`) — every score held out as above. Prints the figures at `shipped` and at the threshold
 * keeping owners ≥ 90%, chosen on one fold and measured on the other, the operating point's rule over these and
 * `longer` trials (longer clips score higher for everyone), then curves.
 */
export function printLongSameRoom(scored: Scored[], longer: Scored[], shipped: number): void {
  const verified = (trials: Scored[]) => trials.filter((t) => netSpeech(t) >= MIN_VERIFIED_SPEECH_SECONDS)
  const long = verified(scored)
  const fold = (f: number) => long.filter((t) => t.fold === f)
  const cell = (xs: Scored[], threshold: number) =>
    xs.length ? `${pct(acceptance(xs, threshold))} of ${String(xs.length).padEnd(4)}` : '     – of 0   '
  const row = (label: string, trials: Scored[], threshold: number) =>
    console.log(
      `    ${label.padEnd(40)} owners accepted ${cell(
        trials.filter((t) => t.same),
        threshold,
      )} same-room FA ${cell(
        trials.filter((t) => !t.same && t.sameRoom),
        threshold,
      )} different-room FA ${cell(
        trials.filter((t) => !t.same && !t.sameRoom),
        threshold,
      )}`,
    )
  console.log(`  same-room impostors, both clips ≥ ${MIN_VERIFIED_SPEECH_SECONDS} s of voiced speech:`)
  for (const f of [0, 1]) {
    const pairs = new Set(
      fold(f)
        .filter((t) => !t.same && t.sameRoom)
        .map((t) => t.speakers),
    )
    console.log(`    fold ${f}: same-room pairs of people: ${[...pairs].join(', ') || 'none'}`)
  }
  row(`fold 0 at shipped ${shipped}`, fold(0), shipped)
  row(`fold 1 at shipped ${shipped}`, fold(1), shipped)
  row(`both folds at shipped ${shipped}`, long, shipped)
  for (const [from, to] of [
    [0, 1],
    [1, 0],
  ] as const) {
    const threshold = ownerThreshold(fold(from), 0.9)
    row(`owners ≥ 90% on fold ${from}: ${threshold.toFixed(3)}, on fold ${to}`, fold(to), threshold)
  }
  // The operating point's rule, as for the shorter trials: the lowest threshold letting at most 5% of fold 0's
  // same-room impostors through (fold 1 has too few to choose by), here among every trial the service verifies —
  // these and the longer clips' — checked on fold 1.
  const sameRoom0 = [...fold(0), ...verified(longer).filter((t) => t.fold === 0)].filter(
    (t) => !t.same && t.sameRoom,
  )
  const rule = thresholdFor(sameRoom0, 0.05)
  console.log(
    `    rule: same-room ≤ 5% of fold 0's ${sameRoom0.length} (these and the longer clips'): ${rule.toFixed(3)}`,
  )
  row('  on fold 0', fold(0), rule)
  row('  on held-out fold 1', fold(1), rule)
  row(
    '  longer clips, fold 0',
    verified(longer).filter((t) => t.fold === 0),
    rule,
  )
  row(
    '  longer clips, held-out fold 1',
    verified(longer).filter((t) => t.fold === 1),
    rule,
  )
  console.log('    curve, both folds:')
  const curve = [0.05, 0.08, 0.1, 0.11, 0.12, 0.125, 0.13, 0.14, 0.16, 0.2, 0.25]
  for (const threshold of [...new Set([...curve, shipped])].sort((a, b) => a - b))
    row(`  ${threshold.toFixed(3)}${threshold === shipped ? ' (shipped)' : ''}`, long, threshold)
  console.log('    curve, held-out fold 1 (shipped models):')
  for (const threshold of [...new Set([0.11, 0.12, 0.125, 0.13, 0.14, shipped])].sort((a, b) => a - b))
    row(`  ${threshold.toFixed(3)}${threshold === shipped ? ' (shipped)' : ''}`, fold(1), threshold)
  console.log('    curve, longer clips, both folds:')
  for (const threshold of [...new Set([0.11, 0.125, 0.13, 0.14, 0.15, 0.16, shipped])].sort((a, b) => a - b))
    row(`  ${threshold.toFixed(3)}${threshold === shipped ? ' (shipped)' : ''}`, verified(longer), threshold)
}

/**
 * How scores move with the length of what is compared (issue 19: "a threshold that rises with net speech"): the
 * least-squares slope of the score against ln(voiced seconds of the shorter clip ÷ the minimum), for owners and for
 * each kind of impostor, per fold, over every trial the service would verify (both clips at the minimum). A
 * duration-dependent threshold or score normalisation (quality measure functions: Mandasari, Saeidi, McLaren & van
 * Leeuwen 2013, IEEE TASLP 21(11)) needs impostor scores that drift with duration.
 */
export function printDurationDrift(sets: Scored[][]): void {
  const verified = sets.flat().filter((t) => netSpeech(t) >= MIN_VERIFIED_SPEECH_SECONDS)
  const x = (t: Scored) => Math.log(netSpeech(t) / MIN_VERIFIED_SPEECH_SECONDS)
  const slope = (xs: Scored[]) => {
    if (xs.length < 3) return '     –'
    const mx = xs.reduce((n, t) => n + x(t), 0) / xs.length
    const my = xs.reduce((n, t) => n + t.score, 0) / xs.length
    let sxy = 0
    let sxx = 0
    for (const t of xs) {
      sxy += (x(t) - mx) * (t.score - my)
      sxx += (x(t) - mx) ** 2
    }
    return (sxy / sxx).toFixed(3).padStart(6)
  }
  console.log(
    `  scores against ln(shorter clip's voiced speech ÷ ${MIN_VERIFIED_SPEECH_SECONDS} s), both clips verified, slope per fold:`,
  )
  for (const fold of [0, 1]) {
    const trials = verified.filter((t) => t.fold === fold)
    const kinds = [
      ['owners', trials.filter((t) => t.same)],
      ['same-room impostors', trials.filter((t) => !t.same && t.sameRoom)],
      ['different-room impostors', trials.filter((t) => !t.same && !t.sameRoom)],
    ] as const
    console.log(`    fold ${fold}: ${kinds.map(([k, xs]) => `${k} ${slope(xs)} (${xs.length})`).join(', ')}`)
  }
}

/** Owners accepted and impostors let through at `threshold`, with the equal error rates, for one set of trials. */
export interface VerificationFigures {
  trials: { owners: number; sameRoom: number; otherRoom: number }
  owners: number
  sameRoomFa: number
  otherRoomFa: number
  eerSameRoom: number
  eerOtherRoom: number
}

function figures(scored: Scored[], threshold: number): VerificationFigures {
  const owners = scored.filter((t) => t.same)
  const sameRoom = scored.filter((t) => !t.same && t.sameRoom)
  const otherRoom = scored.filter((t) => !t.same && !t.sameRoom)
  return {
    trials: { owners: owners.length, sameRoom: sameRoom.length, otherRoom: otherRoom.length },
    owners: acceptance(owners, threshold),
    sameRoomFa: acceptance(sameRoom, threshold),
    otherRoomFa: acceptance(otherRoom, threshold),
    eerSameRoom: eer(owners, sameRoom).eer,
    eerOtherRoom: eer(owners, otherRoom).eer,
  }
}

/**
 * Prints the verification figures of held-out scores (`fold` = the fold a trial belongs to; each scored by a model
 * fitted on the other fold): per fold and both together at the `shipped` threshold, the threshold the fold-0 rule
 * gives (lowest letting ≤ 5% of fold 0's same-room impostors through) checked on fold 1, and a curve over both
 * folds (`VOICES_CURVE=0.1,0.2` for chosen thresholds). Returns the figures at `shipped` per fold and both.
 */
export function printVerification(
  name: string,
  scored: Scored[],
  shipped: number,
): Record<'fold0' | 'fold1' | 'both', VerificationFigures> {
  const fold = (f: number) => scored.filter((t) => t.fold === f)
  const row = (label: string, f: VerificationFigures) =>
    console.log(
      `    ${label.padEnd(30)} owners accepted ${pct(f.owners)}, same-room FA ${pct(f.sameRoomFa)}, different-room FA ${pct(f.otherRoomFa)}`,
    )
  const result = {
    fold0: figures(fold(0), shipped),
    fold1: figures(fold(1), shipped),
    both: figures(scored, shipped),
  }
  console.log(`  ${name}, every score held out (each fold scored by the model fitted on the other):`)
  for (const [label, f] of [
    ['fold 0', result.fold0],
    ['fold 1', result.fold1],
    ['both folds', result.both],
  ] as const) {
    console.log(
      `    ${label}: ${f.trials.owners} owner / ${f.trials.sameRoom} same-room / ${f.trials.otherRoom} different-room trials; EER same-room ${pct(f.eerSameRoom)}, different-room ${pct(f.eerOtherRoom)}`,
    )
    row(`  at shipped ${shipped.toFixed(3)}`, f)
  }
  const chosen = thresholdFor(
    fold(0).filter((t) => !t.same && t.sameRoom),
    0.05,
  )
  row(`fold-0 rule ${chosen.toFixed(3)} on fold 1`, figures(fold(1), chosen))
  const steps = (process.env.VOICES_CURVE ?? '').split(',').filter(Boolean).map(Number)
  const scores = scored
    .filter((t) => t.same)
    .map((t) => t.score)
    .filter(Number.isFinite)
    .sort((a, b) => a - b)
  const curve = steps.length
    ? steps
    : [0.02, 0.05, 0.1, 0.2, 0.3].map((q) => scores[Math.floor(q * scores.length)] as number)
  console.log('    curve, both folds:')
  for (const threshold of [...curve, shipped, chosen].sort((a, b) => a - b))
    row(`  ${threshold.toFixed(3)}`, figures(scored, threshold))
  return result
}

/** The old and new verifiers' figures at their thresholds, side by side. */
function printComparison(columns: { name: string; figures: ReturnType<typeof printVerification> }[]): void {
  console.log(`  side by side: ${columns.map((c) => c.name).join(' | ')}`)
  const line = (label: string, value: (f: ReturnType<typeof printVerification>) => number) =>
    console.log(`    ${label.padEnd(36)} ${columns.map((c) => pct(value(c.figures))).join('  | ')}`)
  for (const part of ['both', 'fold0', 'fold1'] as const) {
    const label = part === 'both' ? 'both folds' : `held-out ${part.replace('fold', 'fold ')}`
    line(`${label}: owners accepted`, (f) => f[part].owners)
    line(`${label}: same-room FA`, (f) => f[part].sameRoomFa)
    line(`${label}: different-room FA`, (f) => f[part].otherRoomFa)
    line(`${label}: EER same-room`, (f) => f[part].eerSameRoom)
    line(`${label}: EER different-room`, (f) => f[part].eerOtherRoom)
  }
}

/** The screen as it was before the speaker-model check (diarizer clusters, MFCC-mean confirmation at 0.9). */
function screenBefore(audio: Float32Array): { speakers: number; music: boolean } {
  const track = analyzeSpeech(audio)
  const regions = foregroundRegions(track)
  const music = sustainedToneShare(track.features, track.gateDb) >= 0.25
  const windows = slideWindows(track, regions, { windowSeconds: 1.5, hopSeconds: 0.75 })
  const labels = clusterWindows(windows, { threshold: DEFAULT_CLUSTER_THRESHOLD })
  const perSpeaker = new Map<number, number>()
  for (const label of labels) perSpeaker.set(label, (perSpeaker.get(label) ?? 0) + 0.75)
  const heard = [...perSpeaker].filter(([, seconds]) => seconds >= 1).sort((a, b) => b[1] - a[1])
  const mean = (label: number) => {
    const sum = new Float32Array(windows[0]?.embedding.length ?? 0)
    windows.forEach((w, i) => {
      if (labels[i] !== label) return
      w.embedding.forEach((x, d) => {
        sum[d] = (sum[d] as number) + x * w.voicedFrames
      })
    })
    return sum
  }
  let voices = heard.length
  if (voices === 2 && cosineSimilarity(mean(heard[0]?.[0] as number), mean(heard[1]?.[0] as number)) >= 0.9)
    voices = 1
  return { speakers: regions.length ? Math.max(1, voices) : 0, music }
}

type Verdict = 'accepted' | 'music_detected' | 'multiple_speakers' | 'too_short' | 'too_noisy'
const verdictOf = (s: { speakers: number; music: boolean; weakEvidence?: string | null }): Verdict =>
  s.music
    ? 'music_detected'
    : s.weakEvidence
      ? (s.weakEvidence as Verdict)
      : s.speakers > 1
        ? 'multiple_speakers'
        : 'accepted'

/**
 * Music made by classical synthesis, different every seed: chord progressions of additive harmonic tones with
 * attack–decay envelopes, or plucked strings (Karplus & Strong 1983), at 70–150 beats a minute.
 */
export function syntheticMusic(seconds: number, seed: number): Float32Array {
  let state = seed >>> 0
  const random = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
  const out = new Float32Array(Math.round(seconds * 16_000))
  const beat = 60 / (70 + 80 * random())
  const root = 48 + Math.floor(12 * random())
  const plucked = seed % 2 === 1
  const partials = 3 + Math.floor(6 * random())
  const degrees = [0, 5, 7, 9, 4, 2]
  const hz = (midi: number) => 440 * 2 ** ((midi - 69) / 12)
  for (let start = 0; start < seconds; start += beat) {
    const chordRoot = root + (degrees[Math.floor(random() * degrees.length)] as number)
    const notes = [chordRoot - 12, chordRoot, chordRoot + 4, chordRoot + 7]
    const from = Math.round(start * 16_000)
    const length = Math.min(out.length - from, Math.round(beat * 16_000 * 1.5))
    for (const note of notes) {
      if (plucked) {
        // Karplus–Strong: a noise burst circulating in a delay line of one period, low-pass filtered.
        const period = Math.max(2, Math.round(16_000 / hz(note)))
        const line = Float32Array.from({ length: period }, () => random() * 2 - 1)
        for (let i = 0; i < length; i++) {
          const k = i % period
          const next = line[(k + 1) % period] as number
          const value = line[k] as number
          out[from + i] = (out[from + i] as number) + 0.06 * value
          line[k] = 0.996 * 0.5 * (value + next)
        }
      } else {
        for (let i = 0; i < length; i++) {
          const t = i / 16_000
          const envelope = Math.min(1, t / 0.02) * (0.4 + 0.6 * Math.exp(-t * 3))
          let sample = 0
          for (let p = 1; p <= partials; p++) sample += Math.sin(2 * Math.PI * hz(note) * p * t) / p ** 1.5
          out[from + i] = (out[from + i] as number) + 0.05 * envelope * sample
        }
      }
    }
  }
  return out
}

/** `speech` with `music` under it at `db` relative to the speech's RMS. */
function mixUnder(speech: Float32Array, music: Float32Array, db: number): Float32Array {
  const rms = (x: Float32Array) => Math.sqrt(x.reduce((t, v) => t + v * v, 0) / Math.max(1, x.length))
  const gain = (rms(speech) / Math.max(1e-9, rms(music))) * 10 ** (db / 20)
  return speech.map((x, i) => x + gain * ((music[i % music.length] as number) ?? 0))
}

/** The consent screen's proposed voices were compared by similarity alone at this value until 2026-11-28. */
const EARLIER_SAME_VOICE_SIMILARITY = 0.05

/** Whether the proposed voices were two people by the earlier rule (the similarity alone) or by their pitches. */
const proposedAlone = (s: RecordingScreen) =>
  s.voiceSimilarity < EARLIER_SAME_VOICE_SIMILARITY || s.pitchGap >= DIFFERENT_PITCH_SEMITONES

/** Whether the proposed voices are two people by the shipped rule (the similarity weighed against each voice's own). */
const proposedTwo = (s: RecordingScreen) =>
  s.voiceSimilarity - VOICE_WITHIN_WEIGHT * s.voiceWithin < SAME_VOICE_SCORE ||
  s.pitchGap >= DIFFERENT_PITCH_SEMITONES

/** The verdict of a screen whose voices were counted by another rule (`twoPeople`). */
const verdictWith = (s: RecordingScreen, twoPeople: boolean): Verdict =>
  verdictOf({ ...s, speakers: s.speakers === 0 ? 0 : twoPeople ? 2 : 1 })

/**
 * A clip's verdicts in the screen's four stages, from what the shipped screen measured: before (the first screen),
 * the proposed voices confirmed by the speaker model (similarity alone), with the change point as well (until
 * 2026-11-28), and with the proposed voices weighed against their own variation (shipped).
 */
function stagesOf(audio: Float32Array, screen: RecordingScreen): Verdict[] {
  const alone = proposedAlone(screen)
  return [
    verdictOf(screenBefore(audio)),
    verdictWith(screen, alone),
    verdictWith(screen, alone || screen.changeScore < CHANGED_VOICE_SCORE),
    verdictOf(screen),
  ]
}

interface Judged {
  fold: number
  screen: RecordingScreen
  /** The verdicts of the stages (`stagesOf`; for music, `musicVerdicts`), the shipped screen's last. */
  verdicts: Verdict[]
}

/**
 * How a weight of a two-voice check's within-voice similarity and its threshold were chosen (docs/voices-and-
 * consents.md, "Change point" and "Proposed voices"): for each weight, in tenths, the threshold by the screen's rule
 * (the highest accepting 99% of fold 0's one-person clips with a second of voice and no music), then fold 0's
 * two-voice detection at 3–5 s a person with the screen's other checks as shipped — the weight chosen is the one
 * detecting most; of those tying, the one accepting most of fold 0's whole takes (one sitting each) — and the
 * held-out fold 1 beside it. `rows` adds the check's earlier forms.
 */
function printWeightChoice(
  title: string,
  clips: { singles: Judged[]; twos: (Judged & { seconds: number })[]; wholeTakes: Judged[] },
  check: {
    score: (s: RecordingScreen, weight: number) => number
    others: (s: RecordingScreen) => boolean
    rows: { label: string; two: (s: RecordingScreen) => boolean }[]
  },
): void {
  const ones = clips.singles.filter((c) => c.screen.voicedSeconds >= 1 && !c.screen.music)
  const pairs = clips.twos.filter((t) => t.seconds >= 3)
  const rate = (items: Judged[], hit: (s: RecordingScreen) => boolean) =>
    pct(items.filter((c) => hit(c.screen)).length / items.length)
  const row = (label: string, two: (s: RecordingScreen) => boolean) => {
    const of = (fold: number) => {
      const inFold = (items: Judged[]) => items.filter((c) => c.fold === fold)
      const owners = rate(inFold(ones), (s) => !two(s))
      const whole = rate(inFold(clips.wholeTakes), (s) => !two(s))
      return `owners ${owners}, two voices 3–5 s ${rate(inFold(pairs), two)}, whole takes ${whole}`
    }
    console.log(`  ${label.padEnd(24)} fold 0 ${of(0)}; held-out fold 1 ${of(1)}`)
  }
  console.log(title)
  for (let tenths = 0; tenths <= 10; tenths++) {
    const weight = tenths / 10
    const sorted = ones
      .filter((c) => c.fold === 0)
      .map((c) => check.score(c.screen, weight))
      .sort((a, b) => a - b)
    const threshold = sorted[Math.floor(0.01 * sorted.length)] as number
    row(
      `${weight.toFixed(1)}: ${threshold.toFixed(4)}`,
      (s) => check.others(s) || check.score(s, weight) < threshold,
    )
  }
  for (const { label, two } of check.rows) row(label, two)
}

/**
 * A clip's verdicts before (the first screen), by the shipped screen without the beat (music by sustained tones
 * only; the table's middle column) and by the shipped screen.
 */
function musicVerdicts(audio: Float32Array): { verdicts: Verdict[] } {
  const screen = screenRecording(audio)
  const track = analyzeSpeech(audio)
  const tonal = sustainedToneShare(track.features, track.gateDb) >= MUSIC_TONAL_SHARE
  return {
    verdicts: [verdictOf(screenBefore(audio)), verdictOf({ ...screen, music: tonal }), verdictOf(screen)],
  }
}

/**
 * Real music, when MUSIC_DIR names a folder of .ogg and .mp3 tracks (docs/voices-and-consents.md says which free
 * Debian packages hold some): 8 s excerpts at 20, 50 and 80 s into each track, alone and under one person's speech.
 */
async function printRealMusic(
  voices: Clip[],
  line: (label: string, items: { verdicts: Verdict[] }[], hit: (v: Verdict) => boolean) => void,
): Promise<void> {
  const dir = process.env.MUSIC_DIR
  if (!dir) {
    console.log('  (real music: set MUSIC_DIR to a folder of .ogg/.mp3 tracks to measure it)')
    return
  }
  const tracks = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(ogg|mp3)$/i.test(name))
    .sort()
  const excerpts: Float32Array[] = []
  let used = 0
  for (const name of tracks) {
    // Sound effects are too short to take excerpts from; a file the service cannot read is skipped.
    const samples = await decodeAudio(readFileSync(join(dir, name)), { targetRate: 16_000 }).then(
      (decoded) => decoded.samples,
      () => new Float32Array(0),
    )
    if (samples.length >= 28 * 16_000) used++
    for (const at of [20, 50, 80])
      if ((at + 8) * 16_000 <= samples.length) excerpts.push(samples.slice(at * 16_000, (at + 8) * 16_000))
  }
  const judged = (clips: Float32Array[]) => clips.map(musicVerdicts)
  const alone = judged(excerpts)
  console.log(`  real music: ${excerpts.length} excerpts of ${used} tracks in ${dir}`)
  line('real music refused as music', alone, (v) => v === 'music_detected')
  line('real music refused for any cause', alone, (v) => v !== 'accepted')
  for (const db of [-6, -12]) {
    const mixed = voices.map((c, i) =>
      mixUnder(c.audio, excerpts[(7 * i) % excerpts.length] as Float32Array, db),
    )
    line(`speech over real music at ${db} dB refused as music`, judged(mixed), (v) => v === 'music_detected')
  }
}

export async function benchRealSpeech(): Promise<void> {
  const real = await loadRealSpeech()
  const takes = await loadTakes()
  console.log(`\nReal speech (${real.single.length} one-person clips)`)

  // The screen compares voices with the speaker model; fold 1 with the shipped one (fitted on fold 0), fold 0 with
  // the same recipe fitted on fold 1, so every figure below is on speakers the model never saw. The screen's
  // threshold was chosen on fold 0 (docs/voices-and-consents.md), so fold 1 is the held-out figure.
  const mirroredUbm = trainUbm(trainingFrames(real.meetings, takes, 1), componentsOf(SPEAKER_MODEL))
  const screen = (audio: Float32Array, fold: number) =>
    screenRecording(audio, fold === 1 ? {} : { ubm: mirroredUbm })
  const pairs = [2, 3, 4, 5].flatMap((seconds) => twoPersonClips(real.meetings, takes, seconds))
  let screenMs = 0
  const judge = <T extends { audio: Float32Array; fold: number }>(clip: T) => {
    const started = performance.now()
    const shipped = screen(clip.audio, clip.fold)
    screenMs += performance.now() - started
    return { ...clip, screen: shipped, verdicts: stagesOf(clip.audio, shipped) }
  }
  const singles = real.single.map(judge)
  const twos = pairs.map(judge)
  const msPerClip = screenMs / (singles.length + twos.length)
  // Built another way: whole FSDD takes (ten digits in one sitting). Fold 0's break ties when a weight is chosen;
  // fold 1's were never used to choose anything.
  const whole = [0, 1].map((fold) => wholeTakeClips(takes, fold))
  const wholeTakes = whole.flatMap((w) => w.one).map(judge)
  const wholePairs = whole.flatMap((w) => w.two).map(judge)
  const choice = { singles, twos, wholeTakes }
  printWeightChoice(
    `Proposed voices, by weight of their similarity each to itself (shipped ${VOICE_WITHIN_WEIGHT} at ${SAME_VOICE_SCORE}):`,
    choice,
    {
      score: (s, weight) => s.voiceSimilarity - weight * s.voiceWithin,
      others: (s) => s.pitchGap >= DIFFERENT_PITCH_SEMITONES || s.changeScore < CHANGED_VOICE_SCORE,
      rows: [
        {
          label: `similarity alone, ${EARLIER_SAME_VOICE_SIMILARITY}`,
          two: (s) => proposedAlone(s) || s.changeScore < CHANGED_VOICE_SCORE,
        },
      ],
    },
  )
  printWeightChoice(
    `Change point, by weight of the within-side similarity (shipped ${CHANGE_WITHIN_WEIGHT} at ${CHANGED_VOICE_SCORE}):`,
    choice,
    {
      score: (s, weight) => (s.change ? s.change.across - weight * s.change.within : 1),
      others: proposedTwo,
      rows: [{ label: 'no change point', two: proposedTwo }],
    },
  )
  // The beat's threshold: every one-person clip's beat strength rounded up to a tenth; then speech never used for it.
  const highest = (clips: Float32Array[]) =>
    Math.max(...clips.map((a) => beatStrength(analyzeSpeech(a).features)))
  const beats = (fold: number) =>
    Math.max(...singles.filter((c) => c.fold === fold).map((c) => c.screen.beatStrength))
  console.log(
    `Beat strength, highest: one-person clips fold 0 ${beats(0).toFixed(3)}, fold 1 ${beats(1).toFixed(3)} (rounded up to a tenth: ${(Math.ceil(Math.max(beats(0), beats(1)) * 10) / 10).toFixed(1)}); held-out whole takes ${highest(wholeTakeClips(takes, 1).one.map((c) => c.audio)).toFixed(3)}, whole meetings ${highest(real.meetings.map((m) => m.audio)).toFixed(3)}`,
  )
  const share = (xs: boolean[]) =>
    `${pct(xs.filter(Boolean).length / xs.length)} of ${String(xs.length).padEnd(3)}`
  console.log(
    `Consent screen (${msPerClip.toFixed(0)} ms a clip), before → proposals confirmed → with the change point → proposals weighed (shipped):`,
  )
  const line = (label: string, items: { verdicts: Verdict[] }[], hit: (v: Verdict) => boolean) => {
    const stages = items[0]?.verdicts.length ?? 0
    const shares = Array.from({ length: stages }, (_, i) =>
      share(items.map((item) => hit(item.verdicts[i] as Verdict))),
    )
    console.log(`  ${label.padEnd(44)} ${shares.join(' → ')}`)
  }
  const accepted = (v: Verdict) => v === 'accepted'
  for (const corpus of ['fsdd', 'ami'] as const)
    line(
      `one person accepted, ${corpus}`,
      singles.filter((s) => s.corpus === corpus),
      accepted,
    )
  line(
    'one person accepted, held-out fold 1',
    singles.filter((s) => s.fold === 1),
    accepted,
  )
  line('one person accepted, all', singles, accepted)
  // The aim is for clips with the evidence to judge: the issue asks for too short a clip to be refused, saying what
  // to record instead, and the screen refuses those with under MIN_VERIFIED_SPEECH_SECONDS of voice so (too_short).
  line(
    `one person accepted, ≥ ${MIN_VERIFIED_SPEECH_SECONDS} s of voice (aim ≥ 98%)`,
    singles.filter((s) => s.screen.weakEvidence !== 'too_short'),
    accepted,
  )
  for (const verdict of ['multiple_speakers', 'music_detected', 'too_short', 'too_noisy'] as const)
    line(`  one person refused as ${verdict}`, singles, (v) => v === verdict)
  // A consent phrase read aloud lasts 4–6 s: how the clips of that length fare against the minimum.
  line(
    '  of clips lasting 4 s or more, too_short',
    singles.filter((s) => s.audio.length >= 4 * 16_000),
    (v) => v === 'too_short',
  )
  line(
    '  of clips lasting 4 s or more, accepted',
    singles.filter((s) => s.audio.length >= 4 * 16_000),
    accepted,
  )
  const twoVoices = (v: Verdict) => v === 'multiple_speakers'
  for (const seconds of [2, 3, 4, 5]) {
    const these = twos.filter((t) => t.seconds === seconds)
    line(`two voices detected, ${seconds} s each, all`, these, twoVoices)
    line(
      `  held-out fold 1`,
      these.filter((t) => t.fold === 1),
      twoVoices,
    )
    line(
      `  same room (AMI)`,
      these.filter((t) => t.sameRoom),
      twoVoices,
    )
    line(`  refused for any cause`, these, (v) => v !== 'accepted')
  }
  line(
    'two voices detected, 3–5 s each (aim ≥ 90%)',
    twos.filter((t) => t.seconds >= 3),
    twoVoices,
  )
  // Built another way and never used to choose: held-out fold 1's whole takes (ten digits in one sitting).
  line(
    'whole takes, fold 1: one person accepted',
    wholeTakes.filter((c) => c.fold === 1),
    accepted,
  )
  line(
    'whole takes, fold 1: two people detected',
    wholePairs.filter((c) => c.fold === 1),
    twoVoices,
  )

  // Music: synthetic pieces alone, and under one person's speech at −6 dB and −12 dB; the middle column is the
  // screen without the beat (sustained tones only).
  console.log('Music, before → without the beat → with it:')
  const pieces = Array.from({ length: 12 }, (_, seed) => syntheticMusic(8, seed + 1))
  const alone = pieces.map(musicVerdicts)
  line('music alone refused as music', alone, (v) => v === 'music_detected')
  line('music alone refused for any cause', alone, (v) => v !== 'accepted')
  const voices = real.single.filter((c) => c.fold === 1 && c.audio.length > 4 * 16_000).slice(0, 12)
  for (const db of [-6, -12]) {
    const mixed = voices.map((c, i) => mixUnder(c.audio, pieces[i % pieces.length] as Float32Array, db))
    line(
      `speech over music at ${db} dB refused as music`,
      mixed.map(musicVerdicts),
      (v) => v === 'music_detected',
    )
  }
  await printRealMusic(voices, line)

  // Speaker verification: 4 s FSDD clips and 1.5–4 s AMI clips, pairs within each fold. Fold 1 is scored by the
  // shipped embedder (its models never saw fold 1); fold 0 by the same recipe fitted on fold 1, so every score is
  // held out and the threshold can be chosen on fold 0 and checked on fold 1. The old recipe (v1) is scored the
  // same way beside the new one.
  const clips = [...fsddClips(takes, 4, 3), ...amiClips(real.meetings, 1.5, 4)]
  const inFold = (fold: number) => clips.map((c) => ({ ...c, fold: c.fold === fold ? c.fold : -1 }))
  const heldOut = async (shipped: SpeakerEmbedder, mirrored: SpeakerEmbedder) =>
    [...(await scoreTrials(shipped, inFold(1))), ...(await scoreTrials(mirrored, inFold(0)))].filter(
      (t) => t.fold >= 0,
    )
  const embedder = createSpeakerEmbedder()
  const mirroredNap = fitNapOnFold(mirroredUbm, real.meetings, takes, 1)
  console.log(`Speaker verification (${clips.length} clips):`)
  const v1 = printVerification(
    `gmm-ubm-v1 at ${V1_THRESHOLD}`,
    await heldOut(createGmmEmbedder(SPEAKER_MODEL), createGmmEmbedder(mirroredUbm)),
    V1_THRESHOLD,
  )
  const v2Scored = await heldOut(embedder, createGmmEmbedder(mirroredUbm, gmmUbmV2(mirroredNap)))
  const v2 = printVerification(
    `${embedder.version} at ${DEFAULT_VERIFICATION_THRESHOLD}`,
    v2Scored,
    DEFAULT_VERIFICATION_THRESHOLD,
  )
  printComparison([
    { name: `gmm-ubm-v1 at ${V1_THRESHOLD}`, figures: v1 },
    { name: `${embedder.version} at ${DEFAULT_VERIFICATION_THRESHOLD}`, figures: v2 },
  ])
  // Net speech: the same trials by the voiced speech of their shorter clip, and longer clips (6 s FSDD, 4–8 s AMI,
  // paired only among themselves: they are cut from the same recordings as the trials above) to see past 3 s.
  const longClips = [...fsddClips(takes, 6, 5), ...amiClips(real.meetings, 4, 8)]
  const inLongFold = (fold: number) => longClips.map((c) => ({ ...c, fold: c.fold === fold ? c.fold : -1 }))
  const mirroredV2 = createGmmEmbedder(mirroredUbm, gmmUbmV2(mirroredNap))
  const longScored = [
    ...(await scoreTrials(embedder, inLongFold(1))),
    ...(await scoreTrials(mirroredV2, inLongFold(0))),
  ].filter((t) => t.fold >= 0)
  printNetSpeech(
    `${embedder.version} held out`,
    [
      { label: `the trials above (${clips.length} clips)`, scored: v2Scored },
      { label: `longer clips (6 s FSDD, 4–8 s AMI; ${longClips.length} clips)`, scored: longScored },
    ],
    DEFAULT_VERIFICATION_THRESHOLD,
  )
  const byVoice = [
    ...fsddClips(takes, 4, 3),
    ...meetingClipsByVoice(real.meetings, MIN_VERIFIED_SPEECH_SECONDS),
  ]
  const inVoiceFold = (fold: number) => byVoice.map((c) => ({ ...c, fold: c.fold === fold ? c.fold : -1 }))
  const byVoiceScored = [
    ...(await scoreTrials(embedder, inVoiceFold(1))),
    ...(await scoreTrials(mirroredV2, inVoiceFold(0))),
  ].filter((t) => t.fold >= 0)
  printLongSameRoom(byVoiceScored, longScored, DEFAULT_VERIFICATION_THRESHOLD)
  printDurationDrift([byVoiceScored, longScored])
  if (process.env.VOICES_BENCH_BEFORE) {
    const before = createMfccEmbedder()
    printVerification(`${before.version} at 0.45`, await scoreTrials(before, clips), 0.45)
  }
}

// `npx tsx bench/voices-real.ts` runs this section without starting the speech service.
if (import.meta.url === (await import('node:url')).pathToFileURL(process.argv[1] ?? '').href)
  await benchRealSpeech()
