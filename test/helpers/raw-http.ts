/**
 * Sends `request` as raw bytes to 127.0.0.1:`port` and reads the whole answer: how a test sends
 * a request fetch would not (no Host header, two Host headers, HTTP/1.0), since fetch always
 * sets the Host header itself.
 */
export async function rawHttp(port: number, request: string): Promise<{ status: number; body: string }> {
  const chunks: Uint8Array[] = [];
  const done = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data: (_socket, data) => void chunks.push(new Uint8Array(data)),
      close: () => done.resolve(),
      error: (_socket, error) => done.reject(error),
    },
  });
  socket.write(request);
  await done.promise;
  const [head = "", body = ""] = Buffer.concat(chunks).toString("utf8").split("\r\n\r\n");
  return { status: Number(head.split(" ")[1]), body };
}
