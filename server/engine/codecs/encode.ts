import { registerAacEncoder } from '@mediabunny/aac-encoder'
import { registerFlacEncoder } from '@mediabunny/flac-encoder'
import { registerMp3Encoder } from '@mediabunny/mp3-encoder'
import {
  AdtsOutputFormat,
  AppendOnlyStreamTarget,
  type AudioCodec,
  AudioSample,
  AudioSampleSource,
  FlacOutputFormat,
  Mp3OutputFormat,
  OggOutputFormat,
  Output,
  type OutputFormat,
  Quality,
} from 'mediabunny'
import { OUTPUT_SAMPLE_RATE } from '../synthesizer.ts'
import { registerOpusEncoder } from './opus.ts'

/** Streaming encoders for the compressed response formats (spec §2.6), built on mediabunny's muxers. */

export type CompressedFormat = 'mp3' | 'opus' | 'aac' | 'flac'

// Node has no WebCodecs, so every codec comes from a WASM encoder registered with mediabunny.
registerMp3Encoder()
registerAacEncoder()
registerFlacEncoder()
registerOpusEncoder()

interface FormatSetup {
  codec: AudioCodec
  /** Bits per second for the lossy codecs; sized for speech. */
  bitrate?: number
  container: () => OutputFormat
}

/** Each container is set up to only append, so what is yielded, concatenated, is the whole file. */
const FORMATS: Record<CompressedFormat, FormatSetup> = {
  // The Xing header would be patched in at the start once encoding ends.
  mp3: { codec: 'mp3', bitrate: 64_000, container: () => new Mp3OutputFormat({ xingHeader: false }) },
  // By default a page is only written once it holds kilobytes, i.e. seconds of speech.
  opus: {
    codec: 'opus',
    bitrate: 32_000,
    container: () => new OggOutputFormat({ maximumPageDuration: 0.1 }),
  },
  aac: { codec: 'aac', bitrate: 64_000, container: () => new AdtsOutputFormat() },
  // STREAMINFO then leaves the total length unknown, as in any streamed FLAC.
  flac: { codec: 'flac', container: () => new FlacOutputFormat({ appendOnly: true }) },
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
  const source = new AudioSampleSource({
    codec,
    ...(bitrate === undefined ? {} : { quality: new Quality({ bitrate }) }),
  })
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
