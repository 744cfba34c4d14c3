import { describe, expect, it } from 'vitest'
import { DecodeQueue } from './decode-queue.ts'

const tick = () => new Promise((resolve) => setTimeout(resolve, 5))

describe('DecodeQueue', () => {
  it('runs at most `limit` tasks at once, in arrival order', async () => {
    const queue = new DecodeQueue(2)
    let running = 0
    let most = 0
    const started: number[] = []
    const task = (i: number) => async () => {
      started.push(i)
      most = Math.max(most, ++running)
      await tick()
      running--
      return i
    }
    expect(await Promise.all([0, 1, 2, 3, 4].map((i) => queue.run(task(i))))).toEqual([0, 1, 2, 3, 4])
    expect(most).toBe(2)
    expect(started).toEqual([0, 1, 2, 3, 4])
  })

  it('lets a waiting caller leave when its signal aborts, and frees the slot of a failed task', async () => {
    const queue = new DecodeQueue(1)
    const first = queue.run(async () => {
      await tick()
      throw new Error('decoder failed')
    })
    const controller = new AbortController()
    const waiting = queue.run(async () => 'never', controller.signal)
    controller.abort()
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' })
    await expect(first).rejects.toThrow('decoder failed')
    expect(await queue.run(async () => 'next')).toBe('next')
  })
})
