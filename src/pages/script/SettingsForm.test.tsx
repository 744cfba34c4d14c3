// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { LineOverride, VoiceSettings } from '../../../schema/index.ts'
import { LineOverrideForm, SettingsForm } from './SettingsForm.tsx'

const SAVED = { id: `voice_${'c'.repeat(32)}`, name: 'Ada narration' }
const START: VoiceSettings = { model: 'svc-tts-2-latest', voice: 'eleanor_somber_female_32' }

/** The page's side: keeps what the form reports and hands it back as the value. */
function ScriptHarness({ initial, onChange }: { initial: VoiceSettings; onChange(s: VoiceSettings): void }) {
  const [value, setValue] = useState(initial)
  return (
    <SettingsForm
      value={value}
      onChange={(s) => {
        setValue(s)
        onChange(s)
      }}
      savedVoices={[SAVED]}
      onSample={() => {}}
    />
  )
}

function setup(initial: VoiceSettings = START) {
  const onChange = vi.fn<(s: VoiceSettings) => void>()
  const user = userEvent.setup()
  render(<ScriptHarness initial={initial} onChange={onChange} />)
  return { user, onChange, last: () => onChange.mock.lastCall?.[0] }
}

const number = (name: string) => screen.getByRole('spinbutton', { name }) as HTMLInputElement
const describedText = (el: Element) =>
  (el.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent)
    .join(' | ')

afterEach(cleanup)

describe('SettingsForm', () => {
  it('shows each unset field as what the preset or default gives, and reports nothing by itself', () => {
    const { onChange } = setup()
    expect((screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement).value).toBe(
      'svc-tts-2-latest',
    )
    expect(
      (screen.getByRole('radio', { name: 'eleanor_somber_female_32' }) as HTMLInputElement).checked,
    ).toBe(true)
    expect(screen.getByText('Default: 1 (not sent)')).toBeTruthy()
    expect(
      screen.getByText('Default: expressive, temperature 0.9 · top_p 0.9 · top_k 50 · min_p 0 (not sent)'),
    ).toBeTruthy()
    expect(screen.getByRole('group', { name: 'temperature' }).textContent).toContain(
      'From the expressive preset: 0.9',
    )
    expect(screen.getByRole('group', { name: 'top_k' }).textContent).toContain(
      'From the expressive preset: 50',
    )
    expect(screen.getByRole('group', { name: 'max_new_tokens' }).textContent).toContain('Not sent')
    expect(screen.queryByRole('spinbutton', { name: 'temperature' })).toBeNull()
    expect(onChange).not.toHaveBeenCalled()
  })

  it('sets a custom value starting from the preset’s, and leaves the field out again when back on preset', async () => {
    const { user, last } = setup()
    await user.click(screen.getByRole('checkbox', { name: 'Custom temperature' }))
    expect(number('temperature').value).toBe('0.9')
    expect(last()).toStrictEqual({ ...START, temperature: 0.9 })
    await user.clear(number('temperature'))
    await user.type(number('temperature'), '1.15')
    expect(number('temperature').value).toBe('1.15')
    expect(last()).toStrictEqual({ ...START, temperature: 1.15 })
    await user.click(screen.getByRole('checkbox', { name: 'Custom temperature' }))
    expect(last()).toStrictEqual(START)
    expect('temperature' in (last() ?? {})).toBe(false)
  })

  it('shows an invalid value’s error beside its field and does not report it', async () => {
    const { user, onChange, last } = setup()
    await user.click(screen.getByRole('checkbox', { name: 'Custom top_k' }))
    await user.clear(number('top_k'))
    await user.type(number('top_k'), '250')
    expect(number('top_k').getAttribute('aria-invalid')).toBe('true')
    expect(describedText(number('top_k'))).toContain('top_k must be a whole number from 0 to 200')
    expect(onChange.mock.calls.some(([s]) => s.top_k === 250)).toBe(false)
    expect(last()?.top_k).toBe(25)
    await user.clear(number('top_k'))
    expect(describedText(number('top_k'))).toContain('top_k must be a whole number from 0 to 200')
    await user.type(number('top_k'), '0')
    expect(number('top_k').getAttribute('aria-invalid')).toBeNull()
    expect(describedText(number('top_k'))).not.toContain('must be')
    expect(last()).toStrictEqual({ ...START, top_k: 0 })
  })

  it('takes the speed from the slider or the number, within 0.25 to 4', async () => {
    const { user, last } = setup()
    await user.click(screen.getByRole('checkbox', { name: 'Custom Speed' }))
    fireEvent.change(screen.getByRole('slider', { name: 'Speed' }), { target: { value: '1.5' } })
    expect(number('Speed').value).toBe('1.5')
    expect(last()).toStrictEqual({ ...START, speed: 1.5 })
    await user.clear(number('Speed'))
    await user.type(number('Speed'), '5')
    expect(describedText(number('Speed'))).toContain('speed must be a number from 0.25 to 4')
    expect(last()?.speed).toBe(1.5)
    await user.clear(number('Speed'))
    await user.type(number('Speed'), '0.25')
    expect((screen.getByRole('slider', { name: 'Speed' }) as HTMLInputElement).value).toBe('0.25')
    expect(last()?.speed).toBe(0.25)
  })

  it('shows each mode with its preset and follows the chosen mode in the fields left on preset', async () => {
    const { user, last } = setup()
    await user.click(screen.getByRole('checkbox', { name: 'Custom Mode' }))
    expect(
      screen.getByRole('radio', { name: 'stable (temperature 0.8 · top_p 0.8 · top_k 50 · min_p 0)' }),
    ).toBeTruthy()
    await user.click(screen.getByRole('radio', { name: /^stable/ }))
    expect(last()).toStrictEqual({ ...START, mode: 'stable' })
    expect(screen.getByRole('group', { name: 'top_p' }).textContent).toContain('From the stable preset: 0.8')
    await user.click(screen.getByRole('checkbox', { name: 'Custom top_p' }))
    expect(number('top_p').value).toBe('0.8')
  })

  it('under a 0.8 model takes its voice, disables mode and decoding with the reason, and clears what is invalid', async () => {
    const { user, onChange, last } = setup()
    await user.click(screen.getByRole('checkbox', { name: 'Custom min_p' }))
    await user.clear(number('min_p'))
    await user.type(number('min_p'), '0.9')
    await user.click(screen.getByRole('checkbox', { name: 'Custom temperature' }))
    await user.selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'svc-tts-mini-0.8')
    // The voice follows the model before anything is reported; the invalid min_p returns to the preset.
    expect(last()).toStrictEqual({ model: 'svc-tts-mini-0.8', voice: 'Bella', temperature: 0.9 })
    expect(onChange.mock.calls.some(([s]) => s.model === 'svc-tts-mini-0.8' && s.voice !== 'Bella')).toBe(
      false,
    )
    const decoding = screen.getByRole('group', { name: 'Mode and decoding' }) as HTMLFieldSetElement
    expect(decoding.disabled).toBe(true)
    expect(describedText(decoding)).toContain('svc-tts-mini-0.8 ignores mode and decoding')
    expect((screen.getByRole('radio', { name: 'Bella' }) as HTMLInputElement).checked).toBe(true)
    expect(screen.queryByRole('group', { name: 'Saved voices' })).toBeNull()
    await user.selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'svc-tts-nano-0.8')
    expect(last()).toStrictEqual({ model: 'svc-tts-nano-0.8', voice: 'Bella', temperature: 0.9 })
    await user.selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'svc-tts-2-latest')
    expect(last()).toStrictEqual({ ...START, temperature: 0.9 })
    expect(decoding.disabled).toBe(false)
  })

  it('reports a saved voice chosen on the second generation and plays samples', async () => {
    const onSample = vi.fn()
    const onChange = vi.fn()
    const user = userEvent.setup()
    render(<SettingsForm value={START} onChange={onChange} savedVoices={[SAVED]} onSample={onSample} />)
    await user.click(screen.getByRole('radio', { name: 'Ada narration' }))
    expect(onChange).toHaveBeenLastCalledWith({ ...START, voice: SAVED.id })
    await user.click(screen.getByRole('button', { name: 'Play sample of Ada narration' }))
    expect(onSample).toHaveBeenCalledWith(SAVED.id)
  })

  it('takes a new value from outside', () => {
    const props = { onChange: () => {}, savedVoices: [], onSample: () => {} }
    const { rerender } = render(<SettingsForm value={START} {...props} />)
    rerender(<SettingsForm value={{ model: 'svc-tts-micro-0.8', voice: 'Kiki', speed: 0.8 }} {...props} />)
    expect((screen.getByRole('combobox', { name: 'Model' }) as HTMLSelectElement).value).toBe(
      'svc-tts-micro-0.8',
    )
    expect((screen.getByRole('radio', { name: 'Kiki' }) as HTMLInputElement).checked).toBe(true)
    expect(number('Speed').value).toBe('0.8')
  })

  it('keeps ids unique with two forms on the page', () => {
    const props = { value: START, onChange: () => {}, savedVoices: [], onSample: () => {} }
    render(
      <>
        <SettingsForm {...props} />
        <SettingsForm {...props} idPrefix="second" />
      </>,
    )
    const ids = [...document.querySelectorAll('[id]')].map((e) => e.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(screen.getAllByRole('radio', { name: 'eleanor_somber_female_32', checked: true })).toHaveLength(2)
  })
})

function LineHarness(props: {
  script: VoiceSettings
  initial?: LineOverride
  onChange(o: LineOverride | undefined): void
}) {
  const [value, setValue] = useState(props.initial)
  return (
    <LineOverrideForm
      script={props.script}
      value={value}
      onChange={(o) => {
        setValue(o)
        props.onChange(o)
      }}
      savedVoices={[SAVED]}
      onSample={() => {}}
    />
  )
}

function setupLine(script: VoiceSettings, initial?: LineOverride) {
  const onChange = vi.fn<(o: LineOverride | undefined) => void>()
  const user = userEvent.setup()
  render(<LineHarness script={script} initial={initial} onChange={onChange} />)
  return { user, onChange, last: () => onChange.mock.lastCall?.[0] }
}

describe('LineOverrideForm', () => {
  const script: VoiceSettings = { ...START, speed: 1.2, temperature: 1.1 }

  it('shows every field as the script’s until it is set for the line', () => {
    setupLine(script)
    const group = (name: string) => screen.getByRole('group', { name }).textContent
    expect(group('Model')).toContain('Same as script: svc-tts-2-latest')
    expect(group('Voice')).toContain('Same as script: eleanor_somber_female_32')
    expect(group('Speed')).toContain('Same as script: 1.2')
    expect(group('Mode')).toContain('Same as script: expressive (default)')
    expect(group('temperature')).toContain('Same as script: 1.1')
    expect(group('top_p')).toContain('Same as script, from the expressive preset: 0.9')
    expect(screen.queryAllByRole('spinbutton')).toHaveLength(0)
  })

  it('sets a field for the line from the script’s value, and gives undefined once nothing is set', async () => {
    const { user, last, onChange } = setupLine(script)
    await user.click(screen.getByRole('checkbox', { name: 'Set for this line temperature' }))
    expect(number('temperature').value).toBe('1.1')
    expect(last()).toStrictEqual({ temperature: 1.1 })
    await user.clear(number('temperature'))
    await user.type(number('temperature'), '0.5')
    expect(last()).toStrictEqual({ temperature: 0.5 })
    await user.click(screen.getByRole('checkbox', { name: 'Set for this line temperature' }))
    expect(onChange).toHaveBeenLastCalledWith(undefined)
  })

  it('under a 0.8 model for the line, names the voice the line falls back to and never reports a mismatched voice', async () => {
    const { user, last, onChange } = setupLine(script)
    await user.click(screen.getByRole('checkbox', { name: 'Set for this line Voice' }))
    await user.click(screen.getByRole('radio', { name: 'german_39' }))
    expect(last()).toStrictEqual({ voice: 'german_39' })
    await user.click(screen.getByRole('checkbox', { name: 'Set for this line Model' }))
    await user.selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'svc-tts-nano-0.8')
    expect(last()).toStrictEqual({ model: 'svc-tts-nano-0.8' })
    expect(onChange.mock.calls.some(([o]) => o?.model === 'svc-tts-nano-0.8' && o.voice)).toBe(false)
    expect(screen.getByRole('group', { name: 'Voice' }).textContent).toContain(
      'Same as script would be eleanor_somber_female_32, which svc-tts-nano-0.8 does not have: this line uses Bella',
    )
    expect((screen.getByRole('group', { name: 'Mode and decoding' }) as HTMLFieldSetElement).disabled).toBe(
      true,
    )
  })

  it('starts from a given override and follows its mode in the fields left to the script', async () => {
    const { user, onChange } = setupLine(START, { mode: 'stable', top_k: 10 })
    expect((screen.getByRole('radio', { name: /^stable/ }) as HTMLInputElement).checked).toBe(true)
    expect(number('top_k').value).toBe('10')
    expect(screen.getByRole('group', { name: 'top_p' }).textContent).toContain(
      'Same as script, from the stable preset: 0.8',
    )
    await user.click(screen.getByRole('button', { name: 'Use the script’s settings for every field' }))
    expect(onChange).toHaveBeenLastCalledWith(undefined)
    expect(screen.queryAllByRole('spinbutton')).toHaveLength(0)
    expect(within(screen.getByRole('group', { name: 'Mode' })).queryByRole('radio')).toBeNull()
  })
})
