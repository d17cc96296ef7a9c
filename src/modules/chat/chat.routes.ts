import type { Request, Response, Router } from 'express';
import { actorOf } from '../../http/context.ts';
import { negotiate, sendPage } from '../../http/respond.ts';
import { AppError } from '../../shared/errors.ts';
import { mapPage, pageRequest } from '../../shared/pagination.ts';
import { toChatConversationDto, toChatResponseDto, toChatTurnDto, toContentGapDto } from './chat.mapper.ts';
import type { Logger } from '../../shared/logger.ts';
import type { ChatInput, ChatService } from './chat.service.ts';

/** Accept decides, q-values included (`text/event-stream;q=0` refuses a stream); neither offered is 406. */
const wantsStream = (req: Request) =>
  negotiate(req, ['application/json', 'text/event-stream'] as const) === 'text/event-stream';

/**
 * Server-sent events: headers go out with the first event, so a refusal before it (access, an unknown
 * conversation) is still an ordinary problem+json response from the error handler.
 */
function eventStream(res: Response) {
  const send = (event: string, data: unknown) => {
    if (!res.headersSent) {
      res.status(200).set({
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
    }
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  return { send, started: () => res.headersSent };
}

export function chatRoutes(router: Router, chat: ChatService, logger: Logger): void {
  router.post('/api/resources/chat', async (req, res) => {
    const input = req.body as ChatInput;
    if (!wantsStream(req)) {
      res.json(toChatResponseDto(await chat.ask(actorOf(req), input)));
      return;
    }
    const stream = eventStream(res);
    try {
      const answer = await chat.ask(actorOf(req), input, {
        token: (text) => stream.send('token', { text }),
        reset: (reason) => stream.send('reset', { reason }),
      });
      stream.send('answer', toChatResponseDto(answer));
      stream.send('done', {});
      res.end();
    } catch (error) {
      if (!stream.started()) throw error;
      // mid-stream: the status is sent already, so the failure is an event (the log has the cause)
      logger.error({ err: error, requestId: req.context.requestId }, 'chat stream failed');
      stream.send(
        'error',
        error instanceof AppError
          ? { code: error.code, detail: error.message }
          : { code: 'internal_error', detail: 'The answer could not be completed' },
      );
      res.end();
    }
  });
  router.get('/api/resources/chat/history', async (req, res) => {
    const conversationId = typeof req.query.conversationId === 'string' ? req.query.conversationId : undefined;
    sendPage(
      req,
      res,
      mapPage(await chat.history(actorOf(req), pageRequest(req.query), conversationId), toChatConversationDto),
    );
  });
  router.post('/api/resources/chat/feedback', async (req, res) => {
    res.json(
      toChatTurnDto(
        await chat.feedback(
          actorOf(req),
          req.body as { turnId?: string; conversationId?: string; helpful: boolean; comment?: string },
        ),
      ),
    );
  });
  router.get('/api/resources/reports/content-gaps', async (req, res) => {
    const since = typeof req.query.since === 'string' ? new Date(req.query.since) : undefined;
    sendPage(req, res, mapPage(await chat.contentGaps(actorOf(req), pageRequest(req.query), since), toContentGapDto));
  });
}
