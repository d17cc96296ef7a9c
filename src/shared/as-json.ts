/** What a value becomes once sent as JSON and parsed again: dates are ISO strings, the rest keeps its shape. */
export type AsJson<T> = T extends Date
  ? string
  : T extends ReadonlyArray<infer U>
    ? AsJson<U>[]
    : T extends object
      ? { [K in keyof T]: AsJson<T[K]> }
      : T;
