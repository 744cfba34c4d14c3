import {
  type AudioCodec,
  type AudioSample,
  CustomAudioEncoder,
  type EncodedPacket,
  registerEncoder,
} from 'mediabunny'

/**
 * Encoders started before the request that needs them. mediabunny's mp3, aac and flac encoders each start a worker
 * thread and compile their WASM codec in `init()` — 100–250 ms on two shared cores, all of it before the first byte.
 * `WarmEncoder` stands in front of them: while someone holds the pool (the speech service, from start to close) it
 * keeps one encoder of each setting initialized and hands it to the next request, starting the replacement in the
 * background. Without holders every request starts its own encoder, as mediabunny does.
 */

/** A registered encoder class: mediabunny constructs it without arguments. */
type EncoderClass = Omit<typeof CustomAudioEncoder, 'prototype'> & (new () => CustomAudioEncoder)

/** mediabunny's fields on an encoder, which it sets after construction (read-only in its types). */
interface Wiring {
  codec: AudioCodec
  config: AudioEncoderConfig
  onPacket: (packet: EncodedPacket, meta?: EncodedAudioChunkMetadata) => unknown
  onError: (error: unknown) => undefined
}

const wrapped = new Map<AudioCodec, EncoderClass>()
const primers = new Map<AudioCodec, (encoder: CustomAudioEncoder) => Promise<void>>()
const spares = new Map<string, Promise<CustomAudioEncoder>>()
let holders = 0
/** How long after handing out a spare its replacement starts. */
const REPLACE_AFTER_MS = 100

const keyOf = (codec: AudioCodec, c: AudioEncoderConfig) =>
  `${codec}|${c.codec}|${c.sampleRate}|${c.numberOfChannels}|${c.bitrate ?? ''}`

/**
 * Calls a package's `register…Encoder()` and returns the class it registered. mediabunny keeps its registry private;
 * its `registerEncoder` checks `encoder.prototype instanceof CustomAudioEncoder`, which is where the class is seen.
 */
function captureRegistered(register: () => void): EncoderClass | undefined {
  let found: EncoderClass | undefined
  Object.defineProperty(CustomAudioEncoder, Symbol.hasInstance, {
    configurable: true,
    value(value: unknown): boolean {
      const is = Function.prototype[Symbol.hasInstance].call(CustomAudioEncoder, value)
      if (is && found === undefined) found = (value as { constructor: EncoderClass }).constructor
      return is
    },
  })
  try {
    register()
  } finally {
    delete (CustomAudioEncoder as unknown as Record<symbol, unknown>)[Symbol.hasInstance]
  }
  return found
}

/**
 * Registers the packages' encoders behind `WarmEncoder`, which mediabunny then picks first for those codecs. A
 * codec's `prime` finishes what its `init()` leaves to the first `encode()`, so a spare is fully started.
 */
export function registerWarmEncoders(
  registers: Partial<Record<AudioCodec, () => void>>,
  prime: Partial<Record<AudioCodec, (encoder: CustomAudioEncoder) => Promise<void>>> = {},
): void {
  registerEncoder(WarmEncoder)
  for (const [codec, register] of Object.entries(registers)) {
    const found = captureRegistered(register)
    if (found) wrapped.set(codec as AudioCodec, found)
  }
  for (const [codec, fn] of Object.entries(prime)) primers.set(codec as AudioCodec, fn)
}

/** The fields of mediabunny's FLAC encoder that its first `encode()` sets up. */
interface FlacInternals {
  ctx: number | null
  description: Uint8Array | null
  sendCommand(command: {
    type: 'init'
    data: Record<string, number>
  }): Promise<{ ctx: number; header: ArrayBuffer }>
  resetInternalState(): void
  config: AudioEncoderConfig
}

/**
 * mediabunny's FLAC encoder only starts its thread in `init()`; its codec (WASM) loads with the encoder context its
 * first `encode()` creates. This does the same for 16-bit input — the only input the engine gives — ahead of time;
 * an encoder that does not look as expected is left to set itself up.
 */
export async function primeFlac(encoder: CustomAudioEncoder): Promise<void> {
  const flac = encoder as unknown as Partial<FlacInternals>
  if (
    flac.ctx !== null ||
    typeof flac.sendCommand !== 'function' ||
    typeof flac.resetInternalState !== 'function'
  )
    return
  const { numberOfChannels, sampleRate } = encoder.config
  const result = await flac.sendCommand({
    type: 'init',
    data: { numberOfChannels, sampleRate, bitsPerSample: 16 },
  })
  flac.ctx = result.ctx
  flac.description = new Uint8Array(result.header)
  flac.resetInternalState()
}

/** A started encoder of `Class` with `config`, its packets and errors going nowhere until it is taken. */
function startEncoder(Class: EncoderClass, codec: AudioCodec, config: AudioEncoderConfig) {
  const encoder = new Class()
  Object.assign(encoder, {
    codec,
    config,
    onPacket: () => undefined,
    onError: () => undefined,
  } satisfies Wiring)
  const prime = primers.get(codec)
  return Promise.resolve(encoder.init())
    .then(() => prime?.(encoder))
    .then(() => encoder)
}

function startSpare(Class: EncoderClass, codec: AudioCodec, config: AudioEncoderConfig) {
  const key = keyOf(codec, config)
  const spare = startEncoder(Class, codec, config)
  spares.set(key, spare)
  // A spare that fails to start is dropped; the next request starts its own.
  spare.catch(() => {
    if (spares.get(key) === spare) spares.delete(key)
  })
}

/** The spare for these settings, if one is started or starting. */
function takeSpare(codec: AudioCodec, config: AudioEncoderConfig): Promise<CustomAudioEncoder> | undefined {
  const key = keyOf(codec, config)
  const spare = spares.get(key)
  spares.delete(key)
  return spare
}

/**
 * Keeps spares from now on: one for each setting a request has used (the caller warms each format with a short
 * encode). The returned function releases the hold; when no holder is left, the spares are closed.
 */
export function holdSpares(): () => void {
  holders++
  let released = false
  return () => {
    if (released) return
    released = true
    holders--
    if (holders > 0) return
    const idle = [...spares.values()]
    spares.clear()
    for (const spare of idle) spare.then((e) => e.close()).catch(() => {})
  }
}

/** Settles once every spare started or starting now is started (for benchmarks: measure a service that is ready). */
export async function sparesStarted(): Promise<void> {
  await Promise.allSettled(spares.values())
}

/** How many spare encoders are started or starting (for tests). */
export function spareCount(): number {
  return spares.size
}

class WarmEncoder extends CustomAudioEncoder {
  static override supports(codec: AudioCodec, config: AudioEncoderConfig): boolean {
    return wrapped.get(codec)?.supports(codec, config) ?? false
  }

  private inner: CustomAudioEncoder | null = null

  async init(): Promise<void> {
    const Class = wrapped.get(this.codec) as EncoderClass
    const spare = takeSpare(this.codec, this.config)
    // The replacement starts a little later, so its thread start-up does not compete with this request's first bytes.
    if (holders > 0) {
      const { codec, config } = this
      setTimeout(() => {
        if (holders > 0 && !spares.has(keyOf(codec, config))) startSpare(Class, codec, config)
      }, REPLACE_AFTER_MS).unref()
    }
    const inner =
      (spare && (await spare.catch(() => null))) || (await startEncoder(Class, this.codec, this.config))
    Object.assign(inner, {
      onPacket: (packet: EncodedPacket, meta?: EncodedAudioChunkMetadata) => this.onPacket(packet, meta),
      onError: (error: unknown) => this.onError(error),
    } satisfies Partial<Wiring>)
    this.inner = inner
  }

  encode(sample: AudioSample) {
    return (this.inner as CustomAudioEncoder).encode(sample)
  }

  flush() {
    return (this.inner as CustomAudioEncoder).flush()
  }

  close() {
    return this.inner?.close()
  }
}
