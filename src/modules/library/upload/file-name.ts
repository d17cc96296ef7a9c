// A file's name as the client sent it, fitted to what is stored: at most 255 characters, as file
// systems allow and the schema checks. Both upload paths (multipart and resumable) use it.

export const MAX_FILE_NAME_LENGTH = 255;

/** An extension longer than this is part of the name, not a type to keep. */
const MAX_EXTENSION_LENGTH = 16;

/**
 * At most 255 characters, counted as PostgreSQL counts them (code points, so an emoji is never cut in
 * half), cut before the extension so the download keeps its type: `A…A.pdf`.
 */
export function fitFileName(name: string): string {
  const characters = Array.from(name);
  if (characters.length <= MAX_FILE_NAME_LENGTH) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 ? Array.from(name.slice(dot)) : [];
  const kept = extension.length <= MAX_EXTENSION_LENGTH ? extension : [];
  return characters
    .slice(0, MAX_FILE_NAME_LENGTH - kept.length)
    .concat(kept)
    .join('');
}

/** A file name from Upload-Metadata: only its last path segment, printable, fitted (fitFileName). */
export function cleanFileName(name: string | null | undefined): string {
  const base = fitFileName(
    (name ?? '')
      .split(/[\\/]/)
      .pop()!
      .replace(/[\u0000-\u001f\u007f]/g, '')
      .trim(),
  );
  return base === '' || base === '.' || base === '..' ? 'upload' : base;
}
