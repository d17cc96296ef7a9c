// Text embeddings behind one interface. The model's name and dimension are stored with every vector
// (resource_passages.embedding_model), so switching models re-embeds in the background instead of
// mixing two vector spaces in one index.

export interface Embedder {
  /** Stable identifier stored with each vector, e.g. `use-lite-512` or `openai:text-embedding-3-small@512`. */
  readonly model: string;
  readonly dimensions: number;
  /** One unit-length vector per input, in order. Empty strings are refused by the caller, not here. */
  embed(texts: readonly string[]): Promise<number[][]>;
}

/** The dimension of the passages' vector column (migrations/20261124000100-library.ts). */
export const PASSAGE_VECTOR_DIMENSIONS = 512;

/** pgvector's text form of a vector, for a bound parameter (`$1::vector`). */
export const toVectorLiteral = (vector: readonly number[]): string => `[${vector.join(',')}]`;
