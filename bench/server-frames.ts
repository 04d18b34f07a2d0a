const CRLF2 = Buffer.from("\r\n\r\n");
const decoder = new TextDecoder();

/**
 * What a hand-framed websocket client receives, read from its TCP stream's chunks, for the
 * benches' receivers (bench/fanout-client.ts, bench/audio-tcp-receiver.ts): the server's answer
 * to the upgrade request, then server-to-client frames (unmasked, unfragmented at the benches'
 * sizes). Nothing of a chunk is copied: payload bytes the receiver does not read (most of an
 * audio frame) are skipped, across chunks too, and only a frame cut by a chunk's end is kept and
 * completed from the start of the next chunk, with no more of it than the frame needs. The raw
 * and Hearth paths' receivers read alike, so neither path's load costs the machine more per byte.
 */
export class ServerFrames {
  /** The start of a frame cut by the last chunk's end. */
  private rest: Buffer | null = null;
  /** Payload bytes of the last frame still to come, unread. */
  private skip = 0;
  /** The upgrade's answer was read (and, unless refused, frames follow). */
  private answered = false;
  /** The upgrade was refused: nothing more is read. */
  private refused = false;

  constructor(
    /** How many bytes of a frame's payload the handler reads (the rest is skipped unread). */
    private readonly reads: (opcode: number, len: number) => number,
    /** One frame: `reads(opcode, len)` bytes of its payload are at `buf[start..]`; `len` is the whole payload's. */
    private readonly handle: (buf: Buffer, start: number, len: number, opcode: number) => void,
    /** The upgrade's answer: null when it switched protocols, else why not (its status line). */
    private readonly upgraded: (refusal: string | null) => void,
  ) {}

  /** A chunk of the stream (from `off`). */
  push(buf: Buffer, off = 0): void {
    if (this.refused) return;
    if (!this.answered) return this.answer(buf);
    if (this.skip > 0) {
      const n = Math.min(this.skip, buf.length - off);
      this.skip -= n;
      off += n;
      if (this.skip > 0) return;
    }
    if (this.rest && off < buf.length) {
      const kept = this.rest.length;
      // Completed with as few of this chunk's bytes as the frame needs: first enough for any
      // head, then exactly what the head says is needed.
      let take = 16;
      let joined: Buffer;
      let frame: Frame | null;
      for (;;) {
        joined = Buffer.concat([this.rest, buf.subarray(off, off + take)]);
        frame = this.frameAt(joined, 0);
        if (frame && frame.need <= joined.length) break;
        if (off + take >= buf.length) {
          this.rest = joined;
          return;
        }
        take = frame ? frame.need - kept : buf.length - off;
      }
      this.rest = null;
      this.handle(joined, frame.head, frame.len, frame.opcode);
      off += frame.head + frame.len - kept;
    }
    while (off < buf.length) {
      const frame = this.frameAt(buf, off);
      if (!frame || frame.need > buf.length - off) {
        this.rest = Buffer.from(buf.subarray(off));
        return;
      }
      this.handle(buf, off + frame.head, frame.len, frame.opcode);
      off += frame.head + frame.len;
    }
    this.skip = off - buf.length;
  }

  /** The upgrade's answer, up to its blank line (kept across chunks), then the frames after it. */
  private answer(chunk: Buffer): void {
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    this.rest = null;
    const end = buf.indexOf(CRLF2);
    if (end < 0) {
      this.rest = Buffer.from(buf);
      return;
    }
    this.answered = true;
    const status = decoder.decode(buf.subarray(0, end)).split("\r\n")[0]!;
    this.refused = !status.startsWith("HTTP/1.1 101");
    this.upgraded(this.refused ? `upgrade refused: ${status}` : null);
    this.push(buf, end + 4);
  }

  /** The frame at `off`, or null while its head is incomplete. */
  private frameAt(buf: Buffer, off: number): Frame | null {
    if (buf.length - off < 2) return null;
    let len = buf[off + 1]! & 0x7f;
    let head = 2;
    if (len === 126) {
      if (buf.length - off < 4) return null;
      len = (buf[off + 2]! << 8) | buf[off + 3]!;
      head = 4;
    } else if (len === 127) {
      if (buf.length - off < 10) return null;
      len = Number(buf.readBigUInt64BE(off + 2));
      head = 10;
    }
    const opcode = buf[off]! & 0x0f;
    return { head, len, opcode, need: head + Math.min(len, this.reads(opcode, len)) };
  }
}

interface Frame {
  head: number;
  len: number;
  opcode: number;
  /** Bytes from the frame's start that must be at hand to handle it. */
  need: number;
}
