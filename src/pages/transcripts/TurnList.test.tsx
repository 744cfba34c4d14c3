// @vitest-environment jsdom
import { act, cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { EMPTY_EDITS, type SavedTranscript, type StoredResult } from '../../../schema/index.ts'
import { timedWords } from './corrections.ts'
import { originalSpeakers } from './labels.ts'
import { arrange, type OpenTranscript, type Player, useReview } from './review-store.ts'
import { TurnList } from './TurnList.tsx'
import { entriesOf, TimeIndex } from './turns.ts'

const result: StoredResult = {
  text: 'so what do you think i think the cat',
  warnings: [],
  duration: 5,
  words: [
    { word: 'so', start: 0.1, end: 0.3, confidence: 0.95 },
    { word: 'what', start: 0.4, end: 0.7, confidence: 0.05 },
    { word: 'do', start: 0.8, end: 1.0, confidence: 0.9 },
    { word: 'you', start: 1.1, end: 1.3, confidence: 0.9 },
    { word: 'think', start: 1.4, end: 1.9, confidence: 0.9 },
    { word: 'i', start: 3.0, end: 3.1, confidence: 0.9 },
    { word: 'think', start: 3.2, end: 3.6, confidence: 0.9 },
    { word: 'the', start: 3.7, end: 3.8, confidence: 0.9 },
    { word: 'cat', start: 3.9, end: 4.3, confidence: 0.9 },
  ],
  diarization: {
    status: 'completed',
    speakers: ['speaker_0', 'speaker_1'],
    segments: [],
    turns: [
      { speaker: 'speaker_0', start: 0, end: 2, text: 'so what do you think' },
      { speaker: 'speaker_1', start: 2.8, end: 4.5, text: 'i think the cat' },
    ],
  },
}

/** The player the waveform registers, here a clock the test moves: jsdom plays no audio. */
function clockPlayer(): Player & { at: number } {
  const p = {
    at: 0,
    seek: (t: number) => {
      p.at = t
      useReview.getState().setPlayback({ time: t })
    },
    play: () => useReview.getState().setPlayback({ playing: true }),
    pause: () => useReview.getState().setPlayback({ playing: false }),
    togglePlay: () => useReview.getState().setPlayback({ playing: !useReview.getState().playing }),
    setRate: () => {},
    skip: (s: number) => p.seek(p.at + s),
    currentTime: () => p.at,
  }
  return p
}

let player: ReturnType<typeof clockPlayer>

function openTranscript(): OpenTranscript {
  const { entries, source } = entriesOf(result)
  const transcript = { id: 'tr_test', name: 'test.wav', result } as unknown as SavedTranscript
  const original = originalSpeakers(result)
  return arrange(
    {
      transcript,
      entries,
      source,
      words: timedWords(result),
      rows: entries,
      timeIndex: new TimeIndex(entries),
      original,
      speakers: original,
    },
    EMPTY_EDITS,
  )
}

beforeEach(() => {
  // jsdom lays nothing out: give the list's scroller a size so the virtualizer renders its rows.
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get: () => 600 })
  Object.defineProperty(HTMLElement.prototype, 'clientWidth', { configurable: true, get: () => 400 })
  player = clockPlayer()
  useReview.setState({
    open: openTranscript(),
    edits: EMPTY_EDITS,
    history: [],
    current: null,
    currentWord: null,
  })
  useReview.getState().setPlayer(player)
})
afterEach(() => {
  cleanup()
  useReview.getState().setPlayer(null)
})

/** The list as Review gives it: the open transcript as the store has it after each edit. */
function Live() {
  const open = useReview((s) => s.open)
  return open ? <TurnList open={open} /> : null
}

const renderList = () => render(<Live />)

describe('words as the unit', () => {
  it('shows each word as a button, one tab stop per turn, seeking to the word on click and moving with the arrows', async () => {
    renderList()
    const first = screen.getByRole('group', { name: 'Words of turn 1' })
    const words = within(first).getAllByRole('button')
    expect(words.map((w) => w.textContent)).toEqual(['so', 'what', 'do', 'you', 'think'])
    expect(words.map((w) => w.tabIndex)).toEqual([0, -1, -1, -1, -1])
    await userEvent.click(words[3] as HTMLElement)
    expect(player.at).toBe(1.1)
    await userEvent.keyboard('{ArrowRight}')
    expect(document.activeElement).toBe(words[4])
    expect((words[4] as HTMLElement).tabIndex).toBe(0)
    await userEvent.keyboard('{Home}')
    expect(document.activeElement).toBe(words[0])
  })

  it('marks the spoken word with aria-current="time" as the playhead moves, and the unsure one', () => {
    renderList()
    act(() => player.seek(0.5))
    const current = () => document.querySelectorAll('[aria-current="time"]')
    expect([...current()].map((w) => w.textContent)).toEqual(['what'])
    act(() => player.seek(3.25))
    expect([...current()].map((w) => w.textContent)).toEqual(['think'])
    expect(current()[0]?.closest('li')?.getAttribute('aria-current')).toBe('true')
    const unsure = screen.getByRole('button', { name: 'what' })
    expect(unsure.getAttribute('aria-describedby')).toBe('unsure-word-note')
    expect(screen.getByRole('button', { name: 'cat' }).getAttribute('aria-describedby')).toBeNull()
  })
})

describe('correcting a turn', () => {
  it('keeps the text on Ctrl+Enter, as a label edit Ctrl+Z can undo, and cancels on Escape', async () => {
    renderList()
    await userEvent.click(screen.getByRole('button', { name: 'Edit text of turn 2' }))
    const box = screen.getByRole('textbox', { name: 'Text of turn 2' })
    expect(document.activeElement).toBe(box)
    await userEvent.clear(box)
    await userEvent.type(box, 'nothing')
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByRole('textbox')).toBeNull()
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Edit text of turn 2' }))
    expect(useReview.getState().edits).toEqual(EMPTY_EDITS)

    await userEvent.click(screen.getByRole('button', { name: 'Edit text of turn 2' }))
    const again = screen.getByRole('textbox', { name: 'Text of turn 2' })
    await userEvent.clear(again)
    await userEvent.type(again, 'I think the hat')
    await userEvent.keyboard('{Control>}{Enter}{/Control}')
    expect(useReview.getState().edits.texts).toEqual({ '1': 'I think the hat' })
    const words = within(screen.getByRole('group', { name: 'Words of turn 2' })).getAllByRole('button')
    expect(words.map((w) => [w.textContent, w.dataset.start])).toEqual([
      ['I', '3.000'],
      ['think', '3.200'],
      ['the', '3.700'],
      ['hat', '3.900'],
    ])
    act(() => useReview.getState().undo())
    expect(useReview.getState().edits).toEqual(EMPTY_EDITS)
    expect(screen.getByRole('button', { name: 'cat' })).toBeTruthy()
  })
})

describe('typing-friendly playback', () => {
  it('pauses while typing and resumes a second after the last key, 2 s back', () => {
    vi.useFakeTimers()
    try {
      const s = useReview.getState()
      s.setPauseWhileTyping(true)
      player.seek(10)
      player.play()
      s.typed()
      expect(useReview.getState().playing).toBe(false)
      vi.advanceTimersByTime(800)
      s.typed()
      vi.advanceTimersByTime(800)
      expect(useReview.getState().playing).toBe(false)
      vi.advanceTimersByTime(300)
      expect(useReview.getState().playing).toBe(true)
      expect(player.at).toBe(8)
      // Without the option, typing leaves playback alone.
      s.setPauseWhileTyping(false)
      s.typed()
      expect(useReview.getState().playing).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })
})
