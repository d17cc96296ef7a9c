import { defineModule } from '../../shared/module-manifest.ts';
import { chatRoutes } from './chat.routes.ts';

// Listed before the library module: `/api/resources/chat...` and `/api/resources/reports/content-gaps`
// must be matched before `/api/resources/:id`.
export const chatModule = defineModule({
  name: 'chat',
  routes: {
    api: ({ container: { services, logger } }) => (router) => chatRoutes(router, services.chat, logger),
  },
  ownedUserData: [
    { type: 'chat_conversations', description: 'Library chat conversations this user had (kept as history)', table: 'chat_conversations', column: 'asker_id', transferable: false, cast: '::text' },
  ],
});
