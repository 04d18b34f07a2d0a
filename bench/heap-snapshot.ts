/**
 * What grew in the server's JS heap per connection, from the two JSC heap snapshots that
 * `bench/connections.ts --snapshot <file>` writes (`<file>.before`, after the warm-up, and
 * `<file>`, with every connection up): objects by type (count and bytes per connection), then
 * by retainer (the type and property names of up to two objects pointing at them), largest
 * first. A `Cell Butterfly` is an object's out-of-line storage (a Map's or Set's hash table
 * shows as `Cell Butterfly <- Map.(int)`); a `(root)` retainer means no edge was recorded (the
 * values inside a Map or Set).
 *
 *   bun bench/heap-snapshot.ts <file> <connections> [--top 60]
 */
import { argOf } from "./fixture.ts";

const [file, connections] = process.argv.slice(2);
if (!file || !Number(connections)) throw new Error("usage: heap-snapshot.ts <file> <connections> [--top 60]");
const N = Number(connections);
const TOP = Number(argOf("top", "60"));

interface Snapshot {
  nodes: number[];
  nodeClassNames: string[];
  edges: number[];
  edgeTypes: string[];
  edgeNames: string[];
}
type Sizes = Map<string, { count: number; bytes: number }>;

/** Objects by type and by retainer signature. Nodes are [id, size, class, flags], edges [from, to, type, name or index]. */
async function load(path: string): Promise<{ byType: Sizes; byRetainer: Sizes }> {
  const s = JSON.parse(await Bun.file(path).text()) as Snapshot;
  const { nodes, edges, nodeClassNames: names, edgeTypes, edgeNames } = s;
  const classOf = new Map<number, string>();
  for (let i = 0; i < nodes.length; i += 4) classOf.set(nodes[i]!, names[nodes[i + 2]!]!);
  const retainers = new Map<number, string[]>();
  for (let i = 0; i < edges.length; i += 4) {
    const type = edgeTypes[edges[i + 2]!];
    const name = type === "Index" ? `[${edges[i + 3]}]` : type === "Internal" ? "(int)" : edgeNames[edges[i + 3]!]!;
    const to = edges[i + 1]!;
    const list = retainers.get(to) ?? [];
    if (list.length < 2) list.push(`${classOf.get(edges[i]!)}.${name}`);
    retainers.set(to, list);
  }
  const byType: Sizes = new Map();
  const byRetainer: Sizes = new Map();
  const add = (map: Sizes, key: string, bytes: number) => {
    const entry = map.get(key) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += bytes;
    map.set(key, entry);
  };
  for (let i = 0; i < nodes.length; i += 4) {
    const type = names[nodes[i + 2]!]!;
    add(byType, type, nodes[i + 1]!);
    add(byRetainer, `${type} <- ${(retainers.get(nodes[i]!) ?? ["(root)"]).join(" | ")}`, nodes[i + 1]!);
  }
  return { byType, byRetainer };
}

function grown(before: Sizes, after: Sizes): [string, number, number][] {
  return [...after]
    .map(([key, { count, bytes }]): [string, number, number] => [key, (count - (before.get(key)?.count ?? 0)) / N, (bytes - (before.get(key)?.bytes ?? 0)) / N])
    .filter(([, count, bytes]) => count >= 0.5 || bytes >= 16)
    .sort((a, b) => b[2] - a[2]);
}

const before = await load(`${file}.before`);
const after = await load(file);
const types = grown(before.byType, after.byType);
console.log(`JS heap grown per connection (snapshot sizes): ${types.reduce((sum, [, , bytes]) => sum + bytes, 0).toFixed(0)} bytes`);
for (const [type, count, bytes] of types.slice(0, 25)) console.log(`  ${type.padEnd(28)} ${count.toFixed(2).padStart(6)} ${bytes.toFixed(0).padStart(6)} B`);
console.log("by retainer:");
for (const [key, count, bytes] of grown(before.byRetainer, after.byRetainer).slice(0, TOP)) console.log(`  ${count.toFixed(2).padStart(6)} ${bytes.toFixed(0).padStart(6)} B  ${key}`);
