// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Pronunciation } from '../../../schema/index.ts'
import { spokenInput, usePronunciations } from './pronunciations-store.ts'
import { ScriptEditor } from './ScriptEditor.tsx'

const entry = (text: string, say_as: string, phonemes: string | null = null): Pronunciation => ({
  id: `pron_${'0'.repeat(31)}${text.length}`,
  text,
  say_as,
  phonemes,
  case_sensitive: false,
  created_by: 'dana',
  created_at: 0,
  updated_at: 0,
})

beforeEach(() => {
  usePronunciations
    .getState()
    .setEntries([entry('Kokoro', 'koh-KOH-roh'), entry('tomato', 'tuh-MAH-toh', 'təˈmɑːtoʊ')])
  usePronunciations.getState().setUpstream('embedded')
})
afterEach(() => {
  cleanup()
  usePronunciations.getState().setEntries([])
  usePronunciations.getState().setUpstream(undefined)
})

describe('what is sent', () => {
  it('sends phonemes only where the service honours them; the respelling elsewhere and before that is known', () => {
    const line = '[sad] Kokoro eats a tomato.'
    expect(spokenInput(line, 'svc-tts-2-latest')).toBe('[sad] koh-KOH-roh eats a [[təˈmɑːtoʊ]].')
    act(() => usePronunciations.getState().setUpstream('remote'))
    expect(spokenInput(line, 'svc-tts-2-latest')).toBe('[sad] koh-KOH-roh eats a tuh-MAH-toh.')
    act(() => usePronunciations.getState().setUpstream(undefined))
    expect(spokenInput(line, 'svc-tts-mini-0.8')).toBe('[sad] koh-KOH-roh eats a tuh-MAH-toh.')
  })
})

describe('the editor’s marks', () => {
  it('underlines each match and says in words what it will say, following edits', async () => {
    const lines = [
      { id: 'ln_000001', text: 'Kokoro is here.' },
      { id: 'ln_000002', text: 'No match, a tomato.' },
    ]
    const { container, rerender } = render(
      <ScriptEditor lines={lines} onChange={() => {}} model="svc-tts-2-latest" activeLineId={null} />,
    )
    const underlined = () => [...container.querySelectorAll('.pron-match')].map((e) => e.textContent)
    expect(underlined()).toEqual(['Kokoro', 'tomato'])
    await userEvent.click(screen.getByText('Pronounced by the studio’s pronunciations: 2 words'))
    expect(screen.getByText('Line 1: “Kokoro” will say “koh-KOH-roh”')).toBeTruthy()
    expect(screen.getByText('Line 2: “tomato” will say /təˈmɑːtoʊ/')).toBeTruthy()

    rerender(
      <ScriptEditor
        lines={[{ id: 'ln_000001', text: 'Kokorotron is not Kokoro.' }]}
        onChange={() => {}}
        model="svc-tts-2-latest"
        activeLineId={null}
      />,
    )
    expect(underlined()).toEqual(['Kokoro'])
    expect(screen.getByText('Pronounced by the studio’s pronunciations: 1 word')).toBeTruthy()
    act(() => usePronunciations.getState().setEntries([]))
    expect(underlined()).toEqual([])
    expect(screen.queryByText(/Pronounced by the studio’s pronunciations/)).toBeNull()
  })
})
