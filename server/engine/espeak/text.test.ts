import { describe, expect, it } from 'vitest'
import { escapeForSsml, espeakRate, MAX_RATE, MIN_RATE } from './text.ts'

describe('espeakRate', () => {
  it('scales the voice rate by speed', () => {
    expect(espeakRate(160, 1)).toBe(160)
    expect(espeakRate(160, 1.5)).toBe(240)
  })
  it("stays inside eSpeak's range at the API's extremes", () => {
    expect(espeakRate(175, 0.25)).toBe(MIN_RATE)
    expect(espeakRate(175, 4)).toBe(MAX_RATE)
  })
})

describe('escapeForSsml', () => {
  it('turns markup characters into entities, ampersands first', () => {
    expect(escapeForSsml('a < b && c > d &lt;')).toBe('a &lt; b &amp;&amp; c &gt; d &amp;lt;')
  })
  it('leaves other text alone', () => {
    expect(escapeForSsml('Grüße, 你好 "quoted"')).toBe('Grüße, 你好 "quoted"')
  })
})
