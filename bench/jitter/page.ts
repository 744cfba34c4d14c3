import { PcmPlayer } from '../../src/audio/pcm-player.ts'
import { EARLIEST_START_MS, PREBUFFER_MS } from '../../src/state/playback.ts'
import { analyseOutput, CLICK_THRESHOLD, type OutputFigures } from './analyse.ts'
import { type FromTap, TAP_PROCESSOR, type ToTap } from './protocol.ts'
import { ReferencePlayer } from './reference-player.ts'
import tapUrl from './tap-processor.ts?worker&url'

/**
 * The bench page: the studio's own PcmPlayer (src/audio, bundled by Vite as the app bundles it, worklet included)
 * and the reference player, fed the same chunks at the same moments, each with a tap on its output.
 */

export interface PlayerFigures extends OutputFigures {
  /** First chunk handed to the player → the tap saw its first non-zero sample. */
  latencyMs: number
  /** The player's own underrun count, beside the one read from its output. */
  ownUnderruns: number
  /** Audio the player added by stretching playback (ours only: the reference plays what it has). */
  stretchedMs: number
}

export interface RunFigures {
  ours: PlayerFigures
  reference: PlayerFigures
}

/** Talks to one tap worklet: arm it, learn when it first hears sound, fetch what it recorded. */
class Tap {
  readonly node: AudioWorkletNode
  private firstHeard: (at: number) => void = () => {}
  private recorded: (samples: Float32Array) => void = () => {}

  constructor(readonly context: AudioContext) {
    this.node = new AudioWorkletNode(context, TAP_PROCESSOR, { numberOfInputs: 1, numberOfOutputs: 1 })
    // Its output is silence; connecting it keeps the node pulled by the render graph.
    this.node.connect(context.destination)
    this.node.port.onmessage = (event: MessageEvent<FromTap>) => {
      const message = event.data
      if (message.type === 'first-sample') this.firstHeard(performance.now())
      else this.recorded(message.samples)
    }
  }

  arm(seconds: number): Promise<number> {
    this.send({ type: 'arm', maxFrames: Math.ceil(seconds * this.context.sampleRate) })
    return new Promise((resolve) => {
      this.firstHeard = resolve
    })
  }

  dump(): Promise<Float32Array> {
    const done = new Promise<Float32Array>((resolve) => {
      this.recorded = resolve
    })
    this.send({ type: 'dump' })
    return done
  }

  private send(message: ToTap) {
    this.node.port.postMessage(message)
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let ours: PcmPlayer
let oursTap: Tap
let reference: ReferencePlayer
let referenceTap: Tap
let chunks: Int16Array[] = []
let prebufferMs = PREBUFFER_MS
/** The app starts early from this much audio when it arrives well ahead of playback; a prebuffer override is fixed. */
let earliestMs = EARLIEST_START_MS

/** `prebufferOverride`: try another prebuffer for ours than the app's (PREBUFFER_MS=… on the command line). */
async function setup(chunkFrames: number, prebufferOverride: number | null) {
  prebufferMs = prebufferOverride ?? PREBUFFER_MS
  earliestMs = prebufferOverride ?? Math.min(PREBUFFER_MS, EARLIEST_START_MS)
  const pcm = new Int16Array(await (await fetch('./speech.pcm')).arrayBuffer())
  // Copies, not views: a posted view would clone the whole stream's buffer with it.
  chunks = []
  for (let i = 0; i < pcm.length; i += chunkFrames) chunks.push(pcm.slice(i, i + chunkFrames))

  ours = await PcmPlayer.create()
  // The player keeps its context and node to itself; the bench reads them to add a tap beside the speakers, and
  // changes nothing else about how the player is built or driven.
  const inside = ours as unknown as { context: AudioContext; node: AudioWorkletNode }
  await inside.context.audioWorklet.addModule(tapUrl)
  oursTap = new Tap(inside.context)
  inside.node.connect(oursTap.node)

  reference = await ReferencePlayer.create()
  await reference.context.audioWorklet.addModule(tapUrl)
  referenceTap = new Tap(reference.context)
  return {
    prebufferMs,
    earliestMs,
    appPrebufferMs: PREBUFFER_MS,
    oursRate: inside.context.sampleRate,
    referenceRate: reference.context.sampleRate,
    chunks: chunks.length,
  }
}

/** One stream through both players, chunk i handed over `arrivals[i]` ms after the start. */
async function run(arrivals: number[]): Promise<RunFigures> {
  const seconds = chunks.reduce((n, c) => n + c.length, 0) / 24_000 + (arrivals.at(-1) ?? 0) / 1000 + 3
  const oursFirst = oursTap.arm(seconds)
  const referenceFirst = referenceTap.arm(seconds)
  ours.start({ prebufferMs, earliestMs })
  reference.start(referenceTap.node)

  const t0 = performance.now() + 20
  let firstArrival = 0
  for (const [i, chunk] of chunks.entries()) {
    const wait = t0 + (arrivals[i] ?? 0) - performance.now()
    if (wait > 0) await sleep(wait)
    if (i === 0) firstArrival = performance.now()
    ours.push(chunk)
    reference.push(chunk)
  }
  ours.end()
  reference.end()
  const [oursStats, referenceUnderruns] = await Promise.all([ours.whenEnded(), reference.whenDrained()])
  // The taps sit after the players in the graph, so they have recorded the last quantum; a margin costs nothing.
  await sleep(50)
  const [oursOut, referenceOut, oursAt, referenceAt] = await Promise.all([
    oursTap.dump(),
    referenceTap.dump(),
    oursFirst,
    referenceFirst,
  ])
  return {
    ours: {
      ...analyseOutput(oursOut, oursTap.context.sampleRate, CLICK_THRESHOLD),
      latencyMs: oursAt - firstArrival,
      ownUnderruns: oursStats.underruns,
      stretchedMs: (oursStats.framesInserted / 24_000) * 1000,
    },
    reference: {
      ...analyseOutput(referenceOut, referenceTap.context.sampleRate, CLICK_THRESHOLD),
      latencyMs: referenceAt - firstArrival,
      ownUnderruns: referenceUnderruns,
      stretchedMs: 0,
    },
  }
}

const bench = { setup, run }
declare global {
  interface Window {
    jitterBench: typeof bench
  }
}
window.jitterBench = bench
