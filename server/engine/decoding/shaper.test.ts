import { describe, expect, it } from 'vitest'
import { MODE_PRESETS } from '../../../schema/index.ts'
import { escapeForSsml } from '../espeak/text.ts'
import { planUtterance } from '../markup/plan.ts'
import { PHRASE_PITCH, WORD_GAP } from './prosody-model.ts'
import type { DecodingSettings, Random } from './sampler.ts'
import { seededRandom } from './sampler.ts'
import { type Draw, ProsodyShaper } from './shaper.ts'

const TEXT =
  'I never thought it would end like this, after all these years together. Did you? We walked the long road home, and nobody said a word!'
const open = (temperature: number): DecodingSettings => ({ temperature, top_k: 0, top_p: 1, min_p: 0 })
const greedy: DecodingSettings = { temperature: 0.9, top_k: 1, top_p: 1, min_p: 0 }

function take(decoding: DecodingSettings, random: Random, text = TEXT, markup = false) {
  const draws: Draw[] = []
  const shaper = new ProsodyShaper({ decoding, random, onDraw: (d) => draws.push(d) })
  const parts = planUtterance(text, 'en', { markup, shaper })
  return { parts, draws, shaper }
}

const ssmlOf = (parts: ReturnType<typeof take>['parts']) =>
  parts.map((p) => (p.kind === 'speech' ? p.ssml : `<${p.sound}>`)).join(' | ')

/** Mean over draw positions of the variance across takes, per kind of token. */
function spreadAcrossTakes(decoding: DecodingSettings, takes = 300, seed = 42): Map<string, number> {
  const random = seededRandom(seed)
  const all = Array.from({ length: takes }, () => take(decoding, random).draws)
  const byKind = new Map<string, number[]>()
  all[0]?.forEach((first, i) => {
    const values = all.map((draws) => draws[i]?.value ?? 0)
    const mean = values.reduce((a, v) => a + v, 0) / values.length
    const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length
    byKind.set(first.kind, [...(byKind.get(first.kind) ?? []), variance])
  })
  return new Map([...byKind].map(([k, v]) => [k, v.reduce((a, x) => a + x, 0) / v.length]))
}

describe('a take of a segment', () => {
  it('is the same every time with top_k 1, whatever the randomness', () => {
    const a = take(greedy, seededRandom(1))
    const b = take(greedy, Math.random)
    expect(ssmlOf(a.parts)).toBe(ssmlOf(b.parts))
    expect(a.draws).toEqual(b.draws)
  })

  it('is a fresh take each time it is sampled', () => {
    const takes = new Set(
      Array.from({ length: 5 }, () => ssmlOf(take(MODE_PRESETS.expressive, Math.random).parts)),
    )
    expect(takes.size).toBe(5)
  })

  it('speaks every word exactly as written: only tags are added', () => {
    const text = 'Fish & chips <3, at 5 > 4? Yes — "quoted", (aside) and 100% done.'
    for (const settings of [greedy, MODE_PRESETS.expressive, open(2)]) {
      const { parts } = take(settings, seededRandom(3), text)
      const spoken = parts
        .map((p) => (p.kind === 'speech' ? p.ssml : ''))
        .join('')
        .replace(/<[^>]+>/g, '')
      expect(spoken.replace(/\s+/g, ' ').trim()).toBe(escapeForSsml(text))
    }
  })

  it('nests its tags inside emotions, emphasis and around sounds', () => {
    const text = '[sad] Well, (((maybe))) not <sigh> yet. [excited] Go, go, go!'
    for (const seed of [1, 2, 3, 4, 5]) {
      const { parts } = take(open(1.5), seededRandom(seed), text, true)
      expect(parts.map((p) => p.kind)).toEqual(['speech', 'sound', 'speech'])
      for (const part of parts) {
        if (part.kind !== 'speech') continue
        const stack: string[] = []
        for (const [, close, name] of part.ssml.matchAll(/<(\/?)(prosody|emphasis)\b[^>]*>/g)) {
          if (close) expect(stack.pop(), part.ssml).toBe(name)
          else stack.push(name as string)
        }
        expect(stack, part.ssml).toEqual([])
      }
    }
  })

  it('draws the structure the model describes: phrase tokens per phrase, accent and gap or pause per word', () => {
    const { draws } = take(greedy, seededRandom(1), 'One two, three four five. Six!')
    expect(draws.map((d) => d.kind)).toEqual([
      'phrase pitch',
      'phrase rate',
      'phrase range',
      'word accent',
      'word gap',
      'word accent',
      'phrase pause',
      'phrase pitch',
      'phrase rate',
      'phrase range',
      'word accent',
      'word gap',
      'word accent',
      'word gap',
      'word accent',
      'phrase pause',
      'phrase pitch',
      'phrase rate',
      'phrase range',
      'word accent',
      'phrase pause',
    ])
    // Greedy: a sentence opens a little high, its final phrase falls, an exclamation rises.
    const pitches = draws.filter((d) => d.kind === 'phrase pitch').map((d) => d.value)
    expect(pitches).toEqual([2, -4, 6])
  })
})

describe('decoding controls on the prosody tokens', () => {
  const temperatures = [0.3, 0.6, 0.9, 1.2, 1.5, 2]
  const spreads = temperatures.map((t) => spreadAcrossTakes(open(t)))

  it('raises the variance across takes with temperature, for every kind of token', () => {
    for (const kind of ['phrase pitch', 'phrase rate', 'phrase range', 'word accent', 'phrase pause']) {
      const series = spreads.map((s) => s.get(kind) ?? Number.NaN)
      for (let i = 1; i < series.length; i++) {
        expect(series[i], `${kind} at T=${temperatures[i]}: ${series.join(', ')}`).toBeGreaterThan(
          series[i - 1] as number,
        )
      }
    }
    // Gaps between words appear only once the tails open up.
    const gaps = spreads.map((s) => s.get('word gap') ?? 0)
    expect(gaps[0]).toBe(0)
    expect(gaps.at(-1)).toBeGreaterThan(gaps[2] as number)
  })

  it('varies less in stable mode than in expressive mode', () => {
    const stable = spreadAcrossTakes(MODE_PRESETS.stable)
    const expressive = spreadAcrossTakes(MODE_PRESETS.expressive)
    for (const kind of ['phrase pitch', 'phrase rate', 'phrase range', 'phrase pause']) {
      expect(stable.get(kind), kind).toBeLessThan(expressive.get(kind) as number)
    }
    expect(stable.get('word accent')).toBeLessThanOrEqual(expressive.get('word accent') as number)
  })

  it('keeps the presets near the peak and lets extreme settings reach the tails', () => {
    const tails = (decoding: DecodingSettings) => {
      const random = seededRandom(5)
      const draws = Array.from({ length: 200 }, () => take(decoding, random).draws).flat()
      const share = (kind: string, test: (v: number) => boolean) => {
        const of = draws.filter((d) => d.kind === kind)
        return of.filter((d) => test(d.value)).length / of.length
      }
      return {
        // About 4 semitones or more away from the voice's level.
        pitchJumps: share(PHRASE_PITCH.name, (v) => Math.abs(v) >= 16),
        gaps: share(WORD_GAP.name, (v) => v > 0),
      }
    }
    expect(tails(MODE_PRESETS.expressive)).toEqual({ pitchJumps: 0, gaps: 0 })
    const wild = tails(open(2))
    expect(wild.pitchJumps).toBeGreaterThan(0.15)
    expect(wild.gaps).toBeGreaterThan(0.15)
    // top_k, top_p and min_p each pull a high temperature back in.
    for (const filter of [{ top_k: 3 }, { top_p: 0.6 }, { min_p: 0.3 }]) {
      const tamed = tails({ ...open(2), ...filter })
      expect(tamed.pitchJumps, JSON.stringify(filter)).toBeLessThan(wild.pitchJumps / 2)
    }
  })
})

describe('the end of a segment', () => {
  const holds = (decoding: DecodingSettings, text: string, random: Random = seededRandom(8), cap = 1000) => {
    const shaper = new ProsodyShaper({ decoding, random })
    let n = 0
    while (n < cap && shaper.holdOn(text)) n++
    return n
  }

  it('stops at once after a full stop, even when greedy', () => {
    expect(holds(greedy, 'That was all.')).toBe(0)
    expect(holds(MODE_PRESETS.expressive, 'That was all.')).toBe(0)
  })

  it('holds on to the token cap with greedy decoding after text that breaks off (contract 2.8 rule 7)', () => {
    expect(holds(greedy, 'and then we went')).toBe(1000)
    expect(holds({ ...MODE_PRESETS.stable, top_p: 0.5 }, 'and then we went')).toBe(1000)
  })

  it('stops within a few tokens when sampling at the presets', () => {
    const random = seededRandom(11)
    const runs = Array.from({ length: 200 }, () => holds(MODE_PRESETS.expressive, 'and then we went', random))
    expect(Math.max(...runs)).toBeLessThan(25)
    expect(runs.reduce((a, n) => a + n, 0) / runs.length).toBeLessThan(3)
  })
})
