import { getLocal } from 'mockttp';

/** Where a held write stops: before the remote sees it, or done there with its answer not yet passed on. */
export type HeldAt = 'request' | 'answer';

export interface Hold {
  /** Resolves with the held write (`METHOD /path`) once it is held. */
  held: Promise<string>;
  /**
   * Ends the hold once its client is gone: a held request is closed without reaching the remote,
   * a held answer is dropped, so the remote keeps what it had at the kill.
   */
  release: () => void;
}

export interface HeldWriteProxy {
  url: string;
  /** The writes that reached the proxy, in order of arrival, as `METHOD /path`. */
  writes: string[];
  /** Holds the `nth` write (1 for the first) matching `match` from now on, at `at`, and every write after it. */
  hold: (nth: number, at: HeldAt, match?: (method: string, pathname: string) => boolean) => Hold;
  /** Releases a hold still on, then stops. */
  stop: () => Promise<void>;
}

/** Writes only: GET and HEAD are reads, and the token request precedes every sync. */
const isWrite = (method: string, pathname: string) => method !== 'GET' && method !== 'HEAD' && !pathname.endsWith('/token');

/**
 * A loopback proxy to `remoteUrl` that can hold one chosen write, and every write after it, and
 * lets reads through. A sync cannot get past a write it is waiting for, so a crash test that kills
 * its process once `held` resolves kills it at that point of the exchange, however fast or slow
 * the machine: a state, not a moment. Released, held requests never reach the remote and a held
 * answer is dropped; later writes go through again.
 */
export async function heldWriteProxy(remoteUrl: string): Promise<HeldWriteProxy> {
  const proxy = getLocal();
  await proxy.start();
  const origin = new URL(remoteUrl).origin;
  const writes: string[] = [];
  let armed: {
    left: number;
    at: HeldAt;
    match: (m: string, p: string) => boolean;
    reached: (w: string) => void;
    released: Promise<void>;
  } | null = null;
  let heldAnswer: { id: string; reached: (w: string) => void; released: Promise<void> } | null = null;
  // From the held write on, every later write waits too: the push's other workers cannot go on
  // while the test reacts, so what the remote holds at the kill does not depend on speed.
  let frozen: Promise<void> | null = null;
  const releases: (() => void)[] = [];
  await proxy.forAnyRequest().thenPassThrough({
    beforeRequest: async (req) => {
      const url = new URL(req.url);
      const forward = { url: origin + url.pathname + url.search };
      if (!isWrite(req.method, url.pathname)) return forward;
      const write = `${req.method} ${url.pathname}`;
      writes.push(write);
      if (frozen) {
        await frozen;
        return { response: 'close' as const };
      }
      const a = armed;
      if (!a || !a.match(req.method, url.pathname) || --a.left > 0) return forward;
      armed = null;
      frozen = a.released;
      if (a.at === 'answer') {
        heldAnswer = { id: req.id, reached: a.reached, released: a.released };
        return forward;
      }
      a.reached(write);
      await a.released;
      return { response: 'close' as const };
    },
    beforeResponse: async (_res, req) => {
      const h = heldAnswer;
      if (h?.id !== req.id) return undefined;
      heldAnswer = null;
      h.reached(`${req.method} ${new URL(req.url).pathname}`);
      await h.released;
      return 'close' as const;
    },
  });
  return {
    url: proxy.url,
    writes,
    hold: (nth, at, match = () => true) => {
      let reached!: (w: string) => void;
      let open!: () => void;
      const held = new Promise<string>((r) => (reached = r));
      const released = new Promise<void>((r) => (open = r));
      // At once, not when the promise settles: the next sync's writes go through.
      const release = () => {
        if (frozen === released) frozen = null;
        open();
      };
      releases.push(release);
      armed = { left: nth, at, match, reached, released };
      return { held, release };
    },
    stop: () => {
      for (const r of releases) r();
      return proxy.stop();
    },
  };
}
