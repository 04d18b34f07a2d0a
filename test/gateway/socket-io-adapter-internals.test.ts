import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Adapter, ClusterAdapter } from "socket.io-adapter";
import {
  addOffsetIfNecessary,
  clusterNodeId,
  decodeOptions,
  encodeOptions,
  isClusterAdapter,
  SOCKET_IO_ADAPTER_VERSION,
  takeOverLocalDelivery,
  type EventPacket,
} from "../../src/gateway/socket-io-adapter-internals.ts";
import { expectMember } from "../helpers/internals-contract.ts";

/** src/gateway/socket-io-adapter-internals.ts: each private member of socket.io-adapter it relies on. */
const require = createRequire(import.meta.url);
const member = (name: string, holds: boolean, expected: string) => expectMember("socket.io-adapter", SOCKET_IO_ADAPTER_VERSION, name, holds, expected);

/** The least of a namespace an Adapter needs. */
const nsp = { name: "/", server: { encoder: { encode: (packet: EventPacket) => [`${packet.type}${JSON.stringify(packet.data)}`] } }, sockets: new Map() };

test("Adapter.broadcast encodes with _encode, then delivers with apply", () => {
  const proto = Adapter.prototype as unknown as Record<string, unknown>;
  member("Adapter._encode", typeof proto._encode === "function", "a method");
  member("Adapter.apply", typeof proto.apply === "function", "a method");
  const broadcast = String(proto.broadcast);
  const encodeAt = broadcast.indexOf("this._encode(packet, packetOpts)");
  const applyAt = broadcast.indexOf("this.apply(opts,");
  member("Adapter.broadcast", encodeAt >= 0 && applyAt > encodeAt, "calls this._encode(packet, packetOpts), then this.apply(opts, ...)");
  const adapter = new Adapter(nsp as never) as unknown as { encoder?: { encode?: unknown } };
  member("Adapter.encoder", typeof adapter.encoder?.encode === "function", "the namespace server's encoder");
});

test("a taken packet is handed over once encoded; others go through the adapter's own loop", () => {
  const adapter = new Adapter(nsp as never);
  const delivered: string[] = [];
  takeOverLocalDelivery(adapter, { takes: (packet) => packet.id === undefined, deliver: (_opts, _packet, text) => delivered.push(text) });
  adapter.broadcast({ type: 2, data: ["e", { a: 1 }] } as never, { rooms: new Set(["r"]), except: new Set() });
  expect(delivered).toEqual(['2["e",{"a":1}]']);
  // With an ack id: the adapter's own steps (no socket in the room, so nothing is written).
  adapter.broadcast({ type: 2, data: ["e", {}], id: 1 } as never, { rooms: new Set(["r"]), except: new Set() });
  expect(delivered).toHaveLength(1);
});

test("ClusterAdapter: uid, publishAndReturnOffset, addOffsetIfNecessary and the options' wire form", () => {
  const proto = ClusterAdapter.prototype as unknown as Record<string, unknown>;
  member("ClusterAdapter.publishAndReturnOffset", typeof proto.publishAndReturnOffset === "function", "a method answering the published message's offset");
  member("ClusterAdapter.addOffsetIfNecessary", typeof proto.addOffsetIfNecessary === "function", "a method");
  const withRecovery = { ...nsp, server: { ...nsp.server, opts: { connectionStateRecovery: {} } } };
  const adapter = new (ClusterAdapter as unknown as new (nsp: unknown) => object)(withRecovery);
  member("ClusterAdapter.uid", isClusterAdapter(adapter) && clusterNodeId(adapter).length > 0, "this node's id, a string set by the constructor");
  const packet = { type: 2, data: ["e", {}] };
  addOffsetIfNecessary(adapter, packet, { rooms: new Set(), except: new Set() }, "1-0");
  member("ClusterAdapter.addOffsetIfNecessary", packet.data.at(-1) === "1-0", "appends the offset to an event packet's data");
  const source = readFileSync(join(dirname(require.resolve("socket.io-adapter")), "cluster-adapter.js"), "utf8");
  const wire = /function encodeOptions\(opts\) \{\s*return \{\s*rooms: \[\.\.\.opts\.rooms\],\s*except: \[\.\.\.opts\.except\],\s*flags: opts\.flags,\s*\};/.test(source);
  member("encodeOptions", wire, "{ rooms: [...opts.rooms], except: [...opts.except], flags: opts.flags }");
  const opts = { rooms: new Set(["a"]), except: new Set(["b"]), flags: { local: true } };
  expect(decodeOptions(encodeOptions(opts))).toEqual(opts);
});
