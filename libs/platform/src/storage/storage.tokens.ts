export const EMBEDDED_STORAGE = Symbol('EMBEDDED_STORAGE');
export const SERVER_STORAGE = Symbol('SERVER_STORAGE');
