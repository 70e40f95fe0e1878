// Entry of the service process. In the desktop app Electron starts it as a utilityProcess
// (messages through process.parentPort); under Node (tests, benches) child_process.fork
// starts it (messages through process.send with advanced serialisation).
import type { FromService, Port, ToService } from './wire.js';
import { runServiceProcess } from './serviceProcess.js';

interface ParentPort {
  postMessage(m: unknown): void;
  on(e: 'message', l: (ev: { data: unknown }) => void): void;
}
const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;

const port: Port<ToService, FromService> = parentPort
  ? { post: (m) => parentPort.postMessage(m), onMessage: (fn) => parentPort.on('message', (ev) => fn(ev.data as ToService)) }
  : { post: (m) => process.send!(m), onMessage: (fn) => process.on('message', (m) => fn(m as ToService)) };

// Without its parent the service has no one to answer: close cleanly rather than linger.
if (!parentPort) process.on('disconnect', () => process.exit(0));
runServiceProcess(port, (code) => setImmediate(() => process.exit(code)));
