// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { finishCues, splitCues, wordsOverSpan } from '../../../core/subtitle-cues.ts'
import { cueProblemText, SubtitlesPanel } from './SubtitlesPanel.tsx'

afterEach(cleanup)

describe('the Subtitles region', () => {
  const cues = [
    { start: 1, end: 3, lines: ['Anna: Hello there.'] },
    // Spoken far faster than it can be read, and overlapping the next cue (someone else at once).
    { start: 4, end: 5.5, lines: ['Bo: and this is a great deal to read in', 'hardly any time at all'] },
    { start: 5, end: 7, lines: ['Anna: Yes.'] },
  ]

  it('lists every cue with its times and lines, and says which break a rule and why', async () => {
    render(<SubtitlesPanel cues={cues} onSeek={vi.fn()} />)
    const region = screen.getByRole('region', { name: 'Subtitles' })
    await userEvent
      .setup()
      .click(within(region).getByRole('checkbox', { name: 'Only cues that break a rule' }))
    expect(within(region).getByText('3 cues; 1 breaks a rule.')).toBeTruthy()
    const items = within(region)
      .getAllByRole('listitem')
      .filter((li) => li.querySelector('.cue-time'))
    expect(items).toHaveLength(3)
    const reasons = within(region).getByRole('list', { name: 'Cue 2 breaks' })
    expect(
      within(reasons)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      '41 characters a second (at most 17): the speech is faster than it can be read',
      'overlaps the next cue by 500 ms: two people at once',
    ])
    expect(within(region).queryByRole('list', { name: 'Cue 1 breaks' })).toBeNull()
  })

  it('shows only the flagged cues at first, and moves the playhead to a cue', async () => {
    const onSeek = vi.fn()
    const user = userEvent.setup()
    render(<SubtitlesPanel cues={cues} onSeek={onSeek} />)
    expect(screen.getByRole('checkbox', { name: 'Only cues that break a rule' })).toHaveProperty(
      'checked',
      true,
    )
    const times = screen.getAllByRole('button', { name: /^Go to cue/ })
    expect(times.map((b) => b.getAttribute('aria-label'))).toEqual(['Go to cue 2, 0:04.0–0:05.5'])
    await user.click(times[0] as HTMLElement)
    expect(onSeek).toHaveBeenCalledWith(4)
  })

  it('says when every cue keeps the rules', () => {
    const made = finishCues(splitCues(wordsOverSpan('a calm and steady sentence, read slowly', 0, 4)))
    render(<SubtitlesPanel cues={made} onSeek={vi.fn()} />)
    expect(screen.getByText('1 cue, all within the rules.')).toBeTruthy()
  })

  it('lists the cues of a long transcript a page at a time', async () => {
    const many = Array.from({ length: 450 }, (_, i) => ({
      start: i * 3,
      end: i * 3 + 2,
      lines: [`cue ${i}`],
    }))
    const user = userEvent.setup()
    render(<SubtitlesPanel cues={many} onSeek={vi.fn()} />)
    await user.click(screen.getByRole('checkbox', { name: 'Only cues that break a rule' }))
    expect(screen.getAllByRole('button', { name: /^Go to cue/ })).toHaveLength(200)
    await user.click(screen.getByRole('button', { name: 'Show more cues (250 not shown)' }))
    await user.click(screen.getByRole('button', { name: 'Show more cues (50 not shown)' }))
    expect(screen.getAllByRole('button', { name: /^Go to cue/ })).toHaveLength(450)
    expect(screen.queryByRole('button', { name: /^Show more cues/ })).toBeNull()
  })
})

describe('cueProblemText', () => {
  it('words every rule with its limit', () => {
    expect(cueProblemText({ rule: 'lines', value: 3, limit: 2 })).toBe('3 lines (at most 2)')
    expect(cueProblemText({ rule: 'line-length', value: 47, limit: 42, line: 2 })).toBe(
      'line 2 has 47 characters (at most 42)',
    )
    expect(cueProblemText({ rule: 'short', value: 0.6, limit: 1 })).toBe(
      'shown 600 ms (at least 1 s): the next cue follows too soon',
    )
    expect(cueProblemText({ rule: 'long', value: 8.24, limit: 7 })).toBe('shown 8.2 s (at most 7 s)')
    expect(cueProblemText({ rule: 'gap', value: 0.04, limit: 0.08 })).toBe(
      '40 ms before the next cue (at least 80 ms)',
    )
  })
})
