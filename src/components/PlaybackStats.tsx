import type { PlayerStats } from '../audio/pcm-player.ts'

const SOURCE_RATE = 24_000

/** Time to first audio in words, wherever the studio shows it (the Playback panel, a take). */
export const formatTimeToFirstAudio = (ms: number | null): string => (ms === null ? '—' : `${ms} ms`)

/** Live counters of the worklet player, readable by people and by tests (`data-stats`). */
export function PlaybackStats({
  stats,
  timeToFirstAudioMs,
}: {
  stats: PlayerStats | null
  timeToFirstAudioMs: number | null
}) {
  return (
    <section aria-label="Playback" className="stats" data-stats={stats ? JSON.stringify(stats) : undefined}>
      <dl>
        <div>
          <dt>Time to first audio</dt>
          <dd data-testid="ttfa">{formatTimeToFirstAudio(timeToFirstAudioMs)}</dd>
        </div>
        <div>
          <dt>Buffered</dt>
          <dd>{stats ? `${Math.round(stats.bufferedMs)} ms` : '—'}</dd>
        </div>
        <div>
          <dt>Underruns</dt>
          <dd>{stats ? stats.underruns : '—'}</dd>
        </div>
        <div>
          <dt>Stretched</dt>
          <dd title="Playback slowed for a moment, by repeating pitch periods, to ride out audio arriving late">
            {stats ? `${Math.round((stats.framesInserted / SOURCE_RATE) * 1000)} ms` : '—'}
          </dd>
        </div>
        <div>
          <dt>Played</dt>
          <dd>
            {stats
              ? `${(stats.framesPlayed / SOURCE_RATE).toFixed(1)} s of ${(stats.framesReceived / SOURCE_RATE).toFixed(1)} s`
              : '—'}
          </dd>
        </div>
      </dl>
    </section>
  )
}
