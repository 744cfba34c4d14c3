import { describe, expect, it } from 'vitest'
import {
  ANSWER_LIMIT_MS,
  IDLE,
  nextSave,
  type SaveState,
  SLOW_AFTER_MS,
  saveStatus,
} from './save-progress.ts'

const words = { checking: 'Checking the sample…', slow: 'The service may be finishing other voices first.' }

function run(...events: Parameters<typeof nextSave>[1][]): SaveState {
  return events.reduce(nextSave, IDLE)
}

describe('save progress', () => {
  it('shows the upload in percent, then names the check and times the wait for the answer', () => {
    const uploading = run({ type: 'start' }, { type: 'progress', fraction: 0.42, now: 1_000 })
    expect(saveStatus(uploading, 1_000, words)).toMatchObject({ label: 'Uploading… 42%', fraction: 0.42 })

    const checking = nextSave(uploading, { type: 'progress', fraction: 1, now: 2_000 })
    expect(checking).toEqual({ step: 'checking', attempt: 1, since: 2_000 })
    expect(saveStatus(checking, 2_000, words)).toEqual({
      label: 'Checking the sample… 0:00',
      fraction: null,
      slow: null,
      announcement: 'Checking the sample…',
      overdue: false,
    })
    expect(saveStatus(checking, 2_000 + 65_000, words)?.label).toBe('Checking the sample… 1:05')
  })

  it('says why once the wait is longer than usual, and gives up on an answer past any the service gives', () => {
    const checking = run({ type: 'start' }, { type: 'progress', fraction: 1, now: 0 })
    expect(saveStatus(checking, SLOW_AFTER_MS - 1, words)?.slow).toBeNull()
    const slow = saveStatus(checking, SLOW_AFTER_MS, words)
    expect(slow?.slow).toBe(
      'This is taking longer than usual. The service may be finishing other voices first.',
    )
    // Announced once when it turns long, not every second after.
    expect(slow?.announcement).toBe('Checking the sample… This is taking longer than usual.')
    expect(saveStatus(checking, SLOW_AFTER_MS + 30_000, words)?.announcement).toBe(slow?.announcement)
    expect(saveStatus(checking, ANSWER_LIMIT_MS - 1, words)?.overdue).toBe(false)
    expect(saveStatus(checking, ANSWER_LIMIT_MS, words)?.overdue).toBe(true)
    // The service's own longest wait for a cloning slot (two minutes) is well inside the limit.
    expect(ANSWER_LIMIT_MS).toBeGreaterThan(120_000)
  })

  it('waits after a busy answer, then starts the next attempt from its upload', () => {
    const busy = run(
      { type: 'start' },
      { type: 'progress', fraction: 1, now: 0 },
      { type: 'busy', delayMs: 7_000, now: 120_000 },
    )
    expect(busy).toEqual({ step: 'waiting', attempt: 2, at: 127_000 })
    expect(saveStatus(busy, 121_000, words)).toBeNull()
    // A late progress report of the refused attempt changes nothing.
    expect(nextSave(busy, { type: 'progress', fraction: 1, now: 122_000 })).toBe(busy)
    expect(nextSave(busy, { type: 'retry' })).toEqual({ step: 'uploading', attempt: 2, fraction: 0 })
    expect(nextSave(busy, { type: 'end' })).toEqual(IDLE)
  })
})
