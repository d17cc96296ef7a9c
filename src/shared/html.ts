/** Text made safe inside HTML text and quoted attribute values (the five characters that matter there). */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
