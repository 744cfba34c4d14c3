/** The AudioWorkletGlobalScope names the worklet module uses; TypeScript's DOM library does not declare them. */

declare const sampleRate: number
/** The context frame at which the quantum being rendered begins. */
declare const currentFrame: number

declare class AudioWorkletProcessor {
  readonly port: MessagePort
  constructor(options?: AudioWorkletNodeOptions)
}

declare function registerProcessor(
  name: string,
  processorCtor: new (options: AudioWorkletNodeOptions) => AudioWorkletProcessor,
): void
