import { describe, expect, it } from 'vitest'
import { onlyAddresses } from './webrtc-call.ts'

describe('the call network', () => {
  it('keeps only the host candidates on the offered addresses in an answer', () => {
    const sdp = [
      'v=0',
      'a=candidate:1 1 udp 2122265343 fd00::2 42517 typ host generation 0',
      'a=candidate:2 1 udp 2122194687 192.0.2.2 37534 typ host generation 0',
      'a=candidate:3 1 udp 2122063615 127.0.0.1 40942 typ host generation 0',
      'a=end-of-candidates',
    ].join('\r\n')
    expect(onlyAddresses(sdp, ['127.0.0.1']).split('\r\n')).toEqual([
      'v=0',
      'a=candidate:3 1 udp 2122063615 127.0.0.1 40942 typ host generation 0',
      'a=end-of-candidates',
    ])
  })
})
