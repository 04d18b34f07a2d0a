/**
 * `f` applied to what `promise` holds, as `promise.then(f)` would, except that when `promise`
 * has already settled (`Bun.peek`), `f` runs now and its answer is an already-settled promise.
 *
 * On SQLite every statement answers at once (src/store/sqlite/sqlite-database.ts), so a chain of
 * reads written with this instead of `await` is settled when it returns, and an HTTP handler can
 * answer in the same turn (src/http/native-routes.ts). Each `await` is a turn of the microtask
 * queue, and a handler whose answer is a pending promise costs Bun's server 5-6% more CPU a
 * request than one answering a value (bench/history.md, "Fifteenth pass"). On PostgreSQL the
 * promises are pending and this is `promise.then(f)`.
 *
 * As with `then`, what `f` throws becomes the answer's rejection, and a rejected `promise` is
 * the answer as it is.
 */
export function thenAtOnce<T, U>(promise: Promise<T>, f: (value: T) => U | Promise<U>): Promise<U> {
  switch (Bun.peek.status(promise)) {
    case "fulfilled":
      try {
        const answer = f(Bun.peek(promise) as T);
        return answer instanceof Promise ? answer : Promise.resolve(answer);
      } catch (error) {
        return Promise.reject(error);
      }
    case "rejected":
      return promise as unknown as Promise<U>;
    default:
      return promise.then(f);
  }
}
