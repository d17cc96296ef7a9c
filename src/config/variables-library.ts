// The resource library's variables (sizes, storage, resumable uploads) and those of AI and media:
// the second half of src/config/variables.ts, kept apart so each file stays readable.
import { absoluteUrl, choice, described, flag, integer, origins, text } from './kinds.ts';

export const library = {
  LIBRARY_MAX_FILE_BYTES: described(
    integer(1024, 5 * 1024 ** 3).prefault(String(500 * 1024 * 1024)),
    'Largest library file (500 MiB by default); a bigger upload is cut off with 413 and nothing is kept.',
  ),
  LIBRARY_STORAGE_DIR: described(text('path').optional(), 'Library files on local disk, when S3_BUCKET is not set.', {
    computedDefault: '`$DATA_DIR/files`',
  }),
  LIBRARY_UPLOADS_DIR: described(
    text('path').optional(),
    'Where unfinished resumable (tus) uploads collect their bytes; finished ones move to storage.',
    { computedDefault: '`$DATA_DIR/uploads`' },
  ),
  LIBRARY_UPLOAD_EXPIRY_HOURS: described(
    integer(1, 24 * 30).prefault('24'),
    'Unfinished resumable uploads expire after this long and are removed by a job.',
  ),
  LIBRARY_UPLOAD_CORS_ORIGINS: described(
    origins().prefault(''),
    'Browser origins that may upload straight to `/api/uploads` (CORS); none by default.',
  ),
  LIBRARY_TEMP_MAX_AGE_MINUTES: described(
    integer(1, 7 * 24 * 60).prefault('60'),
    'Temporary storage keys older than this are leftovers of a crash; the storage sweeper removes them.',
  ),
  LIBRARY_PUBLIC_REQUESTS_PER_HOUR: described(
    integer(1, 1_000_000).prefault('600'),
    'Requests per hour one client address may make to the anonymous public catalogue (`/api/public/…`).',
  ),
  S3_BUCKET: described(
    text('bucket name').optional(),
    'Keep library files in this bucket of S3-compatible storage instead of on local disk; the other S3_ ' +
      'variables apply only with it.',
  ),
  S3_ENDPOINT: described(absoluteUrl().optional(), 'Address of an S3-compatible server other than AWS (MinIO, …).', {
    computedDefault: "AWS's endpoint for S3_REGION",
    example: 'http://127.0.0.1:9000',
  }),
  S3_REGION: described(text('region').prefault('us-east-1'), 'Region of the bucket.'),
  S3_ACCESS_KEY_ID: described(text().optional(), 'Access key for the bucket, with S3_SECRET_ACCESS_KEY.', {
    computedDefault: "the AWS SDK's own credential chain (environment, instance role)",
  }),
  S3_SECRET_ACCESS_KEY: described(text('secret').optional(), 'Secret of S3_ACCESS_KEY_ID.'),
  S3_FORCE_PATH_STYLE: described(
    flag().optional(),
    'Address the bucket by path, as MinIO and most self-hosted S3 servers expect, rather than by host name (AWS).',
    { computedDefault: 'true when S3_ENDPOINT is set' },
  ),
};

export const media = {
  ANTHROPIC_API_KEY: described(
    text('secret').optional(),
    'Claude writes chat answers and podcast scripts; unset, the chat quotes the best passages (search mode) and ' +
      'scripts are composed from the text.',
  ),
  ANTHROPIC_BASE_URL: described(absoluteUrl().optional(), 'Address of the Anthropic API (a proxy or stand-in).', {
    computedDefault: "the SDK's",
  }),
  ANTHROPIC_MODEL: described(text('model name').prefault('claude-sonnet-4-5'), 'Claude model to ask.'),
  ANTHROPIC_TIMEOUT_MS: described(
    integer(1_000, 600_000).prefault('30000'),
    'How long one request to Claude may take.',
  ),
  CHAT_PROVIDER: described(
    choice(['claude', 'openai']).prefault('claude'),
    'Model that writes chat answers: Claude (when ANTHROPIC_API_KEY is set) or an OpenAI-compatible ' +
      '`/chat/completions` server (Ollama, llama.cpp, vLLM) at OPENAI_CHAT_URL. Either way, an answer that ' +
      'cites no passage falls back to search mode.',
  ),
  OPENAI_CHAT_URL: described(
    absoluteUrl().optional(),
    'Base address of the OpenAI-compatible chat API (`/chat/completions` is appended); ' +
      'required when CHAT_PROVIDER=openai.',
    { example: 'http://127.0.0.1:11434/v1' },
  ),
  OPENAI_CHAT_API_KEY: described(text('secret').optional(), 'Bearer key for OPENAI_CHAT_URL, if it needs one.'),
  OPENAI_CHAT_MODEL: described(text('model name').prefault('llama3.1'), 'Chat model to ask OPENAI_CHAT_URL for.'),
  OPENAI_CHAT_TIMEOUT_MS: described(
    integer(1_000, 600_000).prefault('60000'),
    'How long one request to the OpenAI-compatible chat model may take.',
  ),
  EMBEDDINGS_PROVIDER: described(
    choice(['use-lite', 'openai']).prefault('use-lite'),
    'Passage embeddings: the offline USE-lite model, or an OpenAI-compatible `/embeddings` endpoint.',
  ),
  EMBEDDINGS_URL: described(
    absoluteUrl().optional(),
    'Base address of the OpenAI-compatible API (`/embeddings` is appended); required when EMBEDDINGS_PROVIDER=openai.',
    { example: 'https://api.openai.com/v1' },
  ),
  EMBEDDINGS_API_KEY: described(text('secret').optional(), 'Bearer key for EMBEDDINGS_URL, if it needs one.'),
  EMBEDDINGS_MODEL: described(
    text('model name').prefault('text-embedding-3-small'),
    'Embedding model to ask EMBEDDINGS_URL for.',
  ),
  GENERATION_MAX_PAGES: described(
    integer(1, 10_000).prefault('50'),
    'Podcasts and infographics are generated only from sources under this many pages (else 422).',
  ),
  FFMPEG_PATH: described(text('path').optional(), 'ffmpeg binary for podcasts and video thumbnails.', {
    computedDefault: 'the one bundled by `@ffmpeg-installer/ffmpeg`',
  }),
  LIBREOFFICE_PATH: described(
    text('path').optional(),
    "LibreOffice's `soffice`, optional: renders Word files without recorded page breaks to PDF, so chat sources " +
      "cite the rendered page (else the section's estimate).",
    { computedDefault: '`soffice` on `PATH`, if any' },
  ),
  OCR_ENABLED: described(
    flag().prefault('true'),
    'Ingestion reads scanned PDF pages (pages without a text layer) and PNG/JPEG images with OCR (tesseract.js, ' +
      'offline, one page at a time, ~1-3 s and ~300 MB a page); false: they end `no_text` / `unsupported`.',
  ),
};
