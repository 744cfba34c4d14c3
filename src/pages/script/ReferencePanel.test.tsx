// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { MAX_REFERENCE_BYTES } from '../../../schema/index.ts'
import { floatToPcm16Wav } from '../../../server/wav.ts'
import { checkReference, type Reference, ReferencePanel } from './ReferencePanel.tsx'

/** Half a second of a 220 Hz tone as a real WAV file. */
function wavBytes(): Uint8Array<ArrayBuffer> {
  const samples = Float32Array.from(
    { length: 12_000 },
    (_, i) => 0.5 * Math.sin((2 * Math.PI * 220 * i) / 24_000),
  )
  return new Uint8Array(floatToPcm16Wav(samples, 24_000))
}

/** Two MPEG-1 layer III frames (128 kbit/s, 44.1 kHz: 417 bytes each), headers and empty payloads. */
function mp3Bytes(): Uint8Array<ArrayBuffer> {
  const frame = new Uint8Array(417)
  frame.set([0xff, 0xfb, 0x90, 0x44])
  const bytes = new Uint8Array(834)
  bytes.set(frame, 0)
  bytes.set(frame, 417)
  return bytes
}

const garbage = () =>
  new TextEncoder().encode('These are notes about a recording, not a recording. '.repeat(40))

/** A valid WAV header followed by `size` bytes in all, so only the size can make it fail. */
function wavOfSize(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size)
  bytes.set(wavBytes().subarray(0, 44))
  return bytes
}

const file = (bytes: Uint8Array<ArrayBuffer>, name: string, type = 'audio/wav') =>
  new File([bytes], name, { type })

describe('checkReference', () => {
  it.each([
    ['a WAV made by server/wav.ts', wavBytes(), 'wav'],
    ['an MP3 stream', mp3Bytes(), 'mp3'],
    ['a WAV of exactly 10 MiB', wavOfSize(MAX_REFERENCE_BYTES), 'wav'],
  ] as const)('accepts %s, telling its format from the bytes', async (_, bytes, format) => {
    expect(await checkReference(new Blob([bytes]), 'clip')).toEqual({ ok: true, format })
  })

  it('refuses what is not audio, whatever its name, and says what is accepted', async () => {
    const result = await checkReference(new Blob([garbage()]), 'notes.wav')
    expect(result).toEqual({
      ok: false,
      message: 'notes.wav is not an audio file the service reads. Use WAV, MP3, OGG, AAC, FLAC, WebM or MP4.',
    })
  })

  it('refuses a clip one byte over 10 MiB, naming its size', async () => {
    const result = await checkReference(new Blob([wavOfSize(MAX_REFERENCE_BYTES + 1)]), 'long.wav')
    expect(result.ok).toBe(false)
    expect(!result.ok && result.message).toBe(
      'long.wav is 10.1 MiB (10,485,761 bytes); a reference clip may be at most 10 MiB. Use a shorter clip, or a compressed format such as MP3, OGG or WebM.',
    )
  })

  it('refuses an empty file', async () => {
    expect(await checkReference(new Blob([]), 'empty.wav')).toMatchObject({ ok: false, message: /empty/ })
  })
})

function Harness({ onChange }: { onChange?: (ref: Reference | null) => void }) {
  const [value, setValue] = useState<Reference | null>(null)
  return (
    <>
      <ReferencePanel
        value={value}
        onChange={(ref) => {
          setValue(ref)
          onChange?.(ref)
        }}
      />
      <output data-testid="transcript">{value?.transcript ?? ''}</output>
    </>
  )
}

const fileInput = () => screen.getByLabelText('Reference clip file') as HTMLInputElement

describe('ReferencePanel', () => {
  // jsdom has no object URLs; the preview needs one for its <audio>.
  beforeEach(() => {
    URL.createObjectURL = vi.fn(() => 'blob:reference')
    URL.revokeObjectURL = vi.fn()
  })
  afterEach(cleanup)

  it('attaches a chosen clip, shows it with a preview, takes its words, and removes it', async () => {
    const user = userEvent.setup()
    const onChange = vi.fn()
    render(<Harness onChange={onChange} />)
    await user.upload(fileInput(), file(wavBytes(), 'ada.wav'))

    await screen.findByText('ada.wav')
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ filename: 'ada.wav', format: 'wav' }))
    expect(screen.getByText(/WAV · 23 KiB/)).toBeTruthy()
    const preview = screen.getByLabelText('Play the reference clip ada.wav') as HTMLAudioElement
    expect(preview.getAttribute('src')).toBe('blob:reference')
    expect(screen.getByText('Reference clip attached: ada.wav, 23 KiB.')).toBeTruthy()

    await user.type(screen.getByLabelText('Exact words spoken in the clip'), 'Hello there.')
    expect(screen.getByTestId('transcript').textContent).toBe('Hello there.')

    await user.click(screen.getByRole('button', { name: 'Remove' }))
    expect(onChange).toHaveBeenLastCalledWith(null)
    expect(screen.queryByText('ada.wav')).toBeNull()
    expect(screen.queryByLabelText('Exact words spoken in the clip')).toBeNull()
    expect(document.activeElement).toBe(fileInput())
    expect(screen.getByText('Reference clip removed.')).toBeTruthy()
  })

  it('refuses a file that is not audio, keeping the clip already attached', async () => {
    const user = userEvent.setup()
    const onChange = vi.fn()
    render(<Harness onChange={onChange} />)
    await user.upload(fileInput(), file(mp3Bytes(), 'take.mp3', 'audio/mpeg'))
    await screen.findByText('take.mp3')
    onChange.mockClear()

    await user.upload(fileInput(), file(garbage(), 'renamed.wav'))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toBe(
      'renamed.wav is not an audio file the service reads. Use WAV, MP3, OGG, AAC, FLAC, WebM or MP4.',
    )
    expect(onChange).not.toHaveBeenCalled()
    expect(screen.getByText('take.mp3')).toBeTruthy()
    expect(fileInput().getAttribute('aria-invalid')).toBe('true')
  })

  it('refuses a clip over 10 MiB with its size in plain words', async () => {
    const user = userEvent.setup()
    const onChange = vi.fn()
    render(<Harness onChange={onChange} />)
    await user.upload(fileInput(), file(wavOfSize(MAX_REFERENCE_BYTES + 1), 'long.wav'))
    expect((await screen.findByRole('alert')).textContent).toMatch(
      /^long\.wav is 10\.1 MiB \(10,485,761 bytes\)/,
    )
    expect(onChange).not.toHaveBeenCalled()
  })

  it('takes a clip dropped on the panel', async () => {
    const onChange = vi.fn()
    render(<Harness onChange={onChange} />)
    fireEvent.drop(screen.getByTestId('reference-dropzone'), {
      dataTransfer: { files: [file(wavBytes(), 'dropped.wav')] },
    })
    await screen.findByText('dropped.wav')
    expect(onChange).toHaveBeenLastCalledWith(
      expect.objectContaining({ filename: 'dropped.wav', format: 'wav' }),
    )
  })

  it('is reached by keyboard: the file field and Record are in the tab order', async () => {
    const user = userEvent.setup()
    render(<Harness />)
    await user.tab()
    expect(document.activeElement).toBe(fileInput())
    await user.tab()
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Record' }))
  })

  it('explains when this browser cannot record, and points at uploading instead', async () => {
    const user = userEvent.setup()
    render(<Harness />)
    await user.click(screen.getByRole('button', { name: 'Record' }))
    await waitFor(() =>
      expect(screen.getByRole('alert').textContent).toBe(
        'This browser cannot record audio. Upload a file instead.',
      ),
    )
  })
})
