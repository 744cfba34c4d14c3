import { useEffect, useMemo, useRef, useState } from 'react'
import WaveSurfer from 'wavesurfer.js'
import RegionsPlugin, { type Region } from 'wavesurfer.js/dist/plugins/regions.esm.js'
import { colorOf, nameOf, regionsInView, regionsOf } from './labels.ts'
import { lanesOf } from './overlaps.ts'
import { type OpenTranscript, useReview } from './review-store.ts'
import { timeAtX } from './turns.ts'

/** A speaker colour as a translucent region fill. */
function fill(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16)
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, 0.3)`
}

export const MAX_ZOOM = 200
/** A region narrower than this many pixels is coalesced with its neighbours (see regionsInView). */
const REGION_MIN_PX = 3
/** The waveform's height; with many speakers it grows so each speaker's row keeps this much at least. */
const WAVE_HEIGHT_PX = 104
const LANE_MIN_PX = 24

function waveHeight(lanes: number): number {
  return Math.max(WAVE_HEIGHT_PX, lanes * LANE_MIN_PX)
}

/** Places a region in its speaker's row (all the height with one row). */
function placeInLane(region: Region, lane: number, lanes: number) {
  const style = region.element?.style
  if (!style) return
  const share = 100 / Math.max(1, lanes)
  style.top = `${Math.max(0, lane) * share}%`
  style.height = `${share}%`
}

/**
 * The recording's waveform (wavesurfer.js), drawn from the stored peaks so a long recording is never decoded, with one
 * region per diarization span in its speaker's colour (after merges, reassignments and splits), each speaker in a row
 * of their own named at its left, so overlapping speech shows as two rows coloured at once. Clicking the waveform or a
 * region seeks to the time clicked; the waveform is the review's player.
 */
export function Waveform({ open }: { open: OpenTranscript }) {
  const containerRef = useRef<HTMLDivElement>(null)
  const audioRef = useRef<HTMLAudioElement>(null)
  const peaks = useReview((s) => s.peaks)
  const peaksFailed = useReview((s) => s.peaksFailed)
  const edits = useReview((s) => s.edits)
  /** Set once the waveform knows the recording's duration: regions added before would be clamped to nothing. */
  const [surfer, setSurfer] = useState<WaveSurfer | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [zoom, setZoom] = useState(0)
  const regionsRef = useRef<{
    plugin: ReturnType<typeof RegionsPlugin.create>
    byId: Map<string, Region>
  } | null>(null)
  const { transcript } = open
  const ready = peaks !== null || peaksFailed

  useEffect(() => {
    const container = containerRef.current
    const media = audioRef.current
    if (!ready || !container || !media) return
    const { setPlayback, setPlayer } = useReview.getState()
    const plugin = RegionsPlugin.create()
    const ws = WaveSurfer.create({
      container,
      media,
      height: WAVE_HEIGHT_PX,
      waveColor: '#8a94a3',
      progressColor: '#1f4e79',
      cursorColor: '#c2410c',
      cursorWidth: 2,
      normalize: true,
      autoScroll: true,
      autoCenter: true,
      dragToSeek: true,
      plugins: [plugin],
      ...(peaks ? { peaks: [peaks.data], duration: peaks.duration } : { url: transcript.audio_url }),
    })
    regionsRef.current = { plugin, byId: new Map() }
    const unsubscribers = [
      ws.on('timeupdate', (time) => setPlayback({ time })),
      ws.on('play', () => setPlayback({ playing: true })),
      ws.on('pause', () => setPlayback({ playing: false })),
      ws.on('finish', () => setPlayback({ playing: false })),
      ws.on('error', (err) => setError(err.message)),
      ws.on('ready', () => setSurfer(ws)),
      // A click on a region seeks to where it was clicked, as a click anywhere else on the waveform does.
      plugin.on('region-clicked', (_region, event) => {
        event.stopPropagation()
        ws.setTime(timeAtX(event.clientX, ws.getWrapper().getBoundingClientRect(), ws.getDuration()))
      }),
    ]
    setPlayer({
      seek: (t) => ws.setTime(t),
      play: () => void ws.play().catch((err: Error) => setError(err.message)),
      pause: () => ws.pause(),
      setRate: (rate) => ws.setPlaybackRate(rate, true),
      togglePlay: () => void ws.playPause().catch((err: Error) => setError(err.message)),
      skip: (s) =>
        ws.setTime(
          Math.min(Math.max(0, ws.getCurrentTime() + s), ws.getDuration() || Number.POSITIVE_INFINITY),
        ),
      currentTime: () => ws.getCurrentTime(),
    })
    ws.setPlaybackRate(useReview.getState().rate, true)
    return () => {
      for (const off of unsubscribers) off()
      setPlayer(null)
      regionsRef.current = null
      setSurfer(null)
      ws.destroy()
    }
  }, [ready, peaks, transcript.audio_url])

  // Regions: the spans after edits, drawn for the part of the recording in view (and as much again around it). Seen
  // whole, a long recording's thousands of spans are coalesced to a few per pixel column (regionsInView), so the
  // waveform never holds more regions than it has room for; they follow scrolling and zooming.
  const allRegions = useMemo(
    () => regionsOf(transcript.result, open.entries, edits).sort((a, b) => a.start - b.start),
    [transcript.result, open.entries, edits],
  )
  const lanes = useMemo(() => lanesOf(open.speakers, allRegions), [open.speakers, allRegions])
  const height = waveHeight(lanes.length)
  useEffect(() => {
    surfer?.setOptions({ height })
  }, [surfer, height])
  useEffect(() => {
    const regions = regionsRef.current
    if (!surfer || !regions) return
    let lastKey = ''
    let frame = 0
    const sync = () => {
      frame = 0
      const duration = surfer.getDuration()
      const wrapperWidth = surfer.getWrapper().clientWidth
      const viewWidth = surfer.getWidth()
      if (!duration || !wrapperWidth || !viewWidth) return
      const viewStart = (surfer.getScroll() / wrapperWidth) * duration
      const viewLength = Math.min(duration, (viewWidth / wrapperWidth) * duration)
      // A window on a grid of half views, so it changes only when the view has moved that far.
      const step = Math.max(1, viewLength / 2)
      const from = Math.max(0, Math.floor((viewStart - viewLength / 2) / step) * step)
      const to = Math.min(duration, from + viewLength * 2 + step)
      const budget = Math.max(20, Math.round(((to - from) / viewLength) * (viewWidth / REGION_MIN_PX)))
      const key = `${from}:${to}:${budget}`
      if (key === lastKey) return
      lastKey = key
      const wanted = regionsInView(allRegions, from, to, budget)
      const keep = new Set(wanted.map((r) => r.id))
      for (const [id, region] of regions.byId) {
        if (!keep.has(id)) {
          region.remove()
          regions.byId.delete(id)
        }
      }
      for (const r of wanted) {
        const color = fill(colorOf(open.speakers, r.speaker))
        const lane = lanes.indexOf(r.speaker)
        const existing = regions.byId.get(r.id)
        if (!existing) {
          const region = regions.plugin.addRegion({
            id: r.id,
            start: r.start,
            end: r.end,
            color,
            drag: false,
            resize: false,
          })
          region.element?.setAttribute('title', nameOf(edits, r.speaker))
          placeInLane(region, lane, lanes.length)
          regions.byId.set(r.id, region)
        } else {
          if (existing.start !== r.start || existing.end !== r.end)
            existing.setOptions({ start: r.start, end: r.end })
          if (existing.color !== color) existing.setOptions({ color })
          existing.element?.setAttribute('title', nameOf(edits, r.speaker))
          placeInLane(existing, lane, lanes.length)
        }
      }
    }
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(sync)
    }
    sync()
    const offs = [surfer.on('scroll', schedule), surfer.on('zoom', schedule), surfer.on('resize', schedule)]
    return () => {
      if (frame) cancelAnimationFrame(frame)
      for (const off of offs) off()
    }
  }, [surfer, allRegions, edits, open.speakers, lanes])

  useEffect(() => {
    if (surfer?.getDecodedData()) surfer.zoom(zoom)
  }, [surfer, zoom])

  return (
    <div className="waveform-block">
      {/* The player's media element; wavesurfer drives it. */}
      {/* biome-ignore lint/a11y/useMediaCaption: transcripts are this page; the turns list is the caption */}
      <audio ref={audioRef} src={transcript.audio_url} preload="auto" />
      <figure className="waveform-figure">
        <div ref={containerRef} className="waveform" />
        {lanes.length > 1 && (
          // The rows' names over the waveform's left edge, for the eye; the key below says the same in words.
          <ol className="lane-labels" aria-hidden="true" style={{ height }}>
            {lanes.map((id, i) => (
              <li
                key={id ?? '@nobody'}
                style={{
                  top: `${(i * 100) / lanes.length}%`,
                  borderLeftColor: colorOf(open.speakers, id),
                }}
              >
                {nameOf(edits, id)}
              </li>
            ))}
          </ol>
        )}
        <figcaption className="visually-hidden">
          Waveform of the recording: click to seek; coloured regions are the speakers' spans
          {lanes.length > 1 ? ', one row per speaker.' : '.'}
        </figcaption>
      </figure>
      {lanes.length > 1 && (
        <p className="muted lane-key" data-testid="lane-key">
          One row per speaker, from the top: {lanes.map((id) => nameOf(edits, id)).join(', ')}. Two rows
          coloured at the same moment are two people talking at once; the turn then says who else is speaking.
        </p>
      )}
      {!ready && <p className="muted">Measuring the waveform…</p>}
      {error && (
        <p role="alert" className="form-error">
          The recording could not be played: {error}
        </p>
      )}
      <label className="zoom">
        Zoom
        <input
          type="range"
          min={0}
          max={MAX_ZOOM}
          step={10}
          value={zoom}
          onChange={(e) => setZoom(Number(e.target.value))}
          aria-valuetext={zoom === 0 ? 'whole recording' : `${zoom} pixels per second`}
          disabled={!surfer}
        />
      </label>
    </div>
  )
}
