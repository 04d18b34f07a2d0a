/**
 * Map stand-ins for the few maps every gateway connection holds (src/gateway/connection-memory.ts).
 *
 * A JSC `Map` allocates its hash table on the first entry: ~270 bytes for a map of one entry,
 * ~460 with four (bun:jsc heapSize, Bun 1.4.5), and every idle connection had five. These keep
 * the same entries in plain fields, with only the methods their users call.
 */

/**
 * A map that holds its first entry in two fields and moves to a real `Map` only when a second
 * key arrives: Socket.IO's `Client.sockets` and `Client.nsps` (one entry per namespace the
 * connection joined; Hearth has one namespace).
 */
export class OneEntryMap<K, V> {
  private key: K | undefined = undefined;
  private value: V | undefined = undefined;
  private has1 = false;
  private more: Map<K, V> | null = null;

  get size(): number {
    return this.more ? this.more.size : this.has1 ? 1 : 0;
  }

  get(key: K): V | undefined {
    if (this.more) return this.more.get(key);
    return this.has1 && this.key === key ? this.value : undefined;
  }

  has(key: K): boolean {
    if (this.more) return this.more.has(key);
    return this.has1 && this.key === key;
  }

  set(key: K, value: V): this {
    if (this.more) this.more.set(key, value);
    else if (!this.has1 || this.key === key) {
      this.key = key;
      this.value = value;
      this.has1 = true;
    } else {
      this.more = new Map([[this.key as K, this.value as V], [key, value]]);
      this.forget();
    }
    return this;
  }

  delete(key: K): boolean {
    if (this.more) return this.more.delete(key);
    if (!this.has1 || this.key !== key) return false;
    this.forget();
    return true;
  }

  clear(): void {
    this.more = null;
    this.forget();
  }

  *entries(): IterableIterator<[K, V]> {
    if (this.more) yield* this.more.entries();
    else if (this.has1) yield [this.key as K, this.value as V];
  }

  *keys(): IterableIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): IterableIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: K, map: this) => void): void {
    for (const [key, value] of this.entries()) fn(value, key, this);
  }

  private forget(): void {
    this.key = undefined;
    this.value = undefined;
    this.has1 = false;
  }
}

/**
 * The listener table of an @socket.io/bun-engine emitter (its `_listeners`, a `Map` from event
 * name to an array of listeners; the emitter calls only `get`, `set`, `delete` and `clear`).
 * Event names are a small fixed set ("packet", "close", "data", ...), so a null-prototype object
 * keyed by them shares its shape with every other connection's. A removed event is set to
 * `undefined` rather than deleted (a `delete` would give the object a shape of its own); the
 * emitter treats a missing entry and `undefined` alike.
 */
export class ListenerTable<L> {
  private readonly byEvent: Record<string, L[] | undefined> = Object.create(null) as Record<string, L[] | undefined>;

  constructor(entries?: Iterable<[string, L[]]>) {
    if (entries) for (const [event, listeners] of entries) this.byEvent[event] = listeners;
  }

  get(event: string): L[] | undefined {
    return this.byEvent[event];
  }

  set(event: string, listeners: L[]): this {
    this.byEvent[event] = listeners;
    return this;
  }

  delete(event: string): boolean {
    const had = this.byEvent[event] !== undefined;
    if (had) this.byEvent[event] = undefined;
    return had;
  }

  clear(): void {
    for (const event in this.byEvent) this.byEvent[event] = undefined;
  }
}

/**
 * A set that holds up to two values in fields and moves to a real `Set` from the third: the
 * in-memory adapter's room sets (a socket's list of rooms: its own id and `user:<id>`; a room's
 * members: one for the socket's own room). Same iteration order as a `Set`; a value deleted
 * during iteration before it is reached is not visited, as with a `Set`.
 */
export class SmallSet<T> {
  private a: T | undefined = undefined;
  private b: T | undefined = undefined;
  private n = 0;
  private more: Set<T> | null = null;

  get size(): number {
    return this.more ? this.more.size : this.n;
  }

  has(value: T): boolean {
    if (this.more) return this.more.has(value);
    return (this.n > 0 && this.a === value) || (this.n > 1 && this.b === value);
  }

  add(value: T): this {
    if (this.more) this.more.add(value);
    else if (this.has(value)) return this;
    else if (this.n === 0) {
      this.a = value;
      this.n = 1;
    } else if (this.n === 1) {
      this.b = value;
      this.n = 2;
    } else {
      this.more = new Set([this.a as T, this.b as T, value]);
      this.a = this.b = undefined;
      this.n = 0;
    }
    return this;
  }

  delete(value: T): boolean {
    if (this.more) return this.more.delete(value);
    if (this.n > 0 && this.a === value) {
      this.a = this.b;
      this.b = undefined;
      this.n--;
      return true;
    }
    if (this.n > 1 && this.b === value) {
      this.b = undefined;
      this.n = 1;
      return true;
    }
    return false;
  }

  clear(): void {
    this.more = null;
    this.a = this.b = undefined;
    this.n = 0;
  }

  *values(): IterableIterator<T> {
    if (this.more) return yield* this.more.values();
    const [a, b, n] = [this.a, this.b, this.n];
    if (n > 0 && this.has(a as T)) yield a as T;
    if (n > 1 && this.has(b as T)) yield b as T;
  }

  keys(): IterableIterator<T> {
    return this.values();
  }

  *entries(): IterableIterator<[T, T]> {
    for (const value of this.values()) yield [value, value];
  }

  [Symbol.iterator](): IterableIterator<T> {
    return this.values();
  }

  forEach(fn: (value: T, key: T, set: this) => void): void {
    for (const value of this.values()) fn(value, value, this);
  }
}
