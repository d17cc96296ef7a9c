// What every portal resource backed by a service (not by a model adapter) has in common: its id,
// its fixed properties, and that no adapter claims it. Subclasses implement the reads and writes by
// calling the service with the portal admin as actor.
import { BaseResource, type BaseProperty } from 'adminjs';
import type { AppContext as Container } from '../../src/app-context.ts';

export abstract class ServiceResource extends BaseResource {
  constructor(
    protected readonly container: Container,
    private readonly resourceId: string,
    private readonly resourceProperties: BaseProperty[],
  ) {
    super(container);
  }

  static override isAdapterFor(): boolean {
    return false;
  }
  override databaseName(): string {
    return 'guildhall';
  }
  override databaseType(): string {
    return 'postgresql';
  }
  override id(): string {
    return this.resourceId;
  }
  override properties(): BaseProperty[] {
    return this.resourceProperties;
  }
  override property(path: string): BaseProperty | null {
    return this.resourceProperties.find((p) => p.path() === path) ?? null;
  }
}
