import { describe, expect, it } from 'vitest'
import { callNetworkFromEnv, onlyAddresses } from './webrtc-call.ts'

describe('the call network', () => {
  it('offers loopback by default, and the configured addresses and port range', () => {
    expect(callNetworkFromEnv({})).toMatchObject({ addresses: ['127.0.0.1'] })
    expect(callNetworkFromEnv({}).portRange).toBeUndefined()
    expect(
      callNetworkFromEnv({ SPEECH_WEBRTC_ADDRESSES: '192.0.2.7, ::1', SPEECH_WEBRTC_PORTS: '50000-50099' }),
    ).toMatchObject({ addresses: ['192.0.2.7', '::1'], portRange: { min: 50000, max: 50099 } })
  })

  it('refuses malformed settings, naming the variable', () => {
    expect(() => callNetworkFromEnv({ SPEECH_WEBRTC_ADDRESSES: 'example.com' })).toThrow(
      /SPEECH_WEBRTC_ADDRESSES/,
    )
    for (const ports of ['50000', '9-10', '60000-50000', '50000-70000'])
      expect(() => callNetworkFromEnv({ SPEECH_WEBRTC_PORTS: ports })).toThrow(/SPEECH_WEBRTC_PORTS/)
  })

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
