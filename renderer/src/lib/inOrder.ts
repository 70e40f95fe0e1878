/**
 * Requests to one target (a record's field, a record's public date) go out one after the other,
 * in the order they were asked for. Sent at once, two could reach the service in either order,
 * and the target would keep the earlier one. Different targets never wait for each other, and a
 * request with nothing before it is sent at once, in the caller's own event.
 */
const tails = new Map<string, Promise<void>>();

export function inOrder<T>(target: string, send: () => Promise<T>): Promise<T> {
  const before = tails.get(target);
  // A request that failed still ends its turn: the next one goes.
  const mine = before ? before.then(send) : send();
  const tail = mine.then(
    () => undefined,
    () => undefined,
  );
  tails.set(target, tail);
  void tail.then(() => {
    if (tails.get(target) === tail) tails.delete(target);
  });
  return mine;
}
