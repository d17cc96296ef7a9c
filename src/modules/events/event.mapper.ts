import type { components } from '../../types/openapi.d.ts';
import type { Attributes } from 'sequelize';
import type { Event } from './event.model.ts';

export type EventDto = components['schemas']['Event'];
export type EventInput = components['schemas']['EventInput'];

export function toEventDto(event: Attributes<Event>): EventDto {
  return {
    id: event.id,
    organizationId: event.organizationId,
    title: event.title,
    description: event.description,
    startsAt: event.startsAt.toISOString(),
    endsAt: event.endsAt.toISOString(),
    timezone: event.timezone,
    location: event.location,
    onlineUrl: event.onlineUrl,
    capacity: event.capacity,
    status: event.status,
    createdAt: event.createdAt.toISOString(),
    updatedAt: event.updatedAt.toISOString(),
  };
}
