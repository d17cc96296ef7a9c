// The portal's one way of writing a time, with its zone: "2026-11-23 18:40 UTC". Admins in different
// zones read the same page (and the notices the server writes) alike; AdminJS's default wrote local
// times without a zone, and the browser's toLocaleString a third style.
export const portalTime = (value: unknown): string => {
  if (value === null || value === undefined || value === '') return '';
  const date = value instanceof Date ? value : new Date(String(value));
  return Number.isNaN(date.getTime()) ? '' : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
};
