// Messages between the Electron main process and the service process (a utilityProcess in the
// app; a child_process.fork in tests). HTTP requests cross as a head plus body chunks in both
// directions, so uploads, downloads and the event stream flow without being held in memory.

export type Headers = [string, string][];

export interface ServiceInit {
  dataDir: string;
  rendererDist: string;
  nativeBinding?: string;
  /** Key for remote passwords, kept sealed by the OS keychain in the main process (base64). */
  secretKey?: string;
}

export type ToService =
  | { t: 'init'; init: ServiceInit }
  | { t: 'req'; id: number; url: string; method: string; headers: Headers; body: boolean }
  | { t: 'body'; id: number; chunk: Uint8Array }
  | { t: 'end'; id: number }
  | { t: 'cancel'; id: number }
  | { t: 'call'; id: number; name: 'setLoopback'; arg: { enabled: boolean; port: number } }
  | { t: 'call'; id: number; name: 'close'; arg?: undefined };

export type FromService =
  | { t: 'ready'; firstRun: { email: string; generatedPassword?: string } | null }
  | { t: 'fatal'; message: string }
  | { t: 'res'; id: number; status: number; headers: Headers }
  | { t: 'chunk'; id: number; chunk: Uint8Array }
  | { t: 'done'; id: number }
  | { t: 'fail'; id: number; message: string }
  | { t: 'reply'; id: number; value?: unknown; error?: string }
  | { t: 'job'; job: import('../../../shared/schemas/job.js').TrackedJob };

/** One end of the channel: how messages are sent and received on this side. */
export interface Port<In, Out> {
  post(msg: Out): void;
  onMessage(fn: (msg: In) => void): void;
}

/** A ReadableStream fed by chunk messages, with a hook for the reader cancelling it. */
export function chunkStream(onCancel: () => void) {
  let ctl!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => {
      ctl = c;
    },
    cancel: onCancel,
  });
  return {
    stream,
    push: (chunk: Uint8Array) => {
      try {
        ctl.enqueue(chunk);
      } catch {
        /* cancelled by its reader */
      }
    },
    end: () => {
      try {
        ctl.close();
      } catch {
        /* already closed */
      }
    },
    fail: (e: Error) => {
      try {
        ctl.error(e);
      } catch {
        /* already closed */
      }
    },
  };
}

/** Reads a body to its end, posting each chunk; stops when `stopped()` turns true. */
export async function pump(
  body: ReadableStream<Uint8Array>,
  send: (chunk: Uint8Array) => void,
  stopped: () => boolean,
  reader = body.getReader(),
) {
  for (;;) {
    if (stopped()) {
      await reader.cancel().catch(() => {});
      return;
    }
    const { done, value } = await reader.read();
    if (done) return;
    send(value);
  }
}
