/** A listener of one event of `Events`. */
export type Listener<Events, E extends keyof Events> = (payload: Events[E]) => void;

/**
 * The small typed emitter of the SDK's own objects (a voice connection, a queue): `on` returns
 * the function that stops listening, and a listener that throws stops neither the others nor the
 * work that fired the event.
 */
export class Emitter<Events> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  on<E extends keyof Events>(event: E, listener: Listener<Events, E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  fire<E extends keyof Events>(event: E, payload: Events[E]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) {
      try {
        (listener as Listener<Events, E>)(payload);
      } catch {
        // The caller's work goes on.
      }
    }
  }
}
