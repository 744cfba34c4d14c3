import { describe, expect, it } from 'vitest'
import { MemorySlotPool as SlotPool } from './slots.ts'

const slotOf = (r: Awaited<ReturnType<SlotPool['acquire']>>) => {
  if (!('slot' in r)) throw new Error(`rejected: ${r.rejected}`)
  return r.slot
}

describe('SlotPool', () => {
  it('grants up to the limit per owner and rejects the next at once when no waiting is allowed', async () => {
    const pool = new SlotPool(2)
    const a = slotOf(await pool.acquire('org1'))
    slotOf(await pool.acquire('org1'))
    expect(await pool.acquire('org1')).toEqual({ rejected: 'full' })
    // Another owner has its own slots.
    slotOf(await pool.acquire('org2'))
    a.release()
    slotOf(await pool.acquire('org1'))
    expect(pool.held('org1')).toBe(2)
    expect(pool.held()).toBe(3)
    expect(await pool.available('org1')).toBe(false)
    expect(await pool.available('org2')).toBe(true)
  })

  it('releases once however often release is called', async () => {
    const pool = new SlotPool(1)
    const a = slotOf(await pool.acquire('o'))
    a.release()
    a.release()
    slotOf(await pool.acquire('o'))
    expect(await pool.acquire('o')).toEqual({ rejected: 'full' })
  })

  it('hands a released slot to the first waiter in line, before newcomers', async () => {
    const pool = new SlotPool(1, 2)
    const a = slotOf(await pool.acquire('o'))
    const order: string[] = []
    const w1 = pool.acquire('o', 1000).then((r) => {
      order.push('w1')
      return r
    })
    const w2 = pool.acquire('o', 1000).then((r) => {
      order.push('w2')
      return r
    })
    expect(await pool.acquire('o', 1000)).toEqual({ rejected: 'full' }) // the line holds two
    a.release()
    slotOf(await w1).release()
    slotOf(await w2).release()
    expect(order).toEqual(['w1', 'w2'])
    expect(pool.held()).toBe(0)
  })

  it('gives up after the wait and on abort, leaving the line', async () => {
    const pool = new SlotPool(1, 5)
    slotOf(await pool.acquire('o'))
    expect(await pool.acquire('o', 20)).toEqual({ rejected: 'timeout' })
    const controller = new AbortController()
    const waiting = pool.acquire('o', 10_000, controller.signal)
    controller.abort()
    expect(await waiting).toEqual({ rejected: 'timeout' })
    expect(pool.held('o')).toBe(1)
  })
})
