import { describe, expect, it } from 'vitest'
import { formatBytes } from './bytes.ts'

const MIB = 1024 * 1024

describe('formatBytes', () => {
  it('uses bytes, then whole KiB, then MiB to a tenth', () => {
    expect(formatBytes(0)).toBe('0 bytes')
    expect(formatBytes(1)).toBe('1 byte')
    expect(formatBytes(512)).toBe('512 bytes')
    expect(formatBytes(1024)).toBe('1 KiB')
    expect(formatBytes(40 * 1024 + 300)).toBe('40 KiB')
    expect(formatBytes(Math.round(3.2 * MIB))).toBe('3.2 MiB')
  })

  it('shows a limit as it is written and a size just past it as more than the limit', () => {
    expect(formatBytes(25 * MIB)).toBe('25 MiB')
    expect(formatBytes(10 * MIB)).toBe('10 MiB')
    expect(formatBytes(25 * MIB + 1)).toBe('25.1 MiB')
  })
})
