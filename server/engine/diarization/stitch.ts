/**
 * Linking local speakers of neighbouring windows into chains: two local speakers whose activity agrees where their
 * windows overlap (intersection over union at least `minAgreement`) are one person, most agreeing pairs first, and
 * never two speakers of one window (a chain holds at most one local speaker per window). Only windows next to each
 * other are compared: they share all but one step of audio, and the agreement of windows further apart, on less
 * shared audio, tells one person from two less well (docs/diarization.md).
 */
import type { LocalSpeakers } from './local-speakers.ts'

/** Node id of local speaker s of window w. */
export const node = (ls: LocalSpeakers, w: number, s: number) => w * ls.segmenter.speakers + s

/** Chain of each node (window × local speaker), −1 for local speakers never active. */
export function stitch(ls: LocalSpeakers, minAgreement: number): Int32Array {
  const { frames, speakers } = ls.segmenter
  const nodes = ls.activity.length * speakers
  const activeFrames = new Int32Array(nodes)
  ls.activity.forEach((a, w) => {
    for (let f = 0; f < frames; f++)
      for (let s = 0; s < speakers; s++) {
        const n = node(ls, w, s)
        activeFrames[n] = (activeFrames[n] as number) + (a[f * speakers + s] as number)
      }
  })
  const links: { a: number; b: number; agreement: number }[] = []
  for (let w = 0, v = 1; v < ls.activity.length; w++, v++) {
    const offset = (ls.starts[v] as number) - (ls.starts[w] as number)
    if (offset >= frames) continue
    const aw = ls.activity[w] as Uint8Array
    const av = ls.activity[v] as Uint8Array
    for (let i = 0; i < speakers; i++) {
      for (let j = 0; j < speakers; j++) {
        let both = 0
        let either = 0
        for (let f = offset; f < frames; f++) {
          const x = aw[f * speakers + i] as number
          const y = av[(f - offset) * speakers + j] as number
          both += x & y
          either += x | y
        }
        if (either > 0 && both / either >= minAgreement)
          links.push({ a: node(ls, w, i), b: node(ls, v, j), agreement: both / either })
      }
    }
  }
  links.sort((x, y) => y.agreement - x.agreement)
  // Union–find whose roots keep the windows of their chain.
  const parent = Int32Array.from({ length: nodes }, (_, i) => i)
  const windowsOf = new Map<number, Set<number>>()
  for (let n = 0; n < nodes; n++) windowsOf.set(n, new Set([Math.floor(n / speakers)]))
  const root = (n: number): number => {
    let r = n
    while (parent[r] !== r) r = parent[r] as number
    while (parent[n] !== r) {
      const next = parent[n] as number
      parent[n] = r
      n = next
    }
    return r
  }
  for (const { a, b } of links) {
    let ra = root(a)
    let rb = root(b)
    if (ra === rb) continue
    let wa = windowsOf.get(ra) as Set<number>
    let wb = windowsOf.get(rb) as Set<number>
    if (wa.size < wb.size) {
      ;[ra, rb, wa, wb] = [rb, ra, wb, wa]
    }
    let clash = false
    for (const w of wb) if (wa.has(w)) clash = true
    if (clash) continue
    parent[rb] = ra
    for (const w of wb) wa.add(w)
    windowsOf.delete(rb)
  }
  const chainOf = new Int32Array(nodes).fill(-1)
  const ids = new Map<number, number>()
  for (let n = 0; n < nodes; n++) {
    if ((activeFrames[n] as number) === 0) continue
    const r = root(n)
    if (!ids.has(r)) ids.set(r, ids.size)
    chainOf[n] = ids.get(r) as number
  }
  return chainOf
}

/**
 * `apart[a][b]` = 1 when chains a and b are different local speakers of one window, each active there for at least
 * `minFrames` frames: two people in the model's own judgement.
 */
export function chainsApart(
  local: LocalSpeakers,
  chains: Int32Array,
  total: number,
  minFrames: number,
): Uint8Array[] {
  const apart = Array.from({ length: total }, () => new Uint8Array(total))
  const { frames, speakers: k } = local.segmenter
  local.activity.forEach((a, w) => {
    const heard = Array.from({ length: k }, (_, s) => {
      let n = 0
      for (let f = 0; f < frames; f++) n += a[f * k + s] as number
      return n
    })
    for (let s = 0; s < k; s++)
      for (let t = s + 1; t < k; t++) {
        const x = chains[node(local, w, s)] as number
        const y = chains[node(local, w, t)] as number
        if (x < 0 || y < 0 || (heard[s] as number) < minFrames || (heard[t] as number) < minFrames) continue
        ;(apart[x] as Uint8Array)[y] = 1
        ;(apart[y] as Uint8Array)[x] = 1
      }
  })
  return apart
}
