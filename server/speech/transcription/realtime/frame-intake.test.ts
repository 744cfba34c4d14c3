import { describe, expect, it } from 'vitest'
import { FrameIntake } from './frame-intake.ts'

describe('FrameIntake', () => {
  it('handles frames one after another, in order, past a failing one', async () => {
    const seen: string[] = []
    const failures: unknown[] = []
    let release: () => void = () => {}
    const first = new Promise<void>((resolve) => {
      release = resolve
    })
    const intake = new FrameIntake(
      {},
      async (data) => {
        const text = data.toString()
        if (text === 'a') await first
        if (text === 'b') throw new Error('bad frame')
        seen.push(text)
      },
      (err) => failures.push(err),
      1024,
    )
    for (const text of ['a', 'b', 'c']) intake.receive(Buffer.from(text), false)
    await new Promise((r) => setTimeout(r, 10))
    expect(seen).toEqual([])
    release()
    await new Promise((r) => setTimeout(r, 10))
    expect(seen).toEqual(['a', 'c'])
    expect(failures).toHaveLength(1)
  })

  it('pauses the socket past the backlog limit and resumes under half of it', async () => {
    const calls: string[] = []
    const gates: Array<() => void> = []
    const intake = new FrameIntake(
      { pause: () => calls.push('pause'), resume: () => calls.push('resume') },
      () =>
        new Promise<void>((resolve) => {
          gates.push(resolve)
        }),
      () => {},
      100,
    )
    for (let i = 0; i < 4; i++) intake.receive(Buffer.alloc(40), false)
    expect(calls).toEqual(['pause'])
    // 160 bytes wait; each handled frame takes 40 off: under 50 only after three.
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 5))
      gates.shift()?.()
      await new Promise((r) => setTimeout(r, 5))
      expect(calls).toEqual(i < 2 ? ['pause'] : ['pause', 'resume'])
    }
  })
})
