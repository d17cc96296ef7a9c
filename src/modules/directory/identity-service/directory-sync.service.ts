// A pull sync of a brokered directory from the identity service. Placeholder: being built.
import type { DirectoryProvisioning } from '../directory-provisioning.service.ts';

export class DirectorySyncService {
  constructor(readonly deps: { provisioning: DirectoryProvisioning }) {}

  async run(_runId: string): Promise<void> {}
}
