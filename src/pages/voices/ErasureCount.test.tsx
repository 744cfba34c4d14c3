// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { ErasureCountNote, erasureText } from './ErasureCount.tsx'

afterEach(cleanup)

describe('what a revocation erases, said before it is confirmed', () => {
  it('says how many takes of how many designers lose their audio, and that they stay as records', () => {
    render(<ErasureCountNote state={{ status: 'success', counts: { takes: 3, users: 2 } }} what="consent" />)
    const note = screen.getByTestId('erasure-count')
    expect(note.textContent).toBe(
      '3 takes of 2 voice designers made with its voices will have their audio erased: they stay in the take history as a record only, and can no longer be played or downloaded.',
    )
    expect(note.className).toContain('warning')
    expect(note.getAttribute('aria-live')).toBe('polite')
  })

  it('in the singular, for nothing, while counting and when the count failed', () => {
    expect(erasureText({ status: 'success', counts: { takes: 1, users: 1 } }, 'voice')).toMatch(
      /^1 take of 1 voice designer made with it will have its audio erased: it stays/,
    )
    expect(erasureText({ status: 'success', counts: { takes: 0, users: 0 } }, 'voice')).toBe(
      'No take kept by the studio was made with it.',
    )
    expect(erasureText({ status: 'pending' }, 'consent')).toBe('Counting the takes made with its voices…')
    expect(erasureText({ status: 'error' }, 'voice')).toMatch(/could not count.*will have their audio erased/)
    render(<ErasureCountNote state={{ status: 'success', counts: { takes: 0, users: 0 } }} what="voice" />)
    expect(screen.getByTestId('erasure-count').className).not.toContain('warning')
  })
})
