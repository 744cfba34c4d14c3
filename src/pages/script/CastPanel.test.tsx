// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { CastMember, VoiceSettings } from '../../../schema/index.ts'
import { CastPanel, castNameProblem, freshVoice } from './CastPanel.tsx'
import { ScriptEditor } from './ScriptEditor.tsx'

afterEach(cleanup)

const script: VoiceSettings = { model: 'svc-tts-2-latest', voice: 'captain_01' }

describe('castNameProblem and freshVoice', () => {
  it('takes a speaker name once, and refuses what a line could not start with', () => {
    const cast: CastMember[] = [{ name: 'Alice', settings: {} }]
    expect(castNameProblem('Bob', cast)).toBeNull()
    expect(castNameProblem('Dr. Bob', cast)).toBeNull()
    expect(castNameProblem('', cast)).toMatch(/Write the name/)
    expect(castNameProblem('bob', cast)).toMatch(/each starting with a capital letter/)
    expect(castNameProblem('Bob:', cast)).toMatch(/each starting with a capital letter/)
    expect(castNameProblem('ALICE', cast)).toBe('ALICE is in the cast already.')
    const full = Array.from({ length: 50 }, (_, i) => ({ name: `Speaker${i}`, settings: {} }))
    expect(castNameProblem('Bob', full)).toBe('A cast holds at most 50 members.')
  })

  it('gives a new member the first voice neither the script nor the cast uses', () => {
    expect(freshVoice(script, [])).toBe('narrator_02')
    expect(freshVoice(script, [{ name: 'A', settings: { voice: 'narrator_02' } }])).toBe('robot_03')
    // A member without a voice of their own speaks in the script's, which is taken already.
    expect(freshVoice(script, [{ name: 'A', settings: {} }])).toBe('narrator_02')
    expect(freshVoice({ model: 'svc-tts-mini-0.8', voice: 'Bella' }, [])).toBe('Jasper')
  })
})

function Harness({ onCast }: { onCast(cast: CastMember[]): void }) {
  const [cast, setCast] = useState<CastMember[]>([])
  return (
    <CastPanel
      cast={cast}
      onChange={(next) => {
        setCast(next)
        onCast(next)
      }}
      script={script}
      lines={[{ text: 'BOB: Hi.' }, { text: 'Bob: Hello again.' }, { text: 'Prose.' }]}
      savedVoices={[]}
      onSample={() => {}}
    />
  )
}

describe('CastPanel', () => {
  it('adds a member with a voice of their own, counts their lines, and removes them', async () => {
    const user = userEvent.setup()
    const onCast = vi.fn()
    render(<Harness onCast={onCast} />)
    const region = screen.getByRole('region', { name: 'Cast' })
    expect(within(region).getByText(/No cast/)).toBeTruthy()
    const name = within(region).getByRole('textbox', { name: 'Cast member name' })
    await user.type(name, 'bob{Enter}')
    expect(within(region).getByText(/each starting with a capital letter/)).toBeTruthy()
    expect(name.getAttribute('aria-invalid')).toBe('true')
    expect(onCast).not.toHaveBeenCalled()
    await user.clear(name)
    await user.type(name, '  Bob {Enter}')
    expect(onCast).toHaveBeenLastCalledWith([{ name: 'Bob', settings: { voice: 'narrator_02' } }])
    expect(name).toHaveProperty('value', '')
    expect(region.querySelector('summary')?.textContent).toBe('Bob narrator_02 · 2 lines')
    await user.click(within(region).getByRole('button', { name: 'Remove Bob from the cast' }))
    expect(onCast).toHaveBeenLastCalledWith([])
  })
})

describe('ScriptEditor with a cast', () => {
  it('offers to add a flagged name once, however many lines it starts', async () => {
    const user = userEvent.setup()
    const onAddToCast = vi.fn()
    render(
      <ScriptEditor
        lines={[
          { id: 'ln_aaaaaa01', text: 'BOB: Hi.' },
          { id: 'ln_aaaaaa02', text: 'Alice: Hello.' },
          { id: 'ln_aaaaaa03', text: 'Bob: Again.' },
        ]}
        onChange={() => {}}
        model="svc-tts-2-latest"
        activeLineId={null}
        cast={[{ name: 'Alice' }]}
        onAddToCast={onAddToCast}
      />,
    )
    expect(screen.getByText('Markup: 2 warnings.')).toBeTruthy()
    const offers = screen.getAllByRole('button', { name: /^Add .* to the cast$/ })
    expect(offers.map((b) => b.textContent)).toEqual(['Add BOB to the cast'])
    await user.click(offers[0] as HTMLElement)
    expect(onAddToCast).toHaveBeenCalledWith('BOB')
    expect(document.activeElement?.textContent).toBe('Markup: 2 warnings.')
  })
})
