/**
 * Runs the tasks given for one key one after another, in the order given, and tasks of
 * different keys side by side. Holds an entry only while a key has tasks pending.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => {});
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with tasks pending or running. */
  get size(): number {
    return this.tails.size;
  }
}
