/** The part of the eSpeak NG Emscripten module the engine uses (the package ships no types). */
declare module '@echogarden/espeak-ng-emscripten' {
  export interface EspeakVoiceInfo {
    name: string
    identifier: string
    languages: Array<{ priority: number; name: string }>
  }

  export interface EspeakNGWorker {
    /** 0 when the voice exists, non-zero otherwise. */
    set_voice(name: string): number
    set_rate(wordsPerMinute: number): void
    set_pitch(pitch: number): void
    set_range(range: number): void
    get_samplerate(): number
    list_voices(): EspeakVoiceInfo[]
    /** Synchronous; the callback gets each chunk of 16-bit samples and returns true to abort. */
    synthesize(text: string, onChunk: (samples: Int16Array, events: unknown[]) => boolean): void
  }

  export interface EspeakModule {
    eSpeakNGWorker: new () => EspeakNGWorker
    /** The module's linear memory; a new view after the memory grows, so read it each time. */
    readonly HEAPU8: Uint8Array
  }

  export default function init(): Promise<EspeakModule>
}
