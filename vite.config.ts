import react from '@vitejs/plugin-react'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  plugins: [react()],
  // The largest chunks are the WASM audio encoders (AAC about 1 MB), loaded only when a take is downloaded.
  build: { outDir: 'dist', sourcemap: true, chunkSizeWarningLimit: 1100 },
  test: {
    include: ['src/**/*.test.{ts,tsx}', 'server/**/*.test.ts', 'schema/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
