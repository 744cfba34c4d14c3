// @vitest-environment jsdom
import { act, cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ModelId, ScriptLine } from '../../../schema/index.ts'
import { ScriptEditor } from './ScriptEditor.tsx'

afterEach(cleanup)

interface HarnessProps {
  initial: ScriptLine[]
  model?: ModelId
  onLines?(lines: ScriptLine[]): void
  onPlayLine?(lineId: string): void
  onCaretLine?(lineId: string): void
  onSelectionChange?(selected: string): void
}

/** The editor is controlled; the harness keeps its lines like the page's store does. */
function Harness({ initial, model = 'svc-tts-2-latest', onLines, ...callbacks }: HarnessProps) {
  const [lines, setLines] = useState(initial)
  const [currentModel, setModel] = useState(model)
  return (
    <>
      <button type="button" onClick={() => setModel('svc-tts-mini-0.8')}>
        Use mini
      </button>
      <ScriptEditor
        lines={lines}
        onChange={(next) => {
          setLines(next)
          onLines?.(next)
        }}
        model={currentModel}
        activeLineId={null}
        {...callbacks}
      />
    </>
  )
}

const setup = (props: HarnessProps) => {
  const user = userEvent.setup()
  const view = render(<Harness {...props} />)
  const textarea = screen.getByLabelText('Script') as HTMLTextAreaElement
  const mirror = view.container.querySelector('.script-editor-mirror') as HTMLElement
  const issues = view.container.querySelector('.script-editor-issues') as HTMLElement
  return { user, textarea, mirror, issues }
}

const caretAt = (textarea: HTMLTextAreaElement, start: number, end = start) =>
  act(() => {
    textarea.focus()
    textarea.setSelectionRange(start, end)
  })

describe('ScriptEditor', () => {
  it('highlights a known tag and an unknown one, and says the unknown one will be spoken', async () => {
    const { user, textarea, mirror, issues } = setup({ initial: [{ id: 'ln_aaaaaa01', text: '' }] })
    await user.click(textarea)
    await user.keyboard('[[sad] Hello [[happy] there <laugh>')
    expect(textarea.value).toBe('[sad] Hello [happy] there <laugh>')
    expect([...mirror.querySelectorAll('.mk-emotion')].map((e) => e.textContent)).toEqual(['[sad]'])
    expect([...mirror.querySelectorAll('.mk-sound')].map((e) => e.textContent)).toEqual(['<laugh>'])
    const spoken = mirror.querySelector('.mk-spoken-tag')
    expect(spoken?.textContent).toBe('[happy]')
    expect(spoken?.className).toContain('issue-warning')
    expect(issues.getAttribute('aria-live')).toBe('polite')
    expect(within(issues).getByRole('button').textContent).toBe(
      'Line 1 · Warning: [happy] is not a tag: it will be spoken as words',
    )
  })

  it('keeps a locked line read-only: typing into it changes nothing, says why, and leaves the caret there', async () => {
    const onLines = vi.fn()
    const { user, textarea, mirror } = setup({
      initial: [
        { id: 'ln_aaaaaa01', text: 'Locked.', locked: true },
        { id: 'ln_aaaaaa02', text: 'Free.' },
      ],
      onLines,
    })
    expect(mirror.querySelector('.is-locked')?.textContent).toBe('Locked.')
    caretAt(textarea, 3)
    await user.keyboard('xy{Backspace}')
    expect(textarea.value).toBe('Locked.\nFree.')
    expect(textarea.selectionStart).toBe(3)
    expect(onLines).not.toHaveBeenCalled()
    expect(screen.getByText('Line 1 is locked: unlock it to edit its text.')).toBeTruthy()
    // The other line, and a new line after the locked one, are edited as ever.
    caretAt(textarea, textarea.value.length)
    await user.keyboard(' Still.')
    expect(textarea.value).toBe('Locked.\nFree. Still.')
    expect(onLines.mock.lastCall?.[0]).toEqual([
      { id: 'ln_aaaaaa01', text: 'Locked.', locked: true },
      { id: 'ln_aaaaaa02', text: 'Free. Still.' },
    ])
    expect(screen.queryByText('Line 1 is locked: unlock it to edit its text.')).toBeNull()
  })

  it('turns markup into read-aloud issues when the model is svc-tts-mini-0.8', async () => {
    const { user, mirror, issues } = setup({
      initial: [{ id: 'ln_aaaaaa01', text: '[sad] Oh. (((really)))' }],
    })
    expect(mirror.querySelector('.mk-emotion')).not.toBeNull()
    expect(within(issues).queryAllByRole('button')).toHaveLength(0)
    await user.click(screen.getByRole('button', { name: 'Use mini' }))
    expect(mirror.querySelector('.mk-emotion')).toBeNull()
    expect(mirror.querySelector('.mk-emphasis')).toBeNull()
    expect(mirror.querySelector('.mk-spoken-tag')?.textContent).toBe('[sad]')
    expect(mirror.querySelector('.mk-bad-emphasis')?.textContent).toBe('(((really)))')
    const texts = within(issues)
      .getAllByRole('button')
      .map((b) => b.textContent)
    expect(texts).toEqual([
      'Line 1 · Warning: svc-tts-mini-0.8 reads markup aloud: [sad] will be spoken',
      'Line 1 · Hint: svc-tts-mini-0.8 has no emphasis: (((really))) is read as plain words, without stress',
    ])
    expect(screen.getByText(/svc-tts-mini-0.8 reads markup aloud: tags and emphasis act only/)).toBeTruthy()
  })

  it('inserts a tag from the palette at the caret and keeps the caret after it', async () => {
    const onLines = vi.fn()
    const { user, textarea } = setup({
      initial: [
        { id: 'ln_aaaaaa01', text: 'First line.' },
        { id: 'ln_aaaaaa02', text: 'I lost it.' },
      ],
      onLines,
    })
    caretAt(textarea, 'First line.\n'.length)
    await user.click(screen.getByRole('button', { name: '[sad]' }))
    expect(textarea.value).toBe('First line.\n[sad] I lost it.')
    expect(onLines).toHaveBeenLastCalledWith([
      { id: 'ln_aaaaaa01', text: 'First line.' },
      { id: 'ln_aaaaaa02', text: '[sad] I lost it.' },
    ])
    expect(document.activeElement).toBe(textarea)
    expect(textarea.selectionStart).toBe('First line.\n[sad] '.length)
    await user.keyboard('Oh. ')
    expect(textarea.value).toBe('First line.\n[sad] Oh. I lost it.')
  })

  it('moves between palette buttons with arrow keys, one tab stop for all', async () => {
    const { user, textarea } = setup({ initial: [{ id: 'ln_aaaaaa01', text: 'Hi' }] })
    const toolbar = screen.getByRole('toolbar', { name: 'Insert markup' })
    caretAt(textarea, 2)
    await user.keyboard('{Alt>}{Shift>}M{/Shift}{/Alt}')
    expect(document.activeElement?.textContent).toBe('[joyful]')
    await user.keyboard('{ArrowRight}{ArrowRight}')
    expect(document.activeElement?.textContent).toBe('[tender]')
    expect(
      within(toolbar)
        .getAllByRole('button')
        .filter((b) => b.tabIndex === 0),
    ).toHaveLength(1)
    await user.keyboard('{End}')
    expect(document.activeElement?.textContent).toBe('Emphasis')
    await user.keyboard('{ArrowRight}')
    expect(document.activeElement?.textContent).toBe('[joyful]')
    await user.keyboard('{ArrowLeft}{ArrowLeft}{Enter}')
    expect(textarea.value).toBe('Hi <pause>')
    expect(document.activeElement).toBe(textarea)
  })

  it('wraps the selection in emphasis with Ctrl+Shift+E, and opens an empty one without a selection', async () => {
    const { user, textarea } = setup({ initial: [{ id: 'ln_aaaaaa01', text: 'I really mean it.' }] })
    caretAt(textarea, 2, 9)
    await user.keyboard('{Control>}{Shift>}E{/Shift}{/Control}')
    expect(textarea.value).toBe('I (((really))) mean it.')
    expect(textarea.value.slice(textarea.selectionStart, textarea.selectionEnd)).toBe('really')
    caretAt(textarea, textarea.value.length)
    await user.click(screen.getByRole('button', { name: 'Emphasis' }))
    expect(textarea.value).toBe('I (((really))) mean it.((()))')
    expect(textarea.selectionStart).toBe(textarea.value.length - 3)
  })

  it('counts the characters and says when the script is outside the recommended range', async () => {
    const { user, textarea } = setup({ initial: [{ id: 'ln_aaaaaa01', text: 'a'.repeat(398) }] })
    expect(screen.getByText('398 / 40,000 characters')).toBeTruthy()
    const status = screen.getByRole('status')
    expect(status.textContent).toBe('Shorter than the recommended 400 to 5,000 characters.')
    caretAt(textarea, 398)
    await user.keyboard('{Enter}b')
    expect(screen.getByText('400 / 40,000 characters')).toBeTruthy()
    expect(status.textContent).toBe('')
    expect(textarea.maxLength).toBe(40_000)
  })

  it('calls onPlayLine with the caret line on Ctrl+Enter, and reports the caret line and selection', async () => {
    const onPlayLine = vi.fn()
    const onCaretLine = vi.fn()
    const onSelectionChange = vi.fn()
    const { user, textarea } = setup({
      initial: [
        { id: 'ln_aaaaaa01', text: 'One.' },
        { id: 'ln_aaaaaa02', text: 'Two.' },
        { id: 'ln_aaaaaa03', text: 'Three.' },
      ],
      onPlayLine,
      onCaretLine,
      onSelectionChange,
    })
    caretAt(textarea, 'One.\nTw'.length)
    await user.keyboard('{Control>}{Enter}{/Control}')
    expect(onPlayLine).toHaveBeenCalledExactlyOnceWith('ln_aaaaaa02')
    expect(textarea.value).toBe('One.\nTwo.\nThree.')
    expect(onCaretLine).toHaveBeenLastCalledWith('ln_aaaaaa02')
    await user.pointer([
      { target: textarea, offset: 'One.\nTwo.\n'.length, keys: '[MouseLeft>]' },
      { offset: 'One.\nTwo.\nThree.'.length },
      { keys: '[/MouseLeft]' },
    ])
    expect(onCaretLine).toHaveBeenLastCalledWith('ln_aaaaaa03')
    expect(onSelectionChange).toHaveBeenLastCalledWith('Three.')
  })

  it('counts problems, warnings and hints apart in the summary', () => {
    // The page as found in use: a problem (two parentheses) and a warning, summed up as "2 notes".
    const { issues } = setup({
      initial: [
        { id: 'ln_aaaaaa01', text: 'This is ((wrong)) here.' },
        { id: 'ln_aaaaaa02', text: 'And then [happy] we go.' },
      ],
    })
    const listed = within(issues)
      .getAllByRole('button')
      .map((b) => b.textContent)
    expect(listed).toEqual([expect.stringMatching(/Problem:/), expect.stringMatching(/Warning:/)])
    expect(issues.querySelector('.script-editor-issues-summary')?.textContent).toBe(
      'Markup: 1 problem, 1 warning.',
    )
  })
})
