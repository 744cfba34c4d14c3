import { registerAacEncoder } from '@mediabunny/aac-encoder'
import { registerFlacEncoder } from '@mediabunny/flac-encoder'
import { registerMp3Encoder } from '@mediabunny/mp3-encoder'
import {
  AdtsOutputFormat,
  AppendOnlyStreamTarget,
  type AudioCodec,
  AudioSample,
  AudioSampleSource,
  BufferTarget,
  FlacOutputFormat,
  Mp3OutputFormat,
  OggOutputFormat,
  Output,
  type OutputFormat,
  Quality,
} from 'mediabunny'
import { OUTPUT_SAMPLE_RATE } from '../synthesizer.ts'
import { registerOpusEncoder } from './opus.ts'
import { holdSpares, primeFlac, registerWarmEncoders } from './warm.ts'

/** Streaming encoders for the compressed response formats (contract 2.6), built on mediabunny's muxers. */

export type CompressedFormat = 'mp3' | 'opus' | 'aac' | 'flac'

// Node has no WebCodecs, so every codec comes from a WASM encoder registered with mediabunny. The mp3, aac and flac
// encoders each start a worker thread with its own WASM codec; warm.ts keeps one started ahead of the next request.
registerWarmEncoders(
  { mp3: registerMp3Encoder, aac: registerAacEncoder, flac: registerFlacEncoder },
  { flac: primeFlac },
)
registerOpusEncoder()

/** Ogg pages of at most 0.1 s: about 5 Opus packets share each page's 27-byte header, and none waits longer. */
const PAGE_SECONDS = 0.1

/**
 * Ogg for a stream: pages of 0.1 s, except the first audio page, which holds only the first packet (20 ms). The muxer
 * writes a packet once the next one exists (it must know which is last) and ends a page when the packet it places
 * would make it too long, so the first audio page now leaves once 3 packets are encoded (60 ms of speech) instead of
 * 7 (140 ms).
 */
function streamingOgg(): OggOutputFormat {
  // OpusHead and OpusTags take the first two pages.
  let pages = 0
  return new OggOutputFormat({
    onPage: () => {
      pages++
    },
    // mediabunny reads this for every packet it places, so it can change after the first audio page.
    get maximumPageDuration() {
      return pages < 3 ? 0.02 : PAGE_SECONDS
    },
  })
}

interface FormatSetup {
  codec: AudioCodec
  /** Bits per second for the lossy codecs; sized for speech. */
  bitrate?: number
  /** The container of a stream: set up to only append, so what is yielded, concatenated, is the whole file. */
  container: () => OutputFormat
  /** The container of a complete file, which may go back to its start once the length is known. */
  file: () => OutputFormat
}

const FORMATS: Record<CompressedFormat, FormatSetup> = {
  // A stream has no Xing frame (it is patched in at the start once encoding ends); a complete file has one.
  mp3: {
    codec: 'mp3',
    bitrate: 64_000,
    container: () => new Mp3OutputFormat({ xingHeader: false }),
    file: () => new Mp3OutputFormat(),
  },
  // By default a page is only written once it holds kilobytes, i.e. seconds of speech.
  opus: {
    codec: 'opus',
    bitrate: 32_000,
    container: streamingOgg,
    file: () => new OggOutputFormat({ maximumPageDuration: PAGE_SECONDS }),
  },
  aac: {
    codec: 'aac',
    bitrate: 64_000,
    container: () => new AdtsOutputFormat(),
    file: () => new AdtsOutputFormat(),
  },
  // A stream's STREAMINFO leaves the total length unknown (0), as in any streamed FLAC; a complete file states it.
  flac: {
    codec: 'flac',
    container: () => new FlacOutputFormat({ appendOnly: true }),
    file: () => new FlacOutputFormat(),
  },
}

/** The encoder settings of a format: what warm.ts prepares encoders for. */
export function encoderSettings(format: CompressedFormat, sampleRate = OUTPUT_SAMPLE_RATE) {
  const { codec, bitrate } = FORMATS[format]
  return { codec, bitrate, sampleRate, numberOfChannels: 1 }
}

/**
 * Encodes 24 kHz mono PCM16 chunks as they arrive; yields container bytes as soon as the encoder emits them (not
 * after the end). Concatenating everything yielded is one playable file. Chunks are encoded after they are handed
 * over, so the producer must not reuse their buffers.
 */
export async function* encodeCompressed(
  format: CompressedFormat,
  pcm: AsyncIterable<Int16Array>,
  opts: { sampleRate?: number; signal?: AbortSignal } = {},
): AsyncGenerator<Uint8Array> {
  const { sampleRate = OUTPUT_SAMPLE_RATE, signal } = opts
  signal?.throwIfAborted()
  const { codec, bitrate, container } = FORMATS[format]

  let fail: (reason: unknown) => void = () => {}
  // The muxer's bytes leave through this stream. Its queue holds about one write, so a slow consumer holds back
  // the muxer, the encoder and, through `source.add`, the reading of `pcm`.
  const bytes = new TransformStream<Uint8Array, Uint8Array>({
    start: (controller) => {
      fail = (reason) => controller.error(reason)
    },
  })
  const output = new Output({ format: container(), target: new AppendOnlyStreamTarget(bytes.writable) })
  const source = audioSource(codec, bitrate)
  output.addAudioTrack(source)

  let stopping: Promise<void> | undefined
  /** Ends early: the reader wakes with `reason`, and cancelling the output closes the encoder. */
  const stop = (reason: unknown): Promise<void> => {
    stopping ??= (async () => {
      fail(reason)
      if (output.state !== 'finalized') await output.cancel().catch(() => {})
    })()
    return stopping
  }

  const pump = (async () => {
    await output.start()
    let frames = 0
    for await (const chunk of pcm) {
      if (stopping) return
      if (chunk.length === 0) continue
      const sample = new AudioSample({
        data: chunk,
        format: 's16',
        numberOfChannels: 1,
        sampleRate,
        timestamp: frames / sampleRate,
      })
      frames += chunk.length
      await source.add(sample).finally(() => sample.close())
    }
    // mediabunny refuses to finalize a file without audio, so no input ends as no bytes.
    if (frames === 0) await output.cancel()
    else await output.finalize()
  })()
  // A failure (bad input, encoder error) reaches the consumer through the reader; `await pump` below rethrows it
  // should the stream have closed first.
  pump.catch(stop)

  const onAbort = () => void stop(signal?.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  const reader = bytes.readable.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      yield value
    }
    await pump
  } finally {
    signal?.removeEventListener('abort', onAbort)
    // After a normal end there is nothing left to stop; otherwise the consumer left early or the stream failed.
    await stop(new Error('Encoding stopped'))
  }
}

function audioSource(codec: AudioCodec, bitrate: number | undefined): AudioSampleSource {
  return new AudioSampleSource({
    codec,
    ...(bitrate === undefined ? {} : { quality: new Quality({ bitrate }) }),
  })
}

/**
 * One complete file of `pcm` (24 kHz mono PCM16 unless `sampleRate` says otherwise), with what only a complete file
 * can carry: FLAC's total sample count in STREAMINFO, MP3's Xing frame. Empty input gives no bytes.
 */
export async function encodeWhole(
  format: CompressedFormat,
  pcm: Int16Array,
  opts: { sampleRate?: number; signal?: AbortSignal } = {},
): Promise<Uint8Array> {
  const { sampleRate = OUTPUT_SAMPLE_RATE, signal } = opts
  signal?.throwIfAborted()
  if (pcm.length === 0) return new Uint8Array(0)
  const { codec, bitrate, file } = FORMATS[format]
  const target = new BufferTarget()
  const output = new Output({ format: file(), target })
  const source = audioSource(codec, bitrate)
  output.addAudioTrack(source)
  const onAbort = () => void output.cancel().catch(() => {})
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    await output.start()
    const sample = new AudioSample({
      data: pcm,
      format: 's16',
      numberOfChannels: 1,
      sampleRate,
      timestamp: 0,
    })
    await source.add(sample).finally(() => sample.close())
    await output.finalize()
    signal?.throwIfAborted()
    return new Uint8Array(target.buffer as ArrayBuffer)
  } finally {
    signal?.removeEventListener('abort', onAbort)
    if (output.state !== 'finalized') await output.cancel().catch(() => {})
  }
}

/**
 * Starts every format's encoder ahead of requests — the mp3, aac and flac worker threads with their WASM codecs, the
 * Opus codec — by encoding 3 s of sound in each, and keeps one started encoder of each format ready from then on
 * (warm.ts). The returned function releases the hold; the speech service holds it from start to close.
 *
 * Seconds, not a moment, and sound, not silence: libopus runs in this thread, and V8 compiles a WASM function fully
 * only once it has run for a while. After 50 ms of silence the first request's Opus encoding cost 3–4× the CPU of
 * later ones. In a started service, the first Opus request's first byte came after a median 50 ms with 1 s of
 * warm-up and 25 ms with 3 s (6 starts each; later requests 10–20 ms). One WASM instance serves the whole process, so
 * a service started after the first pays little of this again.
 */
export function holdWarmEncoders(): () => void {
  const release = holdSpares()
  const sound = warmUpSound(3 * OUTPUT_SAMPLE_RATE)
  for (const format of Object.keys(FORMATS) as CompressedFormat[]) {
    void (async () => {
      for await (const _ of encodeCompressed(
        format,
        (async function* () {
          // In the engine's chunk size, 300 ms.
          for (let at = 0; at < sound.length; at += OUTPUT_SAMPLE_RATE * 0.3) {
            yield sound.slice(at, at + OUTPUT_SAMPLE_RATE * 0.3)
          }
        })(),
      ));
    })().catch(() => {})
  }
  return release
}

/** A voice-like sound: a buzz gliding between 120 and 180 Hz with its harmonics, and a little noise. */
function warmUpSound(length: number): Int16Array {
  const sound = new Int16Array(length)
  let phase = 0
  let seed = 1
  for (let i = 0; i < length; i++) {
    phase += (2 * Math.PI * (150 + 30 * Math.sin((2 * Math.PI * i) / length))) / OUTPUT_SAMPLE_RATE
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
    let buzz = 0
    for (let h = 1; h <= 8; h++) buzz += Math.sin(h * phase) / h
    sound[i] = Math.round(4000 * buzz + 1000 * (seed / 2 ** 32 - 0.5))
  }
  return sound
}
