import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, type Locator, test } from '@playwright/test'
import { decodeAudio } from '../server/engine/codecs/decode.ts'
import { joinClips, SPEAKERS_DIR, wav16k } from '../server/testing/speakers.ts'
import { seriousViolations, transcribeUpload } from './support.ts'

/**
 * Overlapping speech on the review page (issue 36), against the real backend and the real local speech service
 * (PocketSphinx and the diarizer), nothing mocked: a recording of two real people (FSDD, ../shared/data/speakers) in
 * which George speaks, then both speak at once, then Jackson alone. The page shows two speakers and turns following
 * them, a row per speaker on the waveform, and a note in the turn during which the other speaker talks too, wherever
 * the service's spans overlap (docs/transcription.md, "Overlapping speech on the review page").
 */

const RATE = 16_000
const GAP_SECONDS = 0.3

async function digits(speaker: string, take: number, which: number[]): Promise<Float32Array> {
  const parts: Float32Array[] = []
  for (const digit of which) {
    const bytes = readFileSync(join(SPEAKERS_DIR, `${digit}_${speaker}_${take}.wav`))
    parts.push((await decodeAudio(bytes, { targetRate: RATE })).samples)
  }
  return joinClips(parts, 0.15)
}

/** Both voices at once, scaled so the sum does not clip. */
function mixed(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(Math.max(a.length, b.length))
  for (let i = 0; i < out.length; i++) out[i] = ((a[i] ?? 0) + (b[i] ?? 0)) * 0.7
  return out
}

/** About 11 s: George (0–4), then George (5–9) over Jackson (0–4), then Jackson (0–4), 0.3 s apart. */
async function recording(): Promise<{ wav: Buffer; george: number; jackson: number }> {
  const george = await digits('george', 0, [0, 1, 2, 3, 4])
  const both = mixed(await digits('george', 1, [5, 6, 7, 8, 9]), await digits('jackson', 1, [0, 1, 2, 3, 4]))
  const jackson = await digits('jackson', 0, [0, 1, 2, 3, 4])
  const samples = joinClips([george, both, jackson], GAP_SECONDS)
  const seconds = (n: number) => n / RATE
  return {
    wav: wav16k(samples),
    // The middle of George alone and of Jackson alone, in seconds.
    george: GAP_SECONDS + seconds(george.length) / 2,
    jackson: seconds(samples.length) - GAP_SECONDS - seconds(jackson.length) / 2,
  }
}

type Span = { id: number; start: number; end: number; speaker: string }
type Turn = { speaker: string | null; start: number | null; end: number | null; text: string }

/** Where, in each turn, another speaker's spans meet its own speaker's (at least 0.1 s): worked out apart from the page. */
function overlapsByTurn(turns: Turn[], segments: Span[]): Array<Map<string, number>> {
  return turns.map((t) => {
    const found = new Map<string, number>()
    if (t.start === null || t.end === null || t.speaker === null) return found
    const [from, to] = [t.start, t.end]
    const own = segments.filter((s) => s.speaker === t.speaker)
    for (const other of segments.filter((s) => s.speaker !== t.speaker)) {
      let seconds = 0
      for (const mine of own)
        seconds += Math.max(0, Math.min(other.end, mine.end, to) - Math.max(other.start, mine.start, from))
      if (seconds > 0) found.set(other.speaker, (found.get(other.speaker) ?? 0) + seconds)
    }
    for (const [speaker, seconds] of found) if (seconds < 0.1) found.delete(speaker)
    return found
  })
}

async function box(locator: Locator) {
  const b = await locator.boundingBox()
  if (!b) throw new Error('not drawn')
  return b
}

test.skip(!existsSync(join(SPEAKERS_DIR, '0_george_0.wav')), `no FSDD speakers in ${SPEAKERS_DIR}`)

test('two people talking at once: both seen on the waveform, and the turn says who else speaks', async ({
  page,
}) => {
  test.setTimeout(180_000)
  const made = await recording()

  await page.goto('/transcripts')
  const id = await transcribeUpload(page, 'overlap.wav', made.wav)
  const saved = (await (await page.request.get(`/api/transcripts/${id}`)).json()) as {
    result: { diarization: { speakers: string[]; segments: Span[]; turns: Turn[] } }
  }
  const { speakers, segments, turns } = saved.result.diarization

  // Two speakers, and turns that follow them: George's stretch is one speaker's turn, Jackson's the other's.
  expect(speakers).toEqual(['speaker_0', 'speaker_1'])
  expect(turns.length).toBeGreaterThanOrEqual(2)
  for (let i = 1; i < turns.length; i++) expect(turns[i]?.speaker).not.toBe(turns[i - 1]?.speaker)
  const turnAt = (t: number) =>
    turns.find((x) => x.start !== null && x.end !== null && x.start <= t && t < x.end)?.speaker
  expect(turnAt(made.george)).toBe('speaker_0')
  expect(turnAt(made.jackson)).toBe('speaker_1')
  const review = page.getByRole('region', { name: 'overlap.wav', exact: true })
  await expect(review.getByText(/· 2 speakers ·/)).toBeVisible()
  const rows = review.locator('li.turn')
  await expect(rows).toHaveCount(turns.length)

  // The response has overlapping spans where both talk, and the page notes them in the turns they fall in.
  const expected = overlapsByTurn(turns, segments)
  expect(
    expected.some((m) => m.size > 0),
    `no overlapping spans in ${JSON.stringify(segments)}`,
  ).toBe(true)
  for (const [i, others] of expected.entries()) {
    const row = review.locator(`li.turn[data-turn="${i}"]`)
    const note = row.locator('.turn-overlap')
    if (others.size === 0) await expect(note).toHaveCount(0)
    else
      for (const other of others.keys())
        await expect(note).toHaveText(
          new RegExp(`^⇄ Also speaking: .*${other} \\d+:\\d\\d\\.\\d–\\d+:\\d\\d\\.\\d`),
        )
  }
  const overlapped = expected.findIndex((m) => m.size > 0)
  const other = [...(expected[overlapped]?.keys() ?? [])][0] as string

  // The waveform: a row per speaker, named in the key; two spans overlapping in time are drawn one above the other.
  await expect(page.getByTestId('lane-key')).toHaveText(
    /One row per speaker, from the top: speaker_0, speaker_1\. Two rows coloured at the same moment/,
  )
  const regions = page.locator('.waveform [part~="region"]')
  await expect(regions).toHaveCount(segments.length)
  const pair = segments
    .flatMap((a) => segments.map((b) => ({ a, b })))
    .find(
      ({ a, b }) =>
        a.speaker === 'speaker_0' && b.speaker === 'speaker_1' && a.start < b.end && b.start < a.end,
    )
  if (!pair) throw new Error('no overlapping pair of spans')
  const region = (s: Span) => page.locator(`.waveform [part~="span-${s.id}"]`)
  const [upper, lower] = [await box(region(pair.a)), await box(region(pair.b))]
  expect(upper.x < lower.x + lower.width && lower.x < upper.x + upper.width).toBe(true)
  expect(upper.y + upper.height).toBeLessThanOrEqual(lower.y + 1)

  // The note uses the reviewer's names.
  await review.getByLabel(`Name for ${other}`).fill('Guest')
  await review.getByLabel(`Name for ${other}`).press('Enter')
  await expect(review.locator(`li.turn[data-turn="${overlapped}"] .turn-overlap`)).toHaveText(
    /Also speaking: Guest \d/,
  )
  await expect(page.getByTestId('lane-key')).toContainText('Guest')
  expect(await seriousViolations(page)).toEqual([])

  // At 390 px wide nothing scrolls sideways, the note wraps, and axe still finds nothing serious.
  await page.setViewportSize({ width: 390, height: 844 })
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
  await expect(review.locator('.turn-overlap').first()).toBeVisible()
  expect(await seriousViolations(page)).toEqual([])
})
