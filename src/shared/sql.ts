// Small helpers for hand-written SQL.

/** Escapes LIKE/ILIKE wildcards so user input matches literally (PostgreSQL's default escape is `\`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `%text%` for a literal substring match. */
export const containing = (text: string): string => `%${escapeLike(text)}%`;

/** Collects bind values and hands out their `$n` placeholders, so clauses can be composed in any order. */
export class Binds {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
