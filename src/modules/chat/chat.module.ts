import { OpenAiChatClient } from '../../integrations/openai-chat/openai-chat.client.ts';
import { defineModule } from '../../shared/module-manifest.ts';
import { chatRoutes } from './chat.routes.ts';
import { ChatService } from './chat.service.ts';

export const chatModule = defineModule({
  name: 'chat',
  services: ({ platform: { sql, db, embedder, anthropic, logger, config } }) => ({
    chat: new ChatService({
      sql,
      sequelize: db.sequelize,
      embedder,
      // CHAT_PROVIDER=openai: an OpenAI-compatible server answers instead of Claude, on the same contract
      anthropic: config.ai.openaiChat ? new OpenAiChatClient(config.ai.openaiChat) : anthropic,
      logger: logger.child({ module: 'chat' }),
    }),
  }),
  routes: {
    api:
      ({ services, platform }) =>
      (router) =>
        chatRoutes(router, services.chat, platform.logger),
  },
  ownedUserData: [
    {
      type: 'chat_conversations',
      description: 'Library chat conversations this user had (kept as history)',
      table: 'chat_conversations',
      column: 'asker_id',
      transferable: false,
      cast: '::text',
    },
  ],
});
