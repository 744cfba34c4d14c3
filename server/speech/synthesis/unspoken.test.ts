import { describe, expect, it } from 'vitest'
import { asksForSilence, nothingToSpeak, untilSound } from './unspoken.ts'

const silence = (n: number) => new Int16Array(n)
const sound = (n: number) => new Int16Array(n).fill(1000)

async function* chunks(list: Int16Array[], log: string[] = []) {
  try {
    for (const c of list) yield c
    log.push('ended')
  } finally {
    log.push('closed')
  }
}

async function collect(audio: AsyncIterable<Int16Array>): Promise<number[]> {
  const lengths: number[] = []
  for await (const c of audio) lengths.push(c.length)
  return lengths
}

describe('untilSound', () => {
  it('holds silence back until the first sound, then gives every chunk in order', async () => {
    const held = await untilSound(chunks([silence(10), silence(20), sound(30), silence(40)]))
    expect(held.silent).toBe(false)
    expect(await collect(held.audio)).toEqual([10, 20, 30, 40])
  })

  it('says so when the audio ends without a sound, and still gives what there was', async () => {
    const held = await untilSound(chunks([silence(10), new Int16Array([33, -33])]))
    expect(held.silent).toBe(true)
    expect(await collect(held.audio)).toEqual([10, 2])
  })

  it('closes the engine when the consumer stops early', async () => {
    const log: string[] = []
    const held = await untilSound(chunks([sound(1), sound(2), sound(3)], log))
    for await (const _ of held.audio) break
    expect(log).toEqual(['closed'])
  })

  it('lets an error before the first sound reach the caller', async () => {
    async function* failing(): AsyncGenerator<Int16Array> {
      yield silence(5)
      throw new Error('engine failed')
    }
    await expect(untilSound(failing())).rejects.toThrow('engine failed')
  })
})

describe('nothingToSpeak', () => {
  it('names up to six characters with their code points', () => {
    const err = nothingToSpeak('█▓░ \uE000\uE001\uE002\uE003 █', false)
    expect(err.status).toBe(400)
    expect(err.param).toBe('input')
    expect(err.message).toBe(
      'input has nothing that can be spoken: "█" (U+2588), "▓" (U+2593), "░" (U+2591), "\uE000" (U+E000), "\uE001" (U+E001), "\uE002" (U+E002) and 1 more.',
    )
    expect(nothingToSpeak('\u{F0000}', false).message).toBe(
      'input has nothing that can be spoken: "\u{F0000}" (U+F0000).',
    )
  })

  it('says when there is nothing but spaces, punctuation and tags', () => {
    expect(nothingToSpeak(' … !', false).message).toBe(
      'input has nothing to speak: it holds only spaces and punctuation.',
    )
    expect(nothingToSpeak('[sad] …', true).message).toBe(
      'input has nothing to speak: it holds only spaces, punctuation and markup tags.',
    )
    // The 0.8 models read brackets as words: "sad" is named, not taken for a tag.
    expect(nothingToSpeak('[sad]', false).message).toMatch(/^input has nothing that can be spoken: "s"/)
  })
})

describe('asksForSilence', () => {
  it('is a <pause> tag on the second-generation model only', () => {
    expect(asksForSilence('<pause>', true)).toBe(true)
    expect(asksForSilence('<PAUSE> …', true)).toBe(true)
    expect(asksForSilence('<pause>', false)).toBe(false)
    expect(asksForSilence('<laugh>', true)).toBe(false)
    expect(asksForSilence('pause', true)).toBe(false)
  })
})
