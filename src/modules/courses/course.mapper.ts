import type { components } from '../../types/openapi.d.ts';
import type { Attributes } from 'sequelize';
import type { Course } from './course.model.ts';

export type CourseDto = components['schemas']['Course'];
export type CourseInput = components['schemas']['CourseInput'];

export function toCourseDto(course: Attributes<Course>): CourseDto {
  return {
    id: course.id,
    organizationId: course.organizationId,
    title: course.title,
    description: course.description,
    status: course.status,
    level: course.level,
    durationMinutes: course.durationMinutes,
    credits: Number(course.credits),
    price: Number(course.price),
    currency: course.currency,
    publishedAt: course.publishedAt?.toISOString() ?? null,
    createdAt: course.createdAt.toISOString(),
    updatedAt: course.updatedAt.toISOString(),
  };
}
