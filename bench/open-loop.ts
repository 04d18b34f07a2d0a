/**
 * The schedule of the open-loop load clients (bench/rate-client.ts, bench/raw-rate-client.ts):
 * `rate` requests a second for `seconds`, whatever the answers' pace. Every ~1 ms tick sends the
 * requests due since the start (`send`: false when the request could not go, counted as
 * dropped), then calls `afterTick` (a client that batches writes flushes them there). Then
 * answers still open (`open()`) get a second.
 */
export async function openLoop(
  rate: number,
  seconds: number,
  send: (now: number) => boolean,
  open: () => number,
  afterTick: () => void = () => {},
): Promise<{ offered: number; dropped: number }> {
  let offered = 0;
  let dropped = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  let due = 0;
  for (let now = started; now < end; now = performance.now()) {
    // Requests due by now, at `rate` per second since the start.
    const target = Math.floor(((now - started) / 1000) * rate);
    for (; due < target; due++) {
      offered++;
      if (!send(now)) dropped++;
    }
    afterTick();
    await Bun.sleep(1);
  }
  const grace = performance.now() + 1000;
  while (open() > 0 && performance.now() < grace) await Bun.sleep(5);
  return { offered, dropped };
}
