import { type FormEvent, type KeyboardEvent, useEffect, useMemo, useState } from 'react'
import { formatBytes } from '../../../core/bytes.ts'
import { matchedGains } from '../../../core/loudness.ts'
import {
  DEFAULT_MODEL,
  MAX_TAKE_BYTES_PER_USER,
  MAX_TAKE_NAME_CHARS,
  MAX_TAKES_PER_USER,
  RESPONSE_FORMATS,
  type ResponseFormat,
  type SpeechRequest,
} from '../../../schema/index.ts'
import { explainError } from '../../api/error-text.ts'
import { encodePcm, fileNameFor } from '../../audio/encode-browser.ts'
import {
  type Gains,
  type Side,
  sharedTakePlayer,
  type TakePlayer,
  useTakePlayer,
} from '../../audio/take-player.ts'
import { formatTimeToFirstAudio } from '../../components/PlaybackStats.tsx'
import { saveBlob } from '../../components/saveBlob.ts'
import { Waveform } from '../../components/Waveform.tsx'
import { describeSettings } from './settings.ts'
import { TEXT_CHANGED, textChanged } from './take-currency.ts'
import { ensureAudio, removeTake, renameTake, starTake } from './take-history.ts'
import { formatLoudness, noLoudnessReason, takeLoudness } from './take-loudness.ts'
import { joinTakes, type Take, takesOfLine, useTakes } from './takes-store.ts'
import './takes.css'

/**
 * One line's takes, as the backend keeps them: replay, rename, star the chosen one, compare two A/B, download in any
 * of the six formats. A stored take's audio is fetched when it is first needed.
 */

export const FORMAT_LABELS: Record<ResponseFormat, string> = {
  mp3: 'MP3',
  wav: 'WAV (24 kHz, 16-bit)',
  flac: 'FLAC (lossless)',
  aac: 'AAC (ADTS)',
  opus: 'Opus (Ogg)',
  pcm: 'PCM (raw 16-bit little-endian, 24 kHz)',
}

/** The take's settings in the words of the settings form ("svc-tts-2-latest · eleanor… · expressive"). */
export function describeRequest(request: Omit<SpeechRequest, 'input'>): string {
  const { voice } = request
  return describeSettings({
    model: request.model ?? DEFAULT_MODEL,
    voice: typeof voice === 'string' ? voice : voice && 'id' in voice ? voice.id : 'reference clip',
    speed: request.speed,
    mode: request.mode,
    temperature: request.temperature ?? undefined,
    top_p: request.top_p ?? undefined,
    top_k: request.top_k ?? undefined,
    min_p: request.min_p ?? undefined,
    max_new_tokens: request.max_new_tokens ?? undefined,
  })
}

/** The script's chosen takes, in line order with a short silence between lines, as one file. */
export async function downloadChosen(
  takes: readonly Take[],
  format: ResponseFormat,
  fileName: string,
): Promise<void> {
  if (takes.length === 0) throw new Error('Star a take of at least one line first.')
  const audio = await Promise.all(takes.map(async (t) => ({ pcm: await ensureAudio(t) })))
  saveBlob(await encodePcm(joinTakes(audio), format), fileNameFor(fileName, format))
}

const seconds = (s: number) => `${s.toFixed(1)} s`
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')

const ERASURE_CAUSE: Record<NonNullable<Take['erased']>['reason'], string> = {
  consent_revoked: 'its owner’s consent was withdrawn',
  voice_deleted: 'the saved voice was deleted',
  voice_gone: 'the speech service no longer has the saved voice',
}

/** "Audio erased: voice revoked on 2 December 2026", with why, as the take's record says it. */
export function ErasedNote({ erased }: { erased: NonNullable<Take['erased']> }) {
  const at = new Date(erased.at)
  return (
    <p className="take-erased" data-testid="take-erased">
      Audio erased: voice revoked on{' '}
      <time dateTime={at.toISOString()}>
        {at.toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' })}
      </time>{' '}
      ({ERASURE_CAUSE[erased.reason]}). The take is kept as a record only; it cannot be played or downloaded.
    </p>
  )
}

const STATUS_TEXT: Record<Take['status'], string> = {
  recording: 'Recording…',
  complete: 'Complete',
  incomplete: 'Incomplete',
}

/** A labelled choice of the six response formats (contract 2.6). */
export function FormatSelect({
  label,
  value,
  onChange,
}: {
  label: string
  value: ResponseFormat
  onChange: (format: ResponseFormat) => void
}) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value as ResponseFormat)}>
        {RESPONSE_FORMATS.map((f) => (
          <option key={f} value={f}>
            {FORMAT_LABELS[f]}
          </option>
        ))}
      </select>
    </label>
  )
}

export interface TakeListProps {
  lineId: string
  /** How the line is named to assistive technology and in file names, e.g. "Line 3". */
  lineLabel: string
  /** A short summary of a take's settings; the settings form's wording by default. */
  describe?: (request: Omit<SpeechRequest, 'input'>) => string
  /** Offered on incomplete takes: generate the line again as a new take. */
  onRetry?: (take: Take) => void
  /** The page's shared player by default. */
  player?: TakePlayer
  /** The line's text now: a take made from other text says so. */
  lineText?: string
  /** A locked line keeps its chosen take: its star cannot move and that take cannot be deleted. */
  locked?: boolean
}

/** The gains that play two takes at the same loudness, or as they are. */
function comparisonGains(a: Take, b: Take, match: boolean): Gains {
  return match ? matchedGains(takeLoudness(a), takeLoudness(b)) : { a: 1, b: 1 }
}

export function TakeList({
  lineId,
  lineLabel,
  describe = describeRequest,
  onRetry,
  player = sharedTakePlayer(),
  lineText,
  locked = false,
}: TakeListProps) {
  const all = useTakes((s) => s.takes)
  const dropped = useTakes((s) => s.dropped[lineId] ?? 0)
  const takes = useMemo(() => takesOfLine(all, lineId), [all, lineId])
  const playback = useTakePlayer(player)
  const [format, setFormat] = useState<ResponseFormat>('wav')
  const [encoding, setEncoding] = useState<string | null>(null)
  const [message, setMessage] = useState('')
  /** Ids picked for A/B, in the order picked; at most two. */
  const [picked, setPicked] = useState<string[]>([])
  const [renaming, setRenaming] = useState<string | null>(null)
  /** A/B at matched loudness, unless the designer wants to hear the difference. */
  const [matchLoudness, setMatchLoudness] = useState(true)

  /** Takes are numbered in the order they were made; dropped ones were the oldest. */
  const numberOf = (take: Take) => dropped + takes.length - takes.indexOf(take)
  const nameOf = (take: Take) => take.name ?? `take ${numberOf(take)}`
  /** The take with its audio here (fetched from the backend the first time). */
  const withAudio = async (take: Take): Promise<Take> => {
    const pcm = await ensureAudio(take)
    return { ...(useTakes.getState().takes.find((t) => t.id === take.id) ?? take), pcm }
  }
  const tell = (what: string) => (err: unknown) => setMessage(`${what}: ${explainError(err).title}`)
  // An erased take has no audio to compare.
  const pair = picked
    .map((id) => takes.find((t) => t.id === id))
    .filter((t) => t !== undefined && t.erased === null)
  const comparing = pair.length === 2 ? pair : null

  const togglePick = (take: Take, on: boolean) => {
    const next = on ? [...picked, take.id].slice(-2) : picked.filter((id) => id !== take.id)
    setPicked(next)
    const [a, b] = next.map((id) => takes.find((t) => t.id === id))
    if (a && b)
      void Promise.all([withAudio(a), withAudio(b)]).then(
        ([x, y]) => player.compare(x, y, comparisonGains(x, y, matchLoudness)),
        tell('Could not load the takes'),
      )
    else player.endCompare()
  }

  const download = async (take: Take) => {
    setEncoding(take.id)
    setMessage(`Encoding ${nameOf(take)} as ${FORMAT_LABELS[format]}…`)
    try {
      const name = fileNameFor(`${slug(lineLabel) || 'line'}-${slug(nameOf(take))}`, format)
      saveBlob(await encodePcm((await withAudio(take)).pcm, format), name)
      setMessage(`Saved ${name}.`)
    } catch (err) {
      setMessage(`Could not encode ${nameOf(take)}: ${(err as Error).message}`)
    } finally {
      setEncoding(null)
    }
  }

  const del = (take: Take) => {
    player.unload(take.id)
    setPicked((p) => p.filter((id) => id !== take.id))
    const name = nameOf(take)
    setMessage(`Deleted ${name}.`)
    removeTake(take.id).catch(tell(`Could not delete ${name}`))
  }

  const rename = (take: Take, e: FormEvent<HTMLFormElement>) => {
    e.preventDefault()
    const value = new FormData(e.currentTarget).get('name')
    setRenaming(null)
    renameTake(take.id, typeof value === 'string' ? value : null).catch(
      tell(`Could not rename ${nameOf(take)}`),
    )
  }

  const play = (take: Take) =>
    withAudio(take).then((t) => player.play(t), tell(`Could not load ${nameOf(take)}`))

  return (
    <section className="take-list" aria-label={`Takes of ${lineLabel}`}>
      <div className="take-list-bar">
        <FormatSelect label="Download format" value={format} onChange={setFormat} />
        {takes.length >= 2 && <p className="hint">Tick Compare on two takes to hear them A/B.</p>}
      </div>
      {dropped > 0 && (
        <p className="take-notice" role="status">
          {dropped === 1 ? 'The oldest take' : `The ${dropped} oldest takes`} of this line{' '}
          {dropped === 1 ? 'was' : 'were'} removed: the studio keeps at most {MAX_TAKES_PER_USER} takes and{' '}
          {formatBytes(MAX_TAKE_BYTES_PER_USER)} of audio per designer. Starred takes are always kept.
        </p>
      )}
      {takes.length === 0 ? (
        <p className="hint">No takes yet.</p>
      ) : (
        <ol className="takes">
          {takes.map((take) => {
            const name = nameOf(take)
            const loaded = playback.takeId === take.id
            const playing = loaded && playback.playing
            const recording = take.status === 'recording'
            const saving = !recording && take.storedId === null && take.saveError === null
            const erased = take.erased !== null
            const changed = lineText !== undefined && textChanged(take, { text: lineText })
            const lufs = takeLoudness(take)
            const keptByLock = locked && take.starred
            return (
              <li
                key={take.id}
                className={`take${take.starred ? ' take-starred' : ''}${erased ? ' take-is-erased' : ''}`}
                data-stored={take.storedId !== null}
              >
                <div className="take-head">
                  {renaming === take.id ? (
                    <form className="take-rename" onSubmit={(e) => rename(take, e)}>
                      <input
                        name="name"
                        defaultValue={take.name ?? ''}
                        maxLength={MAX_TAKE_NAME_CHARS}
                        aria-label={`New name for ${name}`}
                        // biome-ignore lint/a11y/noAutofocus: the field appears because Rename was pressed
                        autoFocus
                        onKeyDown={(e) => e.key === 'Escape' && setRenaming(null)}
                      />
                      <button type="submit">Save name</button>
                    </form>
                  ) : (
                    <span className="take-name">{name[0]?.toUpperCase() + name.slice(1)}</span>
                  )}
                  <time dateTime={new Date(take.createdAt).toISOString()}>
                    {new Date(take.createdAt).toLocaleTimeString()}
                  </time>
                  <span>{seconds(take.durationMs / 1000)}</span>
                  <span data-testid="take-loudness">
                    {lufs !== null && Number.isFinite(lufs)
                      ? `Loudness ${formatLoudness(lufs)}`
                      : `Loudness — (${noLoudnessReason(take)})`}
                  </span>
                  <span className={`take-badge take-${take.status}`}>{STATUS_TEXT[take.status]}</span>
                  {erased && <span className="take-badge take-badge-erased">Audio erased</span>}
                  {take.starred && <span className="take-badge take-badge-chosen">Chosen</span>}
                  {take.final && <span className="take-badge">Final render</span>}
                  {changed && <span className="take-badge take-badge-changed">{TEXT_CHANGED}</span>}
                  {take.timeToFirstAudioMs !== null && (
                    <span className="hint" data-testid="take-ttfa">
                      Time to first audio {formatTimeToFirstAudio(take.timeToFirstAudioMs)}
                    </span>
                  )}
                  {saving && <span className="hint">Saving…</span>}
                  {take.saveError && (
                    <span className="take-unsaved">Not kept by the studio: {take.saveError}</span>
                  )}
                </div>
                <p className="take-settings">{describe(take.request)}</p>
                {changed && <p className="take-changed-text">Made from: “{take.text}”</p>}
                {!erased && take.audioReady && take.pcm.length > 0 && (
                  <Waveform
                    pcm={take.pcm}
                    label={`Waveform of ${name}`}
                    progress={loaded && playback.duration > 0 ? playback.position / playback.duration : null}
                  />
                )}
                {take.erased && <ErasedNote erased={take.erased} />}
                {take.status === 'incomplete' && !erased && (
                  <p className="take-incomplete">
                    The stream broke before the end; this take holds only what arrived and is never continued.
                    {onRetry && (
                      <button type="button" onClick={() => onRetry(take)}>
                        Retry as new take
                      </button>
                    )}
                  </p>
                )}
                <div className="take-actions">
                  {!erased && (
                    <>
                      <button
                        type="button"
                        disabled={recording}
                        aria-label={`${playing ? 'Pause' : 'Play'} ${name}`}
                        onClick={() => (playing ? player.pause() : void play(take))}
                      >
                        {playing ? 'Pause' : 'Play'}
                      </button>
                      {loaded && (
                        <span className="take-progress">
                          <input
                            type="range"
                            min={0}
                            max={playback.duration}
                            step={0.1}
                            value={Math.min(playback.position, playback.duration)}
                            aria-label={`Position in ${name}`}
                            aria-valuetext={`${seconds(playback.position)} of ${seconds(playback.duration)}`}
                            onChange={(e) => player.seek(Number(e.target.value))}
                          />
                          <span aria-hidden="true">
                            {seconds(playback.position)} / {seconds(playback.duration)}
                          </span>
                        </span>
                      )}
                      <button
                        type="button"
                        aria-pressed={take.starred}
                        disabled={take.status !== 'complete' || locked}
                        title={
                          locked
                            ? 'The line is locked: unlock it to choose another take'
                            : take.status === 'complete'
                              ? undefined
                              : 'Only a complete take can be chosen'
                        }
                        aria-label={`Star ${name}`}
                        onClick={() => starTake(take.id, !take.starred).catch(tell(`Could not star ${name}`))}
                      >
                        {/* The name stays "Star …" (a toggle, aria-pressed); the filled star shows it is chosen. */}
                        {take.starred ? '★ Star' : '☆ Star'}
                      </button>
                      <label className="take-pick">
                        <input
                          type="checkbox"
                          disabled={recording}
                          checked={picked.includes(take.id)}
                          onChange={(e) => togglePick(take, e.target.checked)}
                        />
                        Compare <span className="visually-hidden">{name}</span>
                      </label>
                      <button
                        type="button"
                        disabled={recording || take.durationMs === 0 || encoding !== null}
                        aria-label={`Download ${name} as ${FORMAT_LABELS[format]}`}
                        onClick={() => void download(take)}
                      >
                        {encoding === take.id ? 'Encoding…' : 'Download'}
                      </button>
                    </>
                  )}
                  <button
                    type="button"
                    disabled={recording}
                    aria-label={`Rename ${name}`}
                    onClick={() => setRenaming(take.id)}
                  >
                    Rename
                  </button>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Delete ${name}`}
                    disabled={keptByLock}
                    title={keptByLock ? 'The line is locked: its chosen take is kept' : undefined}
                    onClick={() => del(take)}
                  >
                    Delete
                  </button>
                </div>
              </li>
            )
          })}
        </ol>
      )}
      {comparing && (
        <Compare
          a={comparing[0] as Take}
          b={comparing[1] as Take}
          nameOf={nameOf}
          player={player}
          playback={playback}
          matchLoudness={matchLoudness}
          onMatchLoudness={setMatchLoudness}
          onEnd={() => {
            setPicked([])
            player.endCompare()
          }}
        />
      )}
      <p className="take-message" role="status">
        {message}
      </p>
    </section>
  )
}

function Compare({
  a,
  b,
  nameOf,
  player,
  playback,
  matchLoudness,
  onMatchLoudness,
  onEnd,
}: {
  a: Take
  b: Take
  nameOf: (t: Take) => string
  player: TakePlayer
  playback: ReturnType<typeof useTakePlayer>
  matchLoudness: boolean
  onMatchLoudness: (on: boolean) => void
  onEnd: () => void
}) {
  const armed = playback.compare?.a === a.id && playback.compare?.b === b.id
  const side: Side = armed && playback.compare ? playback.compare.side : 'a'
  const gains = comparisonGains(a, b, matchLoudness)
  // Playing another take meanwhile ended the comparison in the player; any control here takes it up again.
  const arm = () => {
    if (!armed) player.compare(a, b, gains)
  }
  // Ticked or unticked, or a take's loudness known meanwhile: heard at once, at the same position.
  const { a: gainA, b: gainB } = gains
  useEffect(() => {
    if (armed) player.setGains({ a: gainA, b: gainB })
  }, [armed, player, gainA, gainB])
  const la = takeLoudness(a)
  const lb = takeLoudness(b)
  const canMatch = la !== null && lb !== null && Number.isFinite(la) && Number.isFinite(lb)
  const quieter = canMatch && (la as number) < (lb as number) ? 'a' : 'b'
  const matchNote = !canMatch
    ? 'Both play as they are: the loudness of one take is not known.'
    : !matchLoudness
      ? `Playing as they are: ${quieter === 'a' ? 'B' : 'A'} is ${Math.abs((la as number) - (lb as number)).toFixed(1)} LU louder.`
      : la === lb
        ? 'Both are already at the same loudness.'
        : `${quieter === 'a' ? 'B' : 'A'} is turned down ${Math.abs((la as number) - (lb as number)).toFixed(1)} dB to match ${quieter.toUpperCase()}.`
  const switchTo = (to: Side) => {
    arm()
    player.switchTo(to)
  }
  const onKeyDown = (e: KeyboardEvent<HTMLFieldSetElement>) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return
    const key = e.key.toLowerCase()
    if (key !== 'a' && key !== 'b') return
    e.preventDefault()
    switchTo(key)
  }
  const playing = armed && playback.playing
  const position = armed ? playback.position : 0
  const duration = armed ? playback.duration : a.durationMs / 1000

  return (
    <fieldset className="take-compare" onKeyDown={onKeyDown}>
      <legend className="take-compare-title">
        A/B: {nameOf(a)} (A) and {nameOf(b)} (B). Press A or B to switch at the same moment.
      </legend>
      <div className="take-actions">
        {(['a', 'b'] as const).map((s) => (
          <button
            key={s}
            type="button"
            className="take-side"
            aria-pressed={side === s}
            onClick={() => switchTo(s)}
          >
            {s.toUpperCase()}: {nameOf(s === 'a' ? a : b)}
          </button>
        ))}
        <button
          type="button"
          onClick={() => {
            arm()
            if (playing) player.pause()
            else player.play(side === 'a' ? a : b)
          }}
        >
          {playing ? 'Pause' : 'Play'}
        </button>
        <input
          type="range"
          min={0}
          max={duration}
          step={0.1}
          value={Math.min(position, duration)}
          aria-label="Position in the comparison"
          aria-valuetext={`${seconds(position)} of ${seconds(duration)}`}
          onChange={(e) => {
            arm()
            player.seek(Number(e.target.value))
          }}
        />
        <button type="button" onClick={onEnd}>
          End comparison
        </button>
      </div>
      <label className="take-match">
        <input
          type="checkbox"
          checked={matchLoudness}
          onChange={(e) => onMatchLoudness(e.target.checked)}
          aria-describedby="take-match-note"
        />
        Match loudness
      </label>
      <p id="take-match-note" className="hint" data-testid="take-match-note">
        {matchNote}
      </p>
    </fieldset>
  )
}
