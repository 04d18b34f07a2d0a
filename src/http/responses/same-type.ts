/**
 * `Same<A, B>` is `true` when each type is assignable to the other. A response schema whose
 * domain type exists is checked against it at compile time (`type _ = Assert<Same<...>>`), so the
 * documented shape and the code's type cannot drift; the black-box tests check the values.
 */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export type Assert<T extends true> = T;
