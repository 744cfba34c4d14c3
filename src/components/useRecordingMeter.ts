import { type RefObject, useEffect, useRef, useState } from 'react'
import { describeLevel, type Level, meterPosition } from '../audio/level-meter.ts'
import type { Recorder } from '../audio/recorder.ts'

/**
 * The live readout of a recording: elapsed time and a word for the level a few times a second, and the `<meter>`
 * written directly every frame (no re-render per frame). Leaving the page mid-recording releases the microphone.
 */
export function useRecordingMeter(recorder: Recorder | null, meterRef: RefObject<HTMLMeterElement | null>) {
  const [elapsedMs, setElapsedMs] = useState(0)
  const [levelWord, setLevelWord] = useState<ReturnType<typeof describeLevel>>('silent')

  useEffect(() => {
    if (!recorder) return
    const timer = setInterval(() => setElapsedMs(recorder.elapsedMs()), 100)
    let lastWord = 0
    const unsubscribe = recorder.meter.subscribe((level: Level) => {
      if (meterRef.current) meterRef.current.value = meterPosition(level.peakDb)
      const now = performance.now()
      if (now - lastWord > 500) {
        lastWord = now
        setLevelWord(describeLevel(level))
      }
    })
    return () => {
      clearInterval(timer)
      unsubscribe()
      if (meterRef.current) meterRef.current.value = 0
    }
  }, [recorder, meterRef])

  const recorderRef = useRef<Recorder | null>(null)
  recorderRef.current = recorder
  useEffect(() => () => recorderRef.current?.discard(), [])

  return { elapsedMs, setElapsedMs, levelWord }
}
