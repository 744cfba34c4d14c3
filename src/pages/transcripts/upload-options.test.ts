import { describe, expect, it } from 'vitest'
import { type DiarizationChoice, diarizationFields, fileProblem } from './upload-options.ts'

const MiB = 1024 * 1024

describe('fileProblem', () => {
  it.each([
    { file: { name: 'talk.wav', size: 1000, type: 'audio/wav' }, problem: null },
    { file: { name: 'TALK.MP3', size: 1000, type: '' }, problem: null },
    { file: { name: 'clip.webm', size: 1000, type: 'video/webm' }, problem: null },
    { file: { name: 'exactly.flac', size: 25 * MiB, type: 'audio/flac' }, problem: null },
    {
      file: { name: 'big.wav', size: 25 * MiB + 1, type: 'audio/wav' },
      problem: /25\.1 MiB; the service takes recordings up to 25 MiB/,
    },
    { file: { name: 'empty.ogg', size: 0, type: 'audio/ogg' }, problem: /empty/ },
    { file: { name: 'notes.txt', size: 10, type: 'text/plain' }, problem: /not a recording/ },
    { file: { name: 'voice.xyz', size: 10, type: 'audio/x-unknown' }, problem: /not a recording/ },
    { file: { name: 'recording', size: 10, type: 'audio/wav' }, problem: null },
  ])('$file.name ($file.size bytes)', ({ file, problem }) => {
    const got = fileProblem(file)
    if (problem === null) expect(got).toBeNull()
    else expect(got).toMatch(problem)
  })
})

const choice = (patch: Partial<DiarizationChoice>): DiarizationChoice => ({
  enabled: true,
  mode: 'auto',
  exact: '',
  min: '',
  max: '',
  ...patch,
})

describe('diarizationFields (as contract 4.12 validates)', () => {
  it.each([
    {
      name: 'off sends nothing, whatever was typed',
      choice: choice({ enabled: false, mode: 'exact', exact: '99' }),
      fields: {},
    },
    { name: 'any number', choice: choice({}), fields: { diarization: 'true' } },
    {
      name: 'exact',
      choice: choice({ mode: 'exact', exact: ' 3 ' }),
      fields: { diarization: 'true', num_speakers: '3' },
    },
    {
      name: 'exact ignores the bounds',
      choice: choice({ mode: 'exact', exact: '2', min: '5', max: '1' }),
      fields: { diarization: 'true', num_speakers: '2' },
    },
    {
      name: 'range',
      choice: choice({ mode: 'range', min: '2', max: '4' }),
      fields: { diarization: 'true', min_speakers: '2', max_speakers: '4' },
    },
    {
      name: 'min only',
      choice: choice({ mode: 'range', min: '1' }),
      fields: { diarization: 'true', min_speakers: '1' },
    },
    {
      name: 'max only',
      choice: choice({ mode: 'range', max: '20' }),
      fields: { diarization: 'true', max_speakers: '20' },
    },
    {
      name: 'min equal to max',
      choice: choice({ mode: 'range', min: '3', max: '3' }),
      fields: { diarization: 'true', min_speakers: '3', max_speakers: '3' },
    },
  ])('$name', ({ choice, fields }) => {
    expect(diarizationFields(choice)).toEqual({ fields })
  })

  it.each([
    {
      name: 'exact missing',
      choice: choice({ mode: 'exact' }),
      errors: { exact: /Enter the number of speakers/ },
    },
    { name: 'exact zero', choice: choice({ mode: 'exact', exact: '0' }), errors: { exact: /from 1 to 20/ } },
    { name: 'exact 21', choice: choice({ mode: 'exact', exact: '21' }), errors: { exact: /from 1 to 20/ } },
    {
      name: 'exact fractional',
      choice: choice({ mode: 'exact', exact: '2.5' }),
      errors: { exact: /whole number/ },
    },
    {
      name: 'exact negative',
      choice: choice({ mode: 'exact', exact: '-1' }),
      errors: { exact: /whole number/ },
    },
    { name: 'range empty', choice: choice({ mode: 'range' }), errors: { min: /minimum, a maximum or both/ } },
    {
      name: 'min above max',
      choice: choice({ mode: 'range', min: '5', max: '2' }),
      errors: { max: /maximum \(2\) is below the minimum \(5\)/ },
    },
    {
      name: 'both out of range',
      choice: choice({ mode: 'range', min: '0', max: '30' }),
      errors: { min: /from 1 to 20/, max: /from 1 to 20/ },
    },
  ])('rejects $name', ({ choice, errors }) => {
    const got = diarizationFields(choice)
    expect(got.fields).toBeUndefined()
    expect(Object.keys(got.errors ?? {}).sort()).toEqual(Object.keys(errors).sort())
    for (const [field, pattern] of Object.entries(errors))
      expect(got.errors?.[field as keyof typeof errors]).toMatch(pattern)
  })
})
