/** Shared by forms (browser) and the server; no server-only imports here. */
export const PASSWORD_MIN_LENGTH = 8;
