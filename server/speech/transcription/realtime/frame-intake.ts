/**
 * A realtime socket's client frames, handled strictly one after another, with back-pressure: when frames waiting to
 * be handled pass `pauseBytes`, reading from the socket pauses (TCP then slows the client down), and it resumes once
 * they are under half of that. A handler that throws is reported and the next frame is handled as usual.
 */
export interface PausableSocket {
  pause?(): void
  resume?(): void
}

export class FrameIntake {
  private queue: Promise<void> = Promise.resolve()
  private backlog = 0
  private paused = false

  constructor(
    private readonly socket: PausableSocket,
    private readonly handle: (data: Buffer, isBinary: boolean) => Promise<void>,
    private readonly onFailure: (err: unknown) => void,
    private readonly pauseBytes: number,
  ) {}

  receive(data: Buffer, isBinary: boolean): void {
    this.enqueue(data.length, () => this.handle(data, isBinary))
  }

  /** Any other work that must keep its place among the frames (a call's media), weighing `bytes` in the backlog. */
  enqueue(bytes: number, task: () => Promise<void>): void {
    this.backlog += bytes
    if (this.backlog > this.pauseBytes && !this.paused && this.socket.pause) {
      this.paused = true
      this.socket.pause()
    }
    this.queue = this.queue
      .then(task)
      .catch(this.onFailure)
      .finally(() => {
        this.backlog -= bytes
        if (this.paused && this.backlog < this.pauseBytes / 2) {
          this.paused = false
          this.socket.resume?.()
        }
      })
  }
}
