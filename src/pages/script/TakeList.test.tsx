// @vitest-environment jsdom
import { act, cleanup, render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { RESPONSE_FORMATS } from '../../../schema/index.ts'
import { type FakeAudioContext, fakeContext } from '../../audio/fake-audio-context.ts'
import { TakePlayer } from '../../audio/take-player.ts'
import { formatTimeToFirstAudio } from '../../components/PlaybackStats.tsx'
import { downloadChosen, TakeList } from './TakeList.tsx'
import { type Take, useTakes } from './takes-store.ts'

const LINE = 'ln_line0001'
const REQUEST = { model: 'svc-tts-2-latest', voice: 'alloy', stream: true } as const

/** A take of the line: `ms` of audio counting up from `from`, finished with `status`. */
function addTake(ms: number, status: 'complete' | 'incomplete' = 'complete', from = 1): Take {
  const s = useTakes.getState()
  const id = s.begin(LINE, 'Hello there.', REQUEST)
  s.append(
    id,
    Int16Array.from({ length: ms * 24 }, (_, i) => from + i),
  )
  s.finish(id, status, 150)
  return useTakes.getState().takes.find((t) => t.id === id) as Take
}

let fake: FakeAudioContext
let player: TakePlayer
const describeRequest = (r: Take['request']) => `voice ${String(r.voice)}`

function renderList(onRetry = vi.fn()) {
  render(
    <TakeList
      lineId={LINE}
      lineLabel="Line 1"
      describe={describeRequest}
      onRetry={onRetry}
      player={player}
    />,
  )
  return { onRetry, list: screen.getByRole('region', { name: 'Takes of Line 1' }) }
}

const rows = () => screen.getAllByRole('listitem')

interface Saved {
  blob: Blob
  name: string
}
/** Files the page saved: jsdom has no object URLs and no downloads, so both are caught here. */
let saved: Saved[] = []
let lastBlob: Blob | null = null
const catchDownload = (e: MouseEvent) => {
  if (e.target instanceof HTMLAnchorElement && lastBlob) {
    e.preventDefault()
    saved.push({ blob: lastBlob, name: e.target.download })
  }
}

beforeEach(() => {
  saved = []
  URL.createObjectURL = vi.fn((blob: Blob) => {
    lastBlob = blob
    return 'blob:take'
  })
  URL.revokeObjectURL = vi.fn()
  document.addEventListener('click', catchDownload, true)
  useTakes.setState({ takes: [], dropped: {} })
  const ctx = fakeContext()
  fake = ctx.fake
  player = new TakePlayer(ctx.make)
})
afterEach(() => {
  cleanup()
  document.removeEventListener('click', catchDownload, true)
})

describe('TakeList', () => {
  it('lists the takes newest first with duration, status, settings and a retry for incomplete ones', async () => {
    const first = addTake(1200)
    const broken = addTake(300, 'incomplete')
    const { onRetry } = renderList()
    const [newest, oldest] = rows()
    expect(within(newest as HTMLElement).getByText('Take 2')).toBeTruthy()
    expect(within(newest as HTMLElement).getByText('Incomplete')).toBeTruthy()
    expect(within(newest as HTMLElement).getByText('0.3 s')).toBeTruthy()
    expect(within(oldest as HTMLElement).getByText('Take 1')).toBeTruthy()
    expect(within(oldest as HTMLElement).getByText('1.2 s')).toBeTruthy()
    expect(within(oldest as HTMLElement).getByText('Complete')).toBeTruthy()
    expect(within(oldest as HTMLElement).getByText('voice alloy')).toBeTruthy()
    expect(within(oldest as HTMLElement).queryByRole('button', { name: 'Retry as new take' })).toBeNull()
    expect(
      within(oldest as HTMLElement)
        .getByRole('time')
        .getAttribute('datetime'),
    ).toBe(new Date(first.createdAt).toISOString())
    await userEvent.click(within(newest as HTMLElement).getByRole('button', { name: 'Retry as new take' }))
    expect(onRetry).toHaveBeenCalledWith(expect.objectContaining({ id: broken.id, status: 'incomplete' }))
  })

  it('shows an erased take as its record: the reason and date, no play, no download, no star, no compare', async () => {
    addTake(100)
    const at = Date.UTC(2026, 11, 2, 12)
    useTakes.getState().loadStored([
      {
        id: `tk_${'a'.repeat(32)}`,
        script_id: `scr_${'0'.repeat(32)}`,
        line_id: LINE,
        text: 'Hello there.',
        settings: { model: 'svc-tts-2-latest', voice: { id: 'voice_abc' } },
        reference: false,
        status: 'complete',
        final: false,
        starred: false,
        name: 'Warm read',
        time_to_first_audio_ms: null,
        samples: 24_000,
        created_at: Date.now() + 1,
        erased: { at, reason: 'consent_revoked' },
      },
    ])
    renderList()
    const [erased, kept] = rows() as HTMLElement[]
    const record = within(erased as HTMLElement)
    expect(record.getByText('Audio erased')).toBeTruthy()
    const note = record.getByTestId('take-erased')
    expect(note.textContent).toMatch(/^Audio erased: voice revoked on .*2026.*consent was withdrawn/)
    expect(note.querySelector('time')?.getAttribute('datetime')).toBe(new Date(at).toISOString())
    for (const name of ['Play Warm read', 'Star Warm read', /^Download Warm read/])
      expect(record.queryByRole('button', { name })).toBeNull()
    expect(record.queryByRole('checkbox')).toBeNull()
    // The record can still be renamed or deleted; the other take plays as before.
    expect(record.getByRole('button', { name: 'Delete Warm read' })).toBeTruthy()
    expect(within(kept as HTMLElement).getByRole('button', { name: 'Play take 1' })).toBeTruthy()
    await userEvent.click(within(kept as HTMLElement).getByRole('button', { name: 'Play take 1' }))
    expect(fake.playing).toHaveLength(1)
  })

  it('stars one take per line, never an incomplete one', async () => {
    addTake(100)
    addTake(100)
    addTake(100, 'incomplete')
    renderList()
    const star = (n: number) => screen.getByRole('button', { name: `Star take ${n}` })
    expect(star(3).hasAttribute('disabled')).toBe(true)
    await userEvent.click(star(1))
    expect(star(1).getAttribute('aria-pressed')).toBe('true')
    await userEvent.click(star(2))
    expect(star(2).getAttribute('aria-pressed')).toBe('true')
    expect(star(1).getAttribute('aria-pressed')).toBe('false')
    expect(
      useTakes
        .getState()
        .chosenTakes([LINE])
        .map((t) => t.durationMs),
    ).toEqual([100])
    await userEvent.click(star(2))
    expect(useTakes.getState().chosenTakes([LINE])).toEqual([])
  })

  it('deletes a take and says so', async () => {
    const keep = addTake(100)
    addTake(200)
    renderList()
    await userEvent.click(screen.getByRole('button', { name: 'Delete take 2' }))
    expect(rows()).toHaveLength(1)
    expect(useTakes.getState().takes.map((t) => t.id)).toEqual([keep.id])
    expect(screen.getByRole('status').textContent).toBe('Deleted take 2.')
  })

  it('replays a take with a position bar and pauses it', async () => {
    addTake(2000)
    renderList()
    await userEvent.click(screen.getByRole('button', { name: 'Play take 1' }))
    expect(fake.playing).toHaveLength(1)
    const bar = screen.getByRole('slider', { name: 'Position in take 1' })
    expect(bar.getAttribute('max')).toBe('2')
    act(() => fake.advance(0.5))
    await userEvent.click(screen.getByRole('button', { name: 'Pause take 1' }))
    expect(bar.getAttribute('aria-valuetext')).toBe('0.5 s of 2.0 s')
    expect(screen.getByRole('button', { name: 'Play take 1' })).toBeTruthy()
  })

  it('compares two takes A/B by buttons and by the A and B keys, at the same position', async () => {
    addTake(2000, 'complete', 1)
    addTake(2000, 'complete', 9)
    addTake(2000, 'complete', 17)
    renderList()
    expect(screen.queryByRole('group')).toBeNull()
    await userEvent.click(screen.getByRole('checkbox', { name: 'Compare take 1' }))
    await userEvent.click(screen.getByRole('checkbox', { name: 'Compare take 3' }))
    const ab = screen.getByRole('group', { name: /A\/B: take 1 \(A\) and take 3 \(B\)/ })
    const a = within(ab).getByRole('button', { name: 'A: take 1' })
    const b = within(ab).getByRole('button', { name: 'B: take 3' })
    expect(a.getAttribute('aria-pressed')).toBe('true')
    expect(b.getAttribute('aria-pressed')).toBe('false')

    await userEvent.click(within(ab).getByRole('button', { name: 'Play' }))
    act(() => fake.advance(0.7))
    a.focus()
    await userEvent.keyboard('b')
    expect(b.getAttribute('aria-pressed')).toBe('true')
    expect(a.getAttribute('aria-pressed')).toBe('false')
    const heard = fake.playing.filter((s) => s.stopAt === null)
    expect(heard).toHaveLength(1)
    // Take 3's samples start at 17: the buffer now playing is B's, from the same moment.
    expect(heard[0]?.buffer?.getChannelData()[0]).toBeCloseTo(17 / 32768)
    expect(heard[0]?.offset).toBeCloseTo(0.7)
    await userEvent.click(a)
    expect(a.getAttribute('aria-pressed')).toBe('true')
    expect(player.state.compare).toEqual(expect.objectContaining({ side: 'a' }))

    // Picking a third take replaces the first one picked.
    await userEvent.click(screen.getByRole('checkbox', { name: 'Compare take 2' }))
    expect(screen.getByRole('group', { name: /take 3 \(A\) and take 2 \(B\)/ })).toBeTruthy()
    await userEvent.click(screen.getByRole('button', { name: 'End comparison' }))
    expect(screen.queryByRole('group')).toBeNull()
    expect(player.state.compare).toBeNull()
  })

  it('compares at matched loudness by default: the louder take turned down, heard at once when unticked', async () => {
    /** A 2 s 997 Hz sine of `amplitude` (of full scale): its loudness is known. */
    const sineTake = (amplitude: number) => {
      const s = useTakes.getState()
      const id = s.begin(LINE, 'Hello there.', REQUEST)
      s.append(
        id,
        Int16Array.from({ length: 48_000 }, (_, i) =>
          Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 997 * i) / 24_000)),
        ),
      )
      s.finish(id, 'complete')
    }
    sineTake(0.1)
    sineTake(0.4)
    renderList()
    // 0.1 of full scale reads 20 dB under −3.0 LUFS; four times that 12 dB louder.
    const loudness = screen.getAllByTestId('take-loudness').map((e) => e.textContent)
    expect(loudness).toEqual(['Loudness −11.0 LUFS', 'Loudness −23.1 LUFS'])
    expect(screen.getAllByRole('img', { name: /^Waveform of take [12]$/ })).toHaveLength(2)
    await userEvent.click(screen.getByRole('checkbox', { name: 'Compare take 1' }))
    await userEvent.click(screen.getByRole('checkbox', { name: 'Compare take 2' }))
    const match = screen.getByRole('checkbox', { name: 'Match loudness' })
    expect((match as HTMLInputElement).checked).toBe(true)
    expect(screen.getByTestId('take-match-note').textContent).toBe('B is turned down 12.0 dB to match A.')
    const ab = screen.getByRole('group', { name: /A\/B/ })
    await userEvent.click(within(ab).getByRole('button', { name: 'Play' }))
    const db = (g: number | undefined) => 20 * Math.log10(g ?? 0)
    expect(fake.playing.at(-1)?.gain?.rampTo?.value).toBe(1)
    await userEvent.click(within(ab).getByRole('button', { name: 'B: take 2' }))
    expect(db(fake.playing.at(-1)?.gain?.rampTo?.value)).toBeCloseTo(-12.04, 1)
    await userEvent.click(match)
    expect(fake.playing.at(-1)?.gain?.rampTo?.value).toBe(1)
    expect(screen.getByTestId('take-match-note').textContent).toBe(
      'Playing as they are: B is 12.0 LU louder.',
    )
  })

  it('says which takes were made from other text than the line holds now, and keeps a locked line’s chosen take', async () => {
    const old = addTake(500)
    useTakes.getState().star(old.id)
    const s = useTakes.getState()
    const id = s.begin(LINE, 'Hello there, friend.', REQUEST)
    s.append(id, new Int16Array(2400))
    s.finish(id, 'complete')
    render(
      <TakeList lineId={LINE} lineLabel="Line 1" player={player} lineText="Hello there, friend." locked />,
    )
    const [current, changed] = rows()
    expect(within(current as HTMLElement).queryByText('Text changed since this take')).toBeNull()
    expect(within(changed as HTMLElement).getByText('Text changed since this take')).toBeTruthy()
    expect(within(changed as HTMLElement).getByText('Made from: “Hello there.”')).toBeTruthy()
    // Locked: no star moves, and the chosen take cannot be deleted; the other one can.
    expect(screen.getByRole('button', { name: 'Star take 2' })).toHaveProperty('disabled', true)
    expect(screen.getByRole('button', { name: 'Star take 1' })).toHaveProperty('disabled', true)
    expect(screen.getByRole('button', { name: 'Delete take 1' })).toHaveProperty('disabled', true)
    expect(screen.getByRole('button', { name: 'Delete take 2' })).toHaveProperty('disabled', false)
  })

  it('offers the six formats and downloads a take encoded in the chosen one', async () => {
    const take = addTake(100)
    renderList()
    const select = screen.getByRole('combobox', { name: 'Download format' }) as HTMLSelectElement
    expect(Array.from(select.options, (o) => o.value)).toEqual([...RESPONSE_FORMATS])

    await userEvent.selectOptions(select, 'pcm')
    await userEvent.click(screen.getByRole('button', { name: /^Download take 1 as PCM/ }))
    await vi.waitFor(() => expect(saved).toHaveLength(1))
    expect(saved[0]?.name).toBe('line-1-take-1.pcm')
    expect(new Int16Array(await (saved[0] as Saved).blob.arrayBuffer())).toEqual(take.pcm)

    await userEvent.selectOptions(select, 'wav')
    await userEvent.click(screen.getByRole('button', { name: /^Download take 1 as WAV/ }))
    await vi.waitFor(() => expect(saved).toHaveLength(2))
    const wav = saved[1] as Saved
    expect(wav.name).toBe('line-1-take-1.wav')
    expect(wav.blob.type).toBe('audio/wav')
    expect(wav.blob.size).toBe(44 + take.pcm.byteLength)
    expect(screen.getByRole('status').textContent).toBe('Saved line-1-take-1.wav.')
  })

  it('says when older takes of the line were dropped by the studio’s caps', () => {
    addTake(100)
    useTakes.setState({ dropped: { [LINE]: 2 } })
    renderList()
    expect(
      screen.getByText(/The 2 oldest takes of this line were removed: the studio keeps at most 200 takes/),
    ).toBeTruthy()
    expect(screen.getByText('Take 3')).toBeTruthy()
  })

  it('shows the take’s time to first audio in the Playback panel’s words, and renames a take', async () => {
    const take = addTake(100)
    useTakes.getState().setTimeToFirstAudio(take.id, 740)
    const user = userEvent.setup()
    renderList()
    expect(screen.getByTestId('take-ttfa').textContent).toBe(
      `Time to first audio ${formatTimeToFirstAudio(740)}`,
    )
    await user.click(screen.getByRole('button', { name: 'Rename take 1' }))
    const field = screen.getByRole('textbox', { name: 'New name for take 1' })
    await user.type(field, 'Warm read{Enter}')
    expect(screen.getByRole('button', { name: 'Play Warm read' })).toBeTruthy()
    expect(useTakes.getState().takes[0]?.name).toBe('Warm read')
  })
})

describe('downloadChosen', () => {
  it('saves the chosen takes in line order with 300 ms between them, as one file', async () => {
    const a = { pcm: new Int16Array([1, 2]) }
    const b = { pcm: new Int16Array([3]) }
    await downloadChosen([a, b] as Take[], 'pcm', 'My script')
    expect(saved.map((f) => f.name)).toEqual(['My script.pcm'])
    const samples = new Int16Array(await (saved[0] as Saved).blob.arrayBuffer())
    expect(samples.length).toBe(3 + 300 * 24)
    expect([samples[0], samples[1], samples[2], samples.at(-1)]).toEqual([1, 2, 0, 3])
    await expect(downloadChosen([], 'wav', 'x')).rejects.toThrow(/Star a take/)
  })
})
