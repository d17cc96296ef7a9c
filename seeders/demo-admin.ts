// The demo admin's e-mail when DEMO_ADMIN_EMAIL is unset: a leaf, so `npm run reset-admin` can name it
// without loading the application the seeder needs.
export const DEFAULT_ADMIN_EMAIL = 'admin@guildhall.local';
