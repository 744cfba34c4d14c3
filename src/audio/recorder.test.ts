import { describe, expect, it } from 'vitest'
import { describeLevel, measureLevel, meterPosition, SILENT, toDbfs } from './level-meter.ts'
import { durationProblem, extensionFor, formatClock, microphoneProblem, pickMimeType } from './recorder.ts'

describe('level meter', () => {
  it('measures peak and RMS of a block', () => {
    const sine = Float32Array.from(
      { length: 4800 },
      (_, i) => 0.5 * Math.sin((2 * Math.PI * 440 * i) / 48_000),
    )
    const level = measureLevel(sine)
    expect(level.peak).toBeCloseTo(0.5, 2)
    expect(level.rms).toBeCloseTo(0.5 / Math.SQRT2, 2)
    expect(level.peakDb).toBeCloseTo(-6.02, 1)
  })

  it('treats silence and empty blocks as the floor', () => {
    expect(measureLevel(new Float32Array(128))).toEqual(SILENT)
    expect(measureLevel([])).toEqual(SILENT)
    expect(toDbfs(0)).toBe(-60)
    expect(toDbfs(1e-9, -90)).toBe(-90)
    expect(toDbfs(1)).toBe(0)
  })

  it('places levels on the meter between the floor and full scale', () => {
    expect(meterPosition(-60)).toBe(0)
    expect(meterPosition(-30)).toBe(0.5)
    expect(meterPosition(0)).toBe(1)
    expect(meterPosition(6)).toBe(1)
    expect(meterPosition(-80)).toBe(0)
  })

  it('says what a level means for speech', () => {
    expect(describeLevel(SILENT)).toBe('silent')
    expect(describeLevel(measureLevel([0.01, -0.01]))).toBe('quiet')
    expect(describeLevel(measureLevel([0.2, -0.2]))).toBe('good')
    expect(describeLevel(measureLevel([1, -1]))).toBe('too loud')
  })
})

describe('recorder helpers', () => {
  it('prefers Opus in WebM, then Ogg, and falls back to the browser default', () => {
    expect(pickMimeType(() => true)).toBe('audio/webm;codecs=opus')
    expect(pickMimeType((t) => t.startsWith('audio/ogg'))).toBe('audio/ogg;codecs=opus')
    expect(pickMimeType(() => false)).toBeUndefined()
  })

  it('names the file after its format', () => {
    expect(extensionFor('audio/webm;codecs=opus')).toBe('webm')
    expect(extensionFor('audio/ogg; codecs=opus')).toBe('ogg')
    expect(extensionFor('audio/mp4')).toBe('m4a')
    expect(extensionFor('')).toBe('webm')
  })

  it('formats elapsed time as m:ss.d', () => {
    expect(formatClock(0)).toBe('0:00.0')
    expect(formatClock(4_250)).toBe('0:04.2')
    expect(formatClock(30_000)).toBe('0:30.0')
    expect(formatClock(61_900)).toBe('1:01.9')
    expect(formatClock(-5)).toBe('0:00.0')
  })

  it('accepts clips inside the range and explains the others', () => {
    const range = { minSeconds: 2, maxSeconds: 30 }
    expect(durationProblem(2, range)).toBeNull()
    expect(durationProblem(30, range)).toBeNull()
    expect(durationProblem(null, range)).toBeNull()
    expect(durationProblem(1.4, range)).toMatch(/1\.4 seconds long; it needs at least 2 seconds/)
    expect(durationProblem(31.2, range)).toMatch(/at most 30 seconds/)
  })

  it('explains why the microphone did not open, with a way forward', () => {
    const denied = microphoneProblem(new DOMException('denied', 'NotAllowedError'))
    expect(denied).toMatch(/did not allow the microphone/)
    expect(denied).toMatch(/upload a file/)
    expect(microphoneProblem(new DOMException('none', 'NotFoundError'))).toMatch(/No microphone was found/)
    expect(microphoneProblem(new DOMException('busy', 'NotReadableError'))).toMatch(/in use/)
  })
})
