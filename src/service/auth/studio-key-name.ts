/** The name of the key the desktop makes for its own studio (its own module: the audit trail reads it without the key store). */
export const STUDIO_KEY_NAME = 'studio';
