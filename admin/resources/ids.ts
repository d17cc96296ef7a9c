// Ids typed into a portal URL reach the database unchecked: PostgreSQL refuses 'x' for a uuid column
// (a query error, which the portal answered with a 500). A value that is not a UUID names no record.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: unknown): boolean => UUID.test(String(value));
