import { defineJob, payloadOf } from '../../../jobs/job.ts';
import type { ThumbnailService } from './thumbnail.service.ts';

// the payload enqueue() takes for this name (see jobs/job.ts: JobPayloads)
declare module '../../../jobs/job.ts' {
  interface JobPayloads {
    'library.thumbnail': { resourceId: string };
  }
}

/** Renders a resource's thumbnail (enqueued by the thumbnail subscriber when a resource is published or its file or featured image changes). */
export const thumbnailJob = defineJob({
  name: 'library.thumbnail',
  payload: payloadOf<{ resourceId: string }>(),
  retry: { limit: 3, delaySeconds: 30, backoff: true },
  // a 500 MB video is copied to a temp file before ffmpeg reads one frame
  expireInSeconds: 15 * 60,
  handler:
    (thumbnails: ThumbnailService) =>
    async ({ resourceId }, { logger }) => {
      const outcome = await thumbnails.generate(resourceId);
      logger.debug({ resourceId, outcome }, 'thumbnail');
    },
});
