import { describe, expect, it } from 'vitest'
import { hostAllowed, isLoopbackName, originAllowed, parseOrigins } from './host-guard.ts'

const loopback = { loopbackOnly: true, origins: [] }

describe('host guard', () => {
  it('knows loopback names and addresses, and nothing that merely starts like one', () => {
    for (const name of ['localhost', 'LOCALHOST', 'app.localhost', '127.0.0.1', '127.8.9.10', '[::1]', '::1'])
      expect(isLoopbackName(name), name).toBe(true)
    for (const name of [
      '127.0.0.1.nip.io',
      'localhost.example',
      '10.0.0.1',
      '[::2]',
      '0.0.0.0',
      'example.org',
    ])
      expect(isLoopbackName(name), name).toBe(false)
  })

  it('answers loopback Hosts, configured hosts, and everything when not loopback-only', () => {
    expect(hostAllowed(loopback, '127.0.0.1:8080')).toBe(true)
    expect(hostAllowed(loopback, 'rebind.example:8080')).toBe(false)
    expect(hostAllowed(loopback, undefined)).toBe(false)
    expect(hostAllowed(loopback, 'a b')).toBe(false)
    const proxied = { loopbackOnly: true, origins: parseOrigins('https://studio.example.org') }
    expect(hostAllowed(proxied, 'studio.example.org')).toBe(true)
    expect(hostAllowed(proxied, 'studio.example.org:444')).toBe(false)
    expect(hostAllowed({ loopbackOnly: false, origins: [] }, 'anything.example')).toBe(true)
  })

  it('judges origins by configuration and the arrival port, never by Host', () => {
    expect(originAllowed(loopback, undefined, 8080)).toBe(true)
    expect(originAllowed(loopback, 'http://127.0.0.1:8080', 8080)).toBe(true)
    expect(originAllowed(loopback, 'http://localhost:8080', 8080)).toBe(true)
    expect(originAllowed(loopback, 'http://localhost:5173', 8080)).toBe(false)
    expect(originAllowed(loopback, 'http://localhost', 80)).toBe(true)
    for (const bad of ['null', '', '%', 'http://', 'ftp://127.0.0.1:8080', 'https://evil.example'])
      expect(originAllowed(loopback, bad, 8080), bad).toBe(false)
    const configured = {
      loopbackOnly: false,
      origins: parseOrigins('https://studio.example.org/, http://x.test:81'),
    }
    expect(configured.origins).toEqual(['https://studio.example.org', 'http://x.test:81'])
    expect(originAllowed(configured, 'https://studio.example.org', 443)).toBe(true)
    expect(originAllowed(configured, 'http://127.0.0.1:8080', 8080)).toBe(false)
  })

  it('refuses a malformed STUDIO_ORIGIN at start-up', () => {
    expect(() => parseOrigins('studio.example.org')).toThrow()
    expect(() => parseOrigins('ftp://studio.example.org')).toThrow()
  })
})
