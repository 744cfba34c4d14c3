/**
 * Streaming rational sample-rate conversion of PCM16 with a polyphase windowed-sinc FIR: eSpeak's 22,050 Hz to the
 * engine's 24,000 Hz (160/147). One Kaiser-windowed sinc, tabulated once per rate pair at each of the `up` output
 * phases, so a job's converter costs nothing to create and each output sample is one dot product of `TAPS` input
 * samples. The dot products run in a small WebAssembly kernel with 128-bit SIMD (four products per instruction),
 * assembled below; where WebAssembly SIMD is missing, the same arithmetic runs in JavaScript.
 *
 * The filter keeps everything below 9.6 kHz (within 0.1 dB) and cuts at the input's Nyquist frequency (11.025 kHz,
 * −6 dB at 10.3 kHz), so the images of everything in the passband reach the output at least 90 dB down. Measured against
 * libsamplerate's best sinc in docs/architecture.md ("Resampling quality"); `npm run bench:engine` prints its cost and
 * quality.
 */

/** Filter length in input samples: each output sample is a weighted sum of this many input samples around it. */
export const TAPS = 64
const HALF = TAPS / 2
/** Kaiser window shape: about 90 dB of stopband attenuation. */
const KAISER_BETA = 8.96
/** Passband and stopband edges as fractions of the lower rate's Nyquist frequency (9.6 and 11.025 kHz here). */
const PASS_EDGE = 0.8707
const STOP_EDGE = 1

interface Design {
  /** Upsampling factor L and downsampling factor M: out/in = L/M. */
  up: number
  down: number
  /** `up` rows of TAPS coefficients: row φ weighs inputs i − HALF + 1 … i + HALF for the position i + φ/up. */
  table: Float32Array
}

const designs = new Map<string, Design>()

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b)
}

/** Modified Bessel function of the first kind, order 0 (power series), for the Kaiser window. */
function besselI0(x: number): number {
  let sum = 1
  let term = 1
  for (let k = 1; k < 60; k++) {
    term *= (x / (2 * k)) ** 2
    sum += term
    if (term < sum * 1e-17) break
  }
  return sum
}

/** The coefficient table for `fromRate` → `toRate`, built once per pair. */
export function polyphaseDesign(fromRate: number, toRate: number): Design {
  const key = `${fromRate}:${toRate}`
  const cached = designs.get(key)
  if (cached) return cached
  if (!Number.isInteger(fromRate) || !Number.isInteger(toRate) || fromRate <= 0 || toRate <= 0) {
    throw new Error(`No polyphase design for ${fromRate} → ${toRate} Hz.`)
  }
  const g = gcd(fromRate, toRate)
  const up = toRate / g
  const down = fromRate / g
  if (up > 4096) throw new Error(`No polyphase design for ${fromRate} → ${toRate} Hz.`)
  // Cutoff between the edges in cycles per input sample; a downsampler cuts below the output's Nyquist instead.
  const nyquist = Math.min(1, toRate / fromRate) / 2
  const cutoff = (nyquist * (PASS_EDGE + STOP_EDGE)) / 2
  const i0Beta = besselI0(KAISER_BETA)
  const table = new Float32Array(up * TAPS)
  const row = new Float64Array(TAPS)
  for (let phase = 0; phase < up; phase++) {
    const frac = phase / up
    let sum = 0
    for (let m = 0; m < TAPS; m++) {
      // Distance in input samples from the output's position (i + frac) to input i − HALF + 1 + m.
      const d = frac + HALF - 1 - m
      const x = 2 * cutoff * d
      const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x)
      const r = d / HALF
      const window = Math.abs(r) >= 1 ? 0 : besselI0(KAISER_BETA * Math.sqrt(1 - r * r)) / i0Beta
      row[m] = sinc * window
      sum += row[m] as number
    }
    // Every phase passes DC at exactly unit gain: a constant input stays constant, with no ripple at the phase rate.
    for (let m = 0; m < TAPS; m++) table[phase * TAPS + m] = (row[m] as number) / sum
  }
  const design = { up, down, table }
  designs.set(key, design)
  return design
}

/**
 * Where the dot products run: a Float32Array the input is written to, an Int16Array the output is read from, and
 * `run`, which produces `count` outputs starting with the one whose first tap is input[first] at phase `phase`.
 */
interface Kernel {
  input(capacity: number): Float32Array
  output(capacity: number): Int16Array
  run(design: Design, first: number, count: number, phase: number): void
}

/** The dot products in plain JavaScript (also the reference the WebAssembly kernel is tested against). */
export class ScalarKernel implements Kernel {
  private in = new Float32Array(0)
  private out = new Int16Array(0)

  input(capacity: number): Float32Array {
    if (this.in.length < capacity) this.in = new Float32Array(capacity * 2)
    return this.in
  }

  output(capacity: number): Int16Array {
    if (this.out.length < capacity) this.out = new Int16Array(capacity * 2)
    return this.out
  }

  run({ up, down, table }: Design, first: number, count: number, phase: number): void {
    const input = this.in
    const out = this.out
    let at = first
    for (let k = 0; k < count; k++) {
      const row = phase * TAPS
      let acc = 0
      for (let m = 0; m < TAPS; m++) acc += (table[row + m] as number) * (input[at + m] as number)
      const v = Math.round(acc)
      out[k] = v > 32767 ? 32767 : v < -32768 ? -32768 : v
      phase += down
      while (phase >= up) {
        phase -= up
        at++
      }
    }
  }
}

// --- The WebAssembly kernel -------------------------------------------------------------------------------------

/** Unsigned LEB128. */
function uleb(n: number): number[] {
  const out: number[] = []
  do {
    let byte = n & 0x7f
    n >>>= 7
    if (n !== 0) byte |= 0x80
    out.push(byte)
  } while (n !== 0)
  return out
}

/** Signed LEB128 (for i32.const). */
function sleb(n: number): number[] {
  const out: number[] = []
  for (;;) {
    const byte = n & 0x7f
    n >>= 7
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte)
      return out
    }
    out.push(byte | 0x80)
  }
}

const f32 = (v: number) => [...new Uint8Array(Float32Array.of(v).buffer)]
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body]
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()]
const name = (s: string) => vec([...s].map((c) => [c.charCodeAt(0)]))

/**
 * `run(table, input, output, count, phase, up, down)`, all byte addresses or integers: for each of `count` outputs,
 * the dot product of TAPS coefficients at table + phase·TAPS·4 with TAPS floats at `input`, rounded, clamped and
 * stored as PCM16; then phase += down, and every wrap past `up` moves `input` on by one sample. The TAPS/4 vector
 * multiply-adds are unrolled with constant offsets.
 */
function kernelBytes(): Uint8Array<ArrayBuffer> {
  const [TABLE, INPUT, OUTPUT, COUNT, PHASE, UP, DOWN, K, ROW, ACC] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
  const get = (i: number) => [0x20, i]
  const set = (i: number) => [0x21, i]
  const i32 = (v: number) => [0x41, ...sleb(v)]
  const simd = (op: number) => [0xfd, ...uleb(op)]
  const load = (offset: number) => [...simd(0x00), 2, ...uleb(offset)] // v128.load, 4-byte alignment hint
  const body: number[] = [
    ...[0x02, 0x40], // block
    ...[0x03, 0x40], // loop
    ...get(K),
    ...get(COUNT),
    0x4f, // i32.ge_u
    ...[0x0d, 1], // br_if out of the block
    ...get(TABLE),
    ...get(PHASE),
    ...i32(TAPS * 4),
    0x6c, // i32.mul
    0x6a, // i32.add
    ...set(ROW),
  ]
  for (let j = 0; j < TAPS / 4; j++) {
    body.push(...get(ROW), ...load(16 * j), ...get(INPUT), ...load(16 * j), ...simd(0xe6)) // f32x4.mul
    if (j > 0) body.push(...simd(0xe4)) // f32x4.add onto the running sum
  }
  body.push(...set(ACC))
  body.push(...get(OUTPUT))
  for (let lane = 0; lane < 4; lane++) {
    body.push(...get(ACC), ...simd(0x1f), lane) // f32x4.extract_lane
    if (lane > 0) body.push(0x92) // f32.add
  }
  body.push(
    0x90, // f32.nearest
    ...[0x43, ...f32(-32768)],
    0x97, // f32.max
    ...[0x43, ...f32(32767)],
    0x96, // f32.min
    0xa8, // i32.trunc_f32_s
    ...[0x3b, 1, 0], // i32.store16
    ...get(OUTPUT),
    ...i32(2),
    0x6a,
    ...set(OUTPUT),
    ...get(PHASE),
    ...get(DOWN),
    0x6a,
    ...set(PHASE),
    ...[0x02, 0x40], // block
    ...[0x03, 0x40], // loop: while phase >= up
    ...get(PHASE),
    ...get(UP),
    0x49, // i32.lt_u
    ...[0x0d, 1],
    ...get(PHASE),
    ...get(UP),
    0x6b, // i32.sub
    ...set(PHASE),
    ...get(INPUT),
    ...i32(4),
    0x6a,
    ...set(INPUT),
    ...[0x0c, 0], // br to the loop
    0x0b,
    0x0b,
    ...get(K),
    ...i32(1),
    0x6a,
    ...set(K),
    ...[0x0c, 0], // br to the outer loop
    0x0b,
    0x0b,
    0x0b, // end of function
  )
  const locals = vec([
    [2, 0x7f], // k, row: i32
    [1, 0x7b], // acc: v128
  ])
  const code = [...locals, ...body]
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vec([[0x60, ...vec(Array.from({ length: 7 }, () => [0x7f])), 0]])),
    ...section(3, vec([[0]])),
    ...section(5, vec([[0x00, 1]])),
    ...section(
      7,
      vec([
        [...name('memory'), 0x02, 0],
        [...name('run'), 0x00, 0],
      ]),
    ),
    ...section(10, vec([[...uleb(code.length), ...code]])),
  ])
}

type RunFn = (
  table: number,
  input: number,
  output: number,
  count: number,
  phase: number,
  up: number,
  down: number,
) => void

/** One instance per thread: its memory holds every design's table, then the input and output of the current call. */
class SimdKernel implements Kernel {
  private readonly memory: WebAssembly.Memory
  private readonly runFn: RunFn
  private readonly tables = new Map<Design, number>()
  /** Bytes used by tables; the input starts here (16-byte aligned), the output after it. */
  private tablesEnd = 0
  private inputCapacity = 0
  private outputAt = 0

  constructor(module: WebAssembly.Module) {
    const instance = new WebAssembly.Instance(module)
    this.memory = instance.exports.memory as WebAssembly.Memory
    this.runFn = instance.exports.run as RunFn
  }

  input(capacity: number): Float32Array {
    this.inputCapacity = Math.max(this.inputCapacity, capacity)
    return new Float32Array(this.memory.buffer, this.tablesEnd, capacity)
  }

  output(capacity: number): Int16Array {
    this.outputAt = this.tablesEnd + this.inputCapacity * 4
    this.ensure(this.outputAt + capacity * 2)
    return new Int16Array(this.memory.buffer, this.outputAt, capacity)
  }

  /** Must be called before `input`: places the design's table (growing memory, which moves the views). */
  prepare(design: Design, inputCapacity: number, outputCapacity: number) {
    if (!this.tables.has(design)) {
      this.ensure(this.tablesEnd + design.table.byteLength + inputCapacity * 4 + outputCapacity * 2)
      new Float32Array(this.memory.buffer, this.tablesEnd, design.table.length).set(design.table)
      this.tables.set(design, this.tablesEnd)
      this.tablesEnd += design.table.byteLength
    }
    this.inputCapacity = inputCapacity
    this.ensure(this.tablesEnd + inputCapacity * 4 + outputCapacity * 2)
  }

  run(design: Design, first: number, count: number, phase: number): void {
    const table = this.tables.get(design) as number
    this.runFn(table, this.tablesEnd + first * 4, this.outputAt, count, phase, design.up, design.down)
  }

  private ensure(bytes: number) {
    const have = this.memory.buffer.byteLength
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / 65_536))
  }
}

let simdModule: WebAssembly.Module | null | undefined
let simdKernel: SimdKernel | null | undefined

/** The thread's SIMD kernel, or null where WebAssembly SIMD is unavailable. */
function sharedSimdKernel(): SimdKernel | null {
  if (simdKernel !== undefined) return simdKernel
  if (simdModule === undefined) {
    const bytes = kernelBytes()
    simdModule = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null
  }
  simdKernel = simdModule ? new SimdKernel(simdModule) : null
  return simdKernel
}

/**
 * A streaming converter: push PCM16 chunks of any size, flush once at the end. The output is time-aligned with the
 * input (no delay) and, after `flush`, exactly round(inputFrames × toRate / fromRate) samples long. Converters on one
 * thread share one kernel; each call is complete before it returns, so they can interleave freely.
 */
export class PolyphaseResampler {
  private readonly design: Design
  private readonly kernel: Kernel
  /** Input samples still needed, from absolute index `base` on; at the start, HALF − 1 zeros of history. */
  private pending = new Float32Array(TAPS)
  private pendingLength = HALF - 1
  private base = -(HALF - 1)
  private inputFrames = 0
  /** Index of the next output sample. */
  private produced = 0

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
    opts: { scalar?: boolean } = {},
  ) {
    this.design = polyphaseDesign(fromRate, toRate)
    this.kernel = (!opts.scalar && sharedSimdKernel()) || new ScalarKernel()
  }

  push(samples: Int16Array): Int16Array {
    if (samples.length === 0) return new Int16Array(0)
    this.inputFrames += samples.length
    return this.convert(samples, Number.POSITIVE_INFINITY)
  }

  /** The rest of the output: the input's last samples, filtered against silence after them. */
  flush(): Int16Array {
    const expected = Math.round((this.inputFrames * this.design.up) / this.design.down)
    return this.convert(new Int16Array(HALF), expected)
  }

  private convert(samples: Int16Array, limit: number): Int16Array {
    const { up, down } = this.design
    const total = this.pendingLength + samples.length
    // Output n needs inputs up to floor(n·down/up) + HALF: n runs to the last with floor(n·down/up) ≤ q.
    const q = this.base + total - 1 - HALF
    const end = Math.min(Math.ceil(((q + 1) * up) / down), limit)
    const count = Math.max(0, end - this.produced)
    const kernel = this.kernel
    if (kernel instanceof SimdKernel) kernel.prepare(this.design, total, count)
    const input = kernel.input(total)
    input.set(this.pending.subarray(0, this.pendingLength))
    for (let i = 0, at = this.pendingLength; i < samples.length; i++, at++) input[at] = samples[i] as number
    const position = this.produced * down
    const i = Math.floor(position / up)
    const out = new Int16Array(count)
    if (count > 0) {
      const output = kernel.output(count)
      kernel.run(this.design, i - HALF + 1 - this.base, count, position - i * up)
      out.set(output.subarray(0, count))
      this.produced += count
    }
    // Keep what the next output still needs: from its first tap on.
    const keepFrom = Math.max(0, Math.floor((this.produced * down) / up) - HALF + 1 - this.base)
    const keep = total - Math.min(total, keepFrom)
    if (this.pending.length < keep) this.pending = new Float32Array(keep * 2)
    this.pending.set(kernel.input(total).subarray(total - keep, total))
    this.pendingLength = keep
    this.base += total - keep
    return out
  }
}
