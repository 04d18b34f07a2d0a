/**
 * The bench receivers' reconnect (bench/audio-tcp-receiver.ts, bench/fanout-client.ts): a
 * connection the server closed is opened again, tried every 100 ms until it opens or `stopped()`,
 * and handed to `put`.
 */
export function reopen<T>(open: () => Promise<T>, put: (conn: T) => void, stopped: () => boolean): void {
  const again = () =>
    open().then(put, () => {
      if (!stopped()) setTimeout(again, 100);
    });
  void again();
}
