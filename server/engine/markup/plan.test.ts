import { describe, expect, it } from 'vitest'
import { EMOTION_TAGS, SOUND_TAGS } from '../../../schema/markup.ts'
import { planUtterance, type UtterancePart } from './plan.ts'
import { EMOTION_PROSODY, openProsody } from './prosody.ts'

const speech = (parts: UtterancePart[]) => parts.flatMap((p) => (p.kind === 'speech' ? [p.ssml] : []))
const sounds = (parts: UtterancePart[]) => parts.flatMap((p) => (p.kind === 'sound' ? [p.sound] : []))
/** What eSpeak would read: the SSML with its elements removed. */
const spoken = (parts: UtterancePart[]) =>
  speech(parts)
    .map((s) => s.replace(/<[^>]*>/g, ''))
    .join(' ')
const EMPHASIS_OPEN = '<emphasis level="strong">'

describe('planUtterance', () => {
  it('leaves plain text as one escaped speech part', () => {
    expect(planUtterance('If a < b & c > d, say so.')).toEqual([
      { kind: 'speech', ssml: 'If a &lt; b &amp; c &gt; d, say so.' },
    ])
  })

  it('never reads a tag aloud, in any letter case', () => {
    const spellings = (tag: string) => [
      tag,
      tag.toUpperCase(),
      `${tag.charAt(0).toUpperCase()}${tag.slice(1)}`,
    ]
    const cases = [
      ...EMOTION_TAGS.flatMap((tag) => spellings(tag).map((w) => ({ tag, text: `[${w}] Hello there.` }))),
      ...SOUND_TAGS.flatMap((tag) => spellings(tag).map((w) => ({ tag, text: `Hello <${w}> there.` }))),
    ]
    for (const { tag, text } of cases) {
      const parts = planUtterance(text)
      expect(spoken(parts), text).not.toMatch(new RegExp(tag, 'i'))
      expect(spoken(parts), text).toMatch(/Hello\s.*there\./)
    }
  })

  it('puts each sound where its tag stands, between the speech around it', () => {
    expect(planUtterance('Oh no. <GASP> What was that? <um> I mean <laugh>')).toEqual([
      { kind: 'speech', ssml: 'Oh no.' },
      { kind: 'sound', sound: 'gasp' },
      { kind: 'speech', ssml: 'What was that?' },
      { kind: 'sound', sound: 'um' },
      { kind: 'speech', ssml: 'I mean' },
      { kind: 'sound', sound: 'laugh' },
    ])
    expect(planUtterance('<pause><sigh>')).toEqual([
      { kind: 'sound', sound: 'pause' },
      { kind: 'sound', sound: 'sigh' },
    ])
  })

  it('drops speech parts with nothing to pronounce', () => {
    expect(planUtterance('<laugh>. <giggle>!')).toEqual([
      { kind: 'sound', sound: 'laugh' },
      { kind: 'sound', sound: 'giggle' },
    ])
  })

  it('keeps speech parts of symbols and emoji, which eSpeak NG names', () => {
    expect(planUtterance('<laugh> 😀 <giggle> 50%% & #')).toEqual([
      { kind: 'sound', sound: 'laugh' },
      { kind: 'speech', ssml: '😀' },
      { kind: 'sound', sound: 'giggle' },
      { kind: 'speech', ssml: '50%% &amp; #' },
    ])
  })

  it('colours the sentence after an emotion tag, and only that sentence', () => {
    const sad = openProsody(EMOTION_PROSODY.sad)
    expect(planUtterance('[sad] I lost it. Then I found it.')).toEqual([
      { kind: 'speech', ssml: `${sad} I lost it</prosody>. Then I found it.` },
    ])
  })

  it('gives every emotion its own prosody', () => {
    const openings = EMOTION_TAGS.map((tag) => speech(planUtterance(`[${tag}] Fine.`))[0]?.split('>')[0])
    expect(new Set(openings).size).toBe(EMOTION_TAGS.length)
  })

  it('lets a later emotion tag in the same sentence take over', () => {
    const [ssml] = speech(planUtterance('[Joyful] Great news, [ANGRY] or not!'))
    expect(ssml).toBe(
      `${openProsody(EMOTION_PROSODY.joyful)} Great news</prosody>${openProsody(EMOTION_PROSODY.angry)},  or not</prosody>!`,
    )
  })

  it('keeps the emotion across a sound within its sentence', () => {
    const sad = openProsody(EMOTION_PROSODY.sad)
    expect(planUtterance('[sad] I lost <sob> everything. Anyway.')).toEqual([
      { kind: 'speech', ssml: `${sad} I lost </prosody>` },
      { kind: 'sound', sound: 'sob' },
      { kind: 'speech', ssml: `${sad} everything</prosody>. Anyway.` },
    ])
  })

  it('puts tags before sentence punctuation, where eSpeak NG still applies them', () => {
    const sad = openProsody(EMOTION_PROSODY.sad)
    expect(speech(planUtterance('Fine. [sad] I lost it. Then I found it.'))).toEqual([
      `Fine${sad}.  I lost it</prosody>. Then I found it.`,
    ])
    const [ssml] = speech(planUtterance('Fine. (((Stop!))) "Now."'))
    expect(ssml).toMatch(/^Fine<emphasis [^>]*><prosody [^>]*>\. Stop<\/prosody><\/emphasis>! "Now\."$/)
  })

  it('leaves spoken symbols inside the emphasis they belong to', () => {
    const [ssml] = speech(planUtterance('Tom & (((Jerry &))) 50% off.'))
    expect(ssml).toMatch(
      /^Tom &amp; <emphasis [^>]*><prosody [^>]*>Jerry &amp;<\/prosody><\/emphasis> 50% off\.$/,
    )
  })

  it('ignores an emotion tag with no sentence after it', () => {
    expect(planUtterance('That is all. [sad]')).toEqual([{ kind: 'speech', ssml: 'That is all.' }])
  })

  describe('emphasis', () => {
    const emphasized = (text: string) => speech(planUtterance(text)).join('').includes(EMPHASIS_OPEN)

    it('stresses words in exactly three parentheses, which are not spoken', () => {
      const [ssml] = speech(planUtterance('I said (((never))) again.'))
      expect(ssml).toMatch(
        /^I said <emphasis level="strong"><prosody [^>]*>never<\/prosody><\/emphasis> again\.$/,
      )
    })

    it('accepts up to 80 characters and reads 81 as written', () => {
      const eighty = `${'really '.repeat(11)}big`
      expect(eighty).toHaveLength(80)
      expect(emphasized(`Say (((${eighty}))) now.`)).toBe(true)
      expect(spoken(planUtterance(`Say (((${eighty}))) now.`))).not.toContain('(')
      const text = `Say (((${eighty}s))) now.`
      expect(emphasized(text)).toBe(false)
      expect(spoken(planUtterance(text))).toBe(text)
    })

    it('reads two or four parentheses as written', () => {
      for (const text of ['A ((two)) b.', 'A ((((four)))) b.', 'A ((((four))) b.', 'A (((four)))) b.']) {
        expect(emphasized(text), text).toBe(false)
        expect(spoken(planUtterance(text)), text).toBe(text)
      }
    })

    it('reads emphasis across a line break as written', () => {
      const text = 'A (((two\nlines))) b.'
      expect(emphasized(text)).toBe(false)
      expect(spoken(planUtterance(text))).toBe(text)
    })

    it('keeps the emotion inside emphasis and scales its loudness from the emotion', () => {
      const [ssml] = speech(planUtterance('[sad] It was (((mine))).'))
      expect(ssml).toMatch(/^<prosody [^>]*> It was <emphasis level="strong"><prosody [^>]*volume="52">mine/)
    })

    it('acts on tags inside emphasis and stresses the words on both sides', () => {
      const parts = planUtterance('(((no <gasp> way)))')
      expect(sounds(parts)).toEqual(['gasp'])
      expect(speech(parts).every((s) => s.startsWith(EMPHASIS_OPEN))).toBe(true)
    })
  })

  it('reads unknown tags as written, escaped for SSML', () => {
    expect(planUtterance('I am [happy] <foo> [laugh] <sad> today.')).toEqual([
      { kind: 'speech', ssml: 'I am [happy] &lt;foo&gt; [laugh] &lt;sad&gt; today.' },
    ])
  })

  it('never lets user text open an SSML element', () => {
    for (const text of [
      '<prosody rate="9">x</prosody>',
      '[sad] <voice name="whisper">hi',
      '(((<break time="9s"/>)))',
    ]) {
      const ssml = speech(planUtterance(text)).join('')
      expect(ssml, text).not.toMatch(/<(?!\/?(prosody|emphasis)[ >])/)
    }
  })
})
